"""End to end: the real legibled, real Tesseract, a real socket, and Google's protobuf runtime
as a second implementation of the wire format."""
import json
import os
import signal
import stat
import struct

from conftest import FIXTURES, Server
from legible_client import Stream, pb

INVALID_ARGUMENT, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, UNIMPLEMENTED = 3, 8, 9, 12


def fixture(name):
    with open(os.path.join(FIXTURES, name), "rb") as f:
        return f.read()


def truth(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


def cer(got, want):
    previous = list(range(len(want) + 1))
    for i, a in enumerate(got, 1):
        current = [i]
        for j, b in enumerate(want, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1] / max(1, len(want))


def start(stream, **options):
    """Starts a session. These tests send the same scene again and again to check how frames
    are read, so unchanged frames are read too unless a test says otherwise."""
    options.setdefault("recognize_unchanged", True)
    stream.send(pb.ClientMessage(start=pb.StartSession(protocol_version=1, client_name="pytest",
                                                        options=pb.RecognitionOptions(**options))))
    reply = stream.receive()
    assert reply.WhichOneof("message") == "started", reply
    return reply.started


def jpeg_frame(frame_id, data):
    return pb.ClientMessage(frame=pb.Frame(frame_id=frame_id, image=pb.Image(encoding=pb.ENCODING_JPEG, data=data),
                                           orientation=pb.ORIENTATION_UP))


def end(stream):
    """Sends EndSession; returns the results still owed and the summary."""
    stream.send(pb.ClientMessage(end=pb.EndSession()))
    results = []
    while True:
        message = stream.receive()
        assert message is not None, "stream closed before the summary"
        if message.WhichOneof("message") == "summary":
            assert stream.receive() is None, "the server must close after the summary"
            return results, message.summary
        results.append(message)


def assert_corners_bound(points, frame):
    """corner_points: four points clockwise (y down) from the text's top-left, whose bounding
    box is the frame (a line found at a slight tilt has a rotated box; an upright one, the
    frame's own corners)."""
    x, y, width, height = frame
    assert len(points) == 4, points
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    assert (min(xs), min(ys), max(xs), max(ys)) == (x, y, x + width, y + height), (points, frame)
    twice_area = sum(points[i][0] * points[(i + 1) % 4][1] - points[(i + 1) % 4][0] * points[i][1] for i in range(4))
    assert twice_area > 0, ("not clockwise", points)
    # The first corner is the top-left one as the text reads: left of the second, above the fourth.
    assert points[0][0] < points[1][0] and points[0][1] < points[3][1], points


def overlap(a, b):
    ax, ay, aw, ah = a
    bx, by, bw, bh = b.x, b.y, b.width, b.height
    w = min(ax + aw, bx + bw) - max(ax, bx)
    h = min(ay + ah, by + bh) - max(ay, by)
    return max(0, w) * max(0, h) / float(aw * ah + bw * bh - max(0, w) * max(0, h))


def test_recognizes_text_and_boxes(server):
    stream = Stream(server.address)
    started = start(stream)
    assert started.session_id and started.server_version
    assert started.limits.max_message_bytes == 16 << 20
    assert pb.SCRIPT_LATIN in started.available_scripts
    for frame_id, name in [(1, "camera-720p"), (2, "label-640x480")]:
        stream.send(jpeg_frame(frame_id, fixture(name + ".jpg")))
        message = stream.receive()
        result = message.result
        assert result.frame_id == frame_id and result.status == pb.FRAME_STATUS_RECOGNIZED, message
        want = truth(name + ".json")
        text = "\n".join(line["text"] for line in want["lines"])
        # Clean synthetic camera frames: under 5 % character errors.
        assert cer(result.text.text, text) < 0.05, result.text.text
        assert (result.text.image_width, result.text.image_height) == (want["width"], want["height"])
        words = [w for b in result.text.blocks for l in b.lines for w in l.elements]
        for line in want["lines"]:
            for word in line["words"]:
                match = [w for w in words if w.text == word["text"]]
                assert match and max(overlap(word["box"], w.frame) for w in match) > 0.3, word
        for w in words:
            assert 0 <= w.confidence <= 1
            assert_corners_bound([(p.x, p.y) for p in w.corner_points],
                                 (w.frame.x, w.frame.y, w.frame.width, w.frame.height))
    stream.send(pb.ClientMessage(ping=pb.Ping(nonce=77)))
    assert stream.receive().pong.nonce == 77
    rest, summary = end(stream)
    assert rest == []
    assert (summary.frames_received, summary.frames_recognized) == (2, 2)


def test_every_frame_answered_once_newest_wins(server):
    stream = Stream(server.address)
    start(stream)
    data = fixture("camera-720p.jpg")
    for frame_id in range(1, 21):
        stream.send(jpeg_frame(frame_id, data))
    results, summary = end(stream)
    ids = sorted(m.result.frame_id for m in results)
    assert ids == list(range(1, 21))
    statuses = [m.result.status for m in results]
    assert pb.FRAME_STATUS_DROPPED in statuses
    assert summary.frames_received == 20
    assert summary.frames_recognized + summary.frames_dropped == 20
    # The newest frame is never the one dropped.
    last = [m.result for m in results if m.result.frame_id == 20][0]
    assert last.status == pb.FRAME_STATUS_RECOGNIZED


def fatal_error(stream):
    message = stream.receive()
    assert message.WhichOneof("message") == "error", message
    assert message.error.fatal
    assert stream.receive() is None
    return message.error


def test_frame_before_start_is_fatal_failed_precondition(server):
    stream = Stream(server.address)
    stream.send(jpeg_frame(1, fixture("camera-720p.jpg")))
    assert fatal_error(stream).code == FAILED_PRECONDITION


def test_oversize_length_is_fatal_resource_exhausted(server):
    stream = Stream(server.address)
    stream.send_raw(struct.pack(">BI", 0, 0xFFFFFFF0))
    assert fatal_error(stream).code == RESOURCE_EXHAUSTED


def test_compressed_flag_is_fatal_unimplemented(server):
    stream = Stream(server.address)
    stream.send_raw(struct.pack(">BI", 1, 2) + b"\x22\x00")
    assert fatal_error(stream).code == UNIMPLEMENTED


def test_bytes_that_are_not_a_message_are_fatal_invalid_argument(server):
    stream = Stream(server.address)
    stream.send_raw(struct.pack(">BI", 0, 6) + b"\xff\xff\xff\xff\xff\xff")
    assert fatal_error(stream).code == INVALID_ARGUMENT


def test_bad_frames_fail_alone_and_the_session_goes_on(server):
    stream = Stream(server.address)
    start(stream)
    bad = [
        (1, pb.Image(encoding=pb.ENCODING_JPEG, data=fixture("not-a-jpeg.jpg")), INVALID_ARGUMENT, "Not a JPEG"),
        (2, pb.Image(encoding=pb.ENCODING_JPEG, data=b""), INVALID_ARGUMENT, "empty"),
        (3, pb.Image(encoding=pb.ENCODING_GRAY8, data=b"\0" * 100, width=64, height=48, stride=64), INVALID_ARGUMENT, "GRAY8"),
        (4, pb.Image(encoding=pb.ENCODING_PNG, data=b"\x89PNG"), INVALID_ARGUMENT, "PNG header"),
    ]
    for frame_id, image, code, words in bad:
        stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=frame_id, image=image)))
        result = stream.receive().result
        assert (result.frame_id, result.status, result.error.code) == (frame_id, pb.FRAME_STATUS_FAILED, code)
        assert words.lower() in result.error.message.lower(), result.error.message
    stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=5, image=pb.Image(encoding=pb.ENCODING_JPEG,
                                 data=fixture("label-640x480.jpg")), orientation=9)))
    assert stream.receive().result.error.code == INVALID_ARGUMENT
    # Still serving: a good frame is read.
    stream.send(jpeg_frame(6, fixture("label-640x480.jpg")))
    assert stream.receive().result.status == pb.FRAME_STATUS_RECOGNIZED
    _, summary = end(stream)
    assert (summary.frames_received, summary.frames_failed, summary.frames_recognized) == (6, 5, 1)


def test_gray8_with_stride(server):
    stream = Stream(server.address)
    start(stream)
    from PIL import Image
    import io
    gray = Image.open(io.BytesIO(fixture("label-640x480.jpg"))).convert("L")
    w, h = gray.size
    rows = gray.tobytes()
    padded = b"".join(rows[y * w:(y + 1) * w] + b"\x00" * 64 for y in range(h))
    stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=1, image=pb.Image(
        encoding=pb.ENCODING_GRAY8, data=padded, width=w, height=h, stride=w + 64))))
    result = stream.receive().result
    want = "\n".join(l["text"] for l in truth("label-640x480.json")["lines"])
    assert result.status == pb.FRAME_STATUS_RECOGNIZED and cer(result.text.text, want) < 0.05


def test_disconnect_mid_recognition_leaves_the_server_serving(server):
    for _ in range(3):
        stream = Stream(server.address)
        start(stream)
        stream.send(jpeg_frame(1, fixture("camera-720p.jpg")))
        stream.send_raw(b"\x00\x00\x00")  # half a header, then gone
        stream.close()
    stream = Stream(server.address)
    start(stream)
    stream.send(jpeg_frame(1, fixture("label-640x480.jpg")))
    assert stream.receive().result.status == pb.FRAME_STATUS_RECOGNIZED


def test_unix_socket_is_private(server):
    assert stat.S_IMODE(os.stat(server.path).st_mode) == 0o600


def test_sigterm_answers_every_frame_then_exits_zero():
    s = Server()
    streams = []
    for _ in range(3):
        stream = Stream(s.address)
        start(stream)
        for frame_id in (1, 2, 3):
            stream.send(jpeg_frame(frame_id, fixture("camera-720p.jpg")))
        streams.append(stream)
    # Wait until the server has answered at least one frame so all were received.
    first = streams[0].receive()
    assert first.WhichOneof("message") == "result"
    s.process.send_signal(signal.SIGTERM)
    for index, stream in enumerate(streams):
        seen = [first] if index == 0 else []
        while True:
            message = stream.receive()
            assert message is not None, "closed without a summary"
            if message.WhichOneof("message") == "summary":
                break
            seen.append(message)
        assert sorted(m.result.frame_id for m in seen) == [1, 2, 3]
        assert message.summary.frames_received == 3
        assert stream.receive() is None
    assert s.process.wait(timeout=60) == 0
    assert not os.path.exists(s.path), "the socket file is removed at exit"
