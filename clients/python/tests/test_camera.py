"""The camera client, `python3 -m legible_client.camera`, against the real legibled and Tesseract.

The sources are made here: a short video of a known scene (scripts/camera_frames.py: DejaVu
text, perspective, lighting, noise) with a few pixels of jitter per frame, written with OpenCV;
and folders of stills. The client runs headless, in-process through `camera.parse_args` and
`camera.run` (to read its report) or as a subprocess (exit codes, Ctrl-C).

Streams run at 4 fps (slower than one recognition, so every frame is read) except the
30 fps test, which checks that a stream faster than recognition is answered frame by frame.
"""
from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import threading

import cv2
import numpy as np
import pytest

from conftest import REPO, Server
from legible_client import camera, pb, sensor_to_upright, upright_size, upright_to_sensor
from legible_client.frames import ENCODINGS, encode_frame, parse_orientation, to_upright
from legible_client.ledger import Ledger, percentile
from legible_client.mailbox import Mailbox
from legible_client.overlay import (CANDIDATE_COLOR, CAPTURED_COLOR, LINE_COLOR, STABLE_COLOR, WORD_COLOR,
                                    draw_overlay)
from test_end_to_end import cer

sys.path.insert(0, os.path.join(REPO, "scripts"))
import camera_frames as cf  # noqa: E402

CLIENT_DIR = os.path.join(REPO, "clients", "python")
MAX_CER = 0.05
VIDEO_FRAMES = 24
VIDEO_FPS = 4            # the video's own rate, which the client keeps; slower than one recognition


# ---------------------------------------------------------------- sources made here


def jitter(index: int) -> tuple[int, int]:
    """A deterministic few-pixel shake for frame `index`."""
    return (index * 5) % 7 - 3, (index * 3) % 5 - 2


def shifted(image: np.ndarray, dx: int, dy: int) -> np.ndarray:
    matrix = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(image, matrix, (image.shape[1], image.shape[0]), borderMode=cv2.BORDER_REPLICATE)


def shifted_box(box, dx: int, dy: int) -> tuple[int, int, int, int]:
    x, y, w, h = box
    return x + dx, y + dy, w, h


@functools.lru_cache(maxsize=None)
def the_scene() -> tuple[np.ndarray, dict]:
    """640x480 upright BGR frame of four known lines and its truth (word ink boxes)."""
    image, truth = cf.scene(640, 480)
    return cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR), truth


@pytest.fixture(scope="module")
def video(tmp_path_factory) -> str:
    """VIDEO_FRAMES frames of the scene with jitter, mp4v at VIDEO_FPS."""
    bgr, _ = the_scene()
    path = str(tmp_path_factory.mktemp("video") / "scene.mp4")
    writer = cv2.VideoWriter(path, cv2.VideoWriter.fourcc(*"mp4v"), VIDEO_FPS, (640, 480))
    assert writer.isOpened()
    for index in range(VIDEO_FRAMES):
        writer.write(shifted(bgr, *jitter(index)))
    writer.release()
    return path


def stills(folder, count: int, orientation: int = pb.ORIENTATION_UP, scene=None) -> str:
    """`count` PNGs of the (jittered) scene, stored so that `orientation` turns them upright."""
    bgr = the_scene()[0] if scene is None else scene
    os.makedirs(folder, exist_ok=True)
    for index in range(count):
        upright = shifted(bgr, *jitter(index))
        stored = cv2.cvtColor(np.asarray(cf.to_stored(_pil(upright), orientation)), cv2.COLOR_RGB2BGR)
        cv2.imwrite(os.path.join(folder, f"{index:03d}.png"), stored)
    return str(folder)


def _pil(bgr: np.ndarray):
    from PIL import Image
    return Image.fromarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))


def truth_text() -> str:
    return cf.truth_text(the_scene()[1])


# ---------------------------------------------------------------- running the client


@pytest.fixture(scope="module")
def servers(server):
    """The module's servers: conftest's, then a fresh one each time a test crashed the last one,
    so that a server crash is reported by the test that caused it, not by every test after it."""
    started = [server]
    yield started
    for extra in started[1:]:
        extra.stop()


@pytest.fixture
def legibled(servers) -> Server:
    if servers[-1].process.poll() is not None:
        servers.append(Server())
    return servers[-1]


def stream(server: Server, *flags: str) -> camera.Report:
    """Runs the client in-process against `server`; fails with the server's log if it died."""
    report = camera.run(camera.parse_args(["--server", server.address, *flags]))
    if server.process.poll() is not None:
        pytest.fail("legibled died:\n" + server.read_log()[-3000:])
    return report


def command(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "legible_client.camera", *args], cwd=CLIENT_DIR,
                          capture_output=True, text=True, timeout=60, **kwargs)


def assert_adds_up(report: camera.Report, captured: int) -> None:
    """Every frame captured was sent or skipped locally; every one sent was answered exactly
    once; the server's SessionSummary agrees."""
    assert report.broken is None and report.problems == [], (report.broken, report.problems)
    assert report.captured == captured
    assert report.sent + report.skipped_locally == captured
    summary = report.summary
    assert summary is not None
    assert summary.frames_received == report.sent == sum(report.counts.values())
    assert (summary.frames_recognized, summary.frames_dropped, summary.frames_skipped, summary.frames_failed) == (
        report.counts["recognized"], report.counts["dropped"], report.counts["skipped"], report.counts["failed"])
    assert report.counts["failed"] == 0
    assert report.exit_code == camera.EXIT_OK


def ring_fraction(image: np.ndarray, box, color, margin: int = 2) -> float:
    """Pixels of exactly `color` in a ring `margin` px either side of `box`'s outline, as a
    fraction of that outline's length (about 1 when the box is drawn there)."""
    x, y, w, h = box
    top, left = max(0, y - margin), max(0, x - margin)
    region = image[top:y + h + margin, left:x + w + margin]
    hits = np.all(region == np.array(color, np.uint8), axis=-1)
    inner = hits[y + margin - top:y + h - margin - top, x + margin - left:x + w - margin - left]
    inner[...] = False
    return hits.sum() / float(2 * (w + h))


# ---------------------------------------------------------------- end to end


def test_video_headless_mp4_pngs_and_summary(legibled, video, tmp_path):
    mp4, pngs = str(tmp_path / "annotated.mp4"), str(tmp_path / "frames")
    report = stream(legibled, "--source", video, "--out-video", mp4, "--out-dir", pngs, "-q")
    assert_adds_up(report, VIDEO_FRAMES)
    assert report.counts["recognized"] >= 1
    last = report.last_recognized
    assert cer(last.text.text, truth_text()) < MAX_CER, last.text.text
    assert report.latencies_ms["recognized"][0] > 0

    # The MP4: one annotated frame per captured frame, at the source's size.
    capture = cv2.VideoCapture(mp4)
    frames = 0
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frames += 1
        assert frame.shape == (480, 640, 3)
    assert frames == VIDEO_FRAMES
    assert capture.get(cv2.CAP_PROP_FPS) == pytest.approx(VIDEO_FPS)

    # The PNG of the last recognized frame has its own word boxes around the words' ink.
    assert sorted(os.listdir(pngs)) == [f"frame-{i:06d}.png" for i in range(1, VIDEO_FRAMES + 1)]
    image = cv2.imread(os.path.join(pngs, f"frame-{last.frame_id:06d}.png"))
    dx, dy = jitter(last.frame_id - 1)
    for line in the_scene()[1]["lines"]:
        for word in line["words"]:
            assert ring_fraction(image, shifted_box(word["box"], dx, dy), WORD_COLOR) > 0.6, word
    # ... and none where there is no text (right margin of the frame).
    assert ring_fraction(image, (520, 200, 80, 30), WORD_COLOR) < 0.05


@pytest.mark.parametrize("draw_on", ["sensor", "upright"])
def test_rotated_source_draws_on_sensor_or_upright(legibled, tmp_path, draw_on):
    """Stills stored sideways (orientation right): the server reads them upright; the boxes land
    on the words both on the upright view and, mapped by upright_to_sensor, on the stored frame."""
    count = 4
    folder = stills(tmp_path / "stored", count, pb.ORIENTATION_RIGHT)
    out = str(tmp_path / "out")
    report = stream(legibled, "--source", folder, "--fps", "4", "--orientation", "right",
                    "--draw-on", draw_on, "--out-dir", out, "-q")
    assert_adds_up(report, count)
    last = report.last_recognized
    assert cer(last.text.text, truth_text()) < MAX_CER, last.text.text
    stored_w, stored_h = 480, 640
    assert (last.text.image_width, last.text.image_height) == upright_size(pb.ORIENTATION_RIGHT, stored_w, stored_h) == (640, 480)

    image = cv2.imread(os.path.join(out, f"frame-{last.frame_id:06d}.png"))
    assert image.shape[:2] == ((stored_h, stored_w) if draw_on == "sensor" else (480, 640))
    dx, dy = jitter(last.frame_id - 1)
    for line in the_scene()[1]["lines"]:
        for word in line["words"]:
            box = shifted_box(word["box"], dx, dy)
            if draw_on == "sensor":
                box = upright_to_sensor(box, pb.ORIENTATION_RIGHT, stored_w, stored_h)
            assert ring_fraction(image, box, WORD_COLOR) > 0.6, (word, box)


@functools.lru_cache(maxsize=None)
def odd_scene() -> tuple[np.ndarray, dict]:
    image, truth = cf.scene(641, 479)
    return cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR), truth


@pytest.mark.parametrize("encoding", ["gray8", "bgra8", "nv12", "i420", "rgba8", "png"])
def test_every_encoding_of_an_odd_sized_frame_is_read(legibled, tmp_path, encoding):
    bgr, truth = odd_scene()
    folder = stills(tmp_path / "odd", 1, scene=bgr)
    report = stream(legibled, "--source", folder, "--encoding", encoding, "-q")
    assert_adds_up(report, 1)
    result = report.last_recognized
    assert result is not None and (result.text.image_width, result.text.image_height) == (641, 479)
    assert cer(result.text.text, cf.truth_text(truth)) < MAX_CER, result.text.text


def test_ctrl_c_ends_the_session_and_waits_for_the_summary(legibled, tmp_path):
    folder = stills(tmp_path / "long", 40)    # 10 s at 4 fps; interrupted after the first result
    process = subprocess.Popen([sys.executable, "-m", "legible_client.camera", "--source", folder, "--fps", "4",
                                "--server", legibled.address], cwd=CLIENT_DIR, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    lines = []
    for line in process.stdout:
        lines.append(line)
        if " recognized " in line:
            process.send_signal(signal.SIGINT)
            break
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    lines += out.splitlines(keepends=True)
    text = "".join(lines)
    assert "interrupted: ending the session" in err
    assert "(interrupted)" in text and "ok: every one of the" in text, text
    captured = int(text.split("summary: ")[1].split(" frames captured")[0])
    assert 1 <= captured < 40
    assert legibled.process.poll() is None


def test_capture_goals_are_drawn_printed_and_stop_the_run(legibled, tmp_path, capsys):
    """--capture phone --capture re:... with --stop-on-capture over a folder of a business card
    drifting: the candidates are drawn in magenta, the confirmed value in yellow on the frame
    that confirmed it, both goals are printed, and the run ends before the folder does with
    its books balanced."""
    from test_capture import card_frame
    folder = tmp_path / "card"
    folder.mkdir()
    for index in range(12):
        (folder / f"{index:03d}.jpg").write_bytes(card_frame(index))
    out = str(tmp_path / "out")
    report = stream(legibled, "--source", str(folder), "--fps", "4", "--recognize-unchanged", "--capture", "phone",
                    "--capture", r"re:[A-Z]{2}-\d{6}", "--stop-on-capture", "--out-dir", out, "-q")
    assert report.captures == {"phone": "+493012345678", "re1": "AB-123456"}, report.captures
    assert report.captured < 12, "the run stopped on capture"
    assert_adds_up(report, report.captured)
    printed = capsys.readouterr().out
    assert "captured phone: +493012345678" in printed and "captured re1: AB-123456" in printed, printed
    colours = {}
    for name in sorted(os.listdir(out)):
        image = cv2.imread(os.path.join(out, name))
        colours[name] = (bool(np.all(image == np.array(CANDIDATE_COLOR, np.uint8), axis=-1).any()),
                         bool(np.all(image == np.array(CAPTURED_COLOR, np.uint8), axis=-1).any()))
    assert any(candidate and not captured for candidate, captured in colours.values()), colours
    assert any(captured for _, captured in colours.values()), colours


def test_fast_stream_every_frame_answered_once(tmp_path, video):
    """Played at 30 fps, faster than recognition: the server drops (or skips) frames, the
    client's books still balance, and the overlay falls back to the newest earlier result."""
    own = Server()
    try:
        out = str(tmp_path / "frames")
        report = stream(own, "--source", video, "--fps", "30", "--out-dir", out, "-q")
        assert_adds_up(report, VIDEO_FRAMES)
        assert report.counts["dropped"] + report.counts["skipped"] + report.skipped_locally > 0, report.counts
        assert len(os.listdir(out)) == VIDEO_FRAMES
    finally:
        own.stop()


def test_the_same_run_over_grpc_reads_the_same_and_balances_its_books(legibled, video, tmp_path):
    """--transport grpc: the session as a stock gRPC client runs it (grpcio's Stream call, the
    stub generated by make python-proto); the same frames, the same books, the same reading."""
    report = stream(legibled, "--source", video, "--transport", "grpc", "-q")
    assert_adds_up(report, VIDEO_FRAMES)
    assert report.counts["recognized"] >= 1
    assert cer(report.last_recognized.text.text, truth_text()) < MAX_CER, report.last_recognized.text.text


def test_unreachable_grpc_server_exits_2(video):
    out = command("--source", video, "--transport", "grpc", "--server", "unix:/nonexistent/legible.sock")
    assert out.returncode == 2, out.stderr
    assert "cannot reach the server" in out.stderr


# ---------------------------------------------------------------- command line


def test_help_exits_0_and_reads_like_a_unix_tool():
    out = command("--help")
    assert out.returncode == 0, out.stderr
    for words in ("usage: python3 -m legible_client.camera --source SRC", "examples:", "exit status:",
                  "64  usage error", "--draw-on", "--stable-after"):
        assert words in out.stdout, words


@pytest.mark.parametrize("args", [["--source", "x.mp4", "--bogus"], ["--fps", "5"], ["--source", "x.mp4", "--roi", "1,2,3"],
                                  ["--source", "x.mp4", "--orientation", "sideways"], ["--source", "/no/such/video.mp4"],
                                  ["--source", "x.mp4", "--server", "http://x"]])
def test_usage_errors_exit_64(args):
    out = command(*args)
    assert out.returncode == 64, out.stderr
    assert out.stderr.strip()


def test_unreachable_server_exits_2(video):
    out = command("--source", video, "--server", "unix:/nonexistent/legible.sock")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "cannot reach the server" in out.stderr


@pytest.mark.skipif(camera.window_support() is None, reason="this OpenCV can open windows")
def test_show_without_a_gui_exits_2_naming_the_package(video):
    out = command("--source", video, "--show", "--server", "unix:/nonexistent/legible.sock")
    assert out.returncode == 2
    assert "opencv-python" in out.stderr


def test_recognition_options_from_flags():
    args = camera.parse_args(["--source", "x", "--script", "latin", "--mode", "document", "--level", "accurate",
                              "--roi", "10,20,300,40", "--stable-after", "5", "--wait-for-steady"])
    options = camera.recognition_options(args)
    assert list(options.scripts) == [pb.SCRIPT_LATIN]
    assert (options.mode, options.level, options.stable_after, options.wait_for_steady) == (
        pb.MODE_DOCUMENT, pb.LEVEL_ACCURATE, 5, True)
    assert (options.region_of_interest.x, options.region_of_interest.width) == (10, 300)
    assert args.orientation == pb.ORIENTATION_UP and args.encoding == "jpeg"


# ---------------------------------------------------------------- units


def test_mailbox_skips_frames_while_the_sender_is_blocked():
    mailbox: Mailbox[int] = Mailbox()
    sending, release = threading.Event(), threading.Event()
    sent: list[int] = []

    def sender() -> None:             # a sender whose socket is full until `release`
        while (item := mailbox.take()) is not None:
            sending.set()
            assert release.wait(5)
            sent.append(item)
            mailbox.done()

    thread = threading.Thread(target=sender)
    thread.start()
    assert mailbox.offer(1)
    assert sending.wait(5)
    assert not mailbox.offer(2) and not mailbox.offer(3)     # refused at once, not queued
    assert (mailbox.accepted, mailbox.skipped, mailbox.busy) == (1, 2, True)
    release.set()
    assert mailbox.wait_idle(5)
    assert mailbox.offer(4)
    assert mailbox.wait_idle(5)
    mailbox.close()
    thread.join(5)
    assert sent == [1, 4] and (mailbox.accepted, mailbox.skipped) == (2, 2)


class _BlockedStream:
    """A Stream whose socket is full: send() blocks until `release`; receive() waits to end."""

    def __init__(self) -> None:
        self.release, self.closed, self.sending = threading.Event(), threading.Event(), threading.Event()
        self.frames: list[int] = []

    def send(self, message) -> None:
        if message.WhichOneof("message") == "frame":
            self.sending.set()
            assert self.release.wait(5)
            self.frames.append(message.frame.frame_id)

    def receive(self):
        self.closed.wait(5)
        return None


def test_connection_counts_local_skips_and_books_only_sent_frames():
    stream = _BlockedStream()
    args = camera.parse_args(["--source", "x", "--encoding", "gray8"])
    connection = camera.Connection(stream, args, camera.Printer(quiet=True), timeline=None)
    connection.start()
    image = np.zeros((48, 64, 3), np.uint8)
    assert connection.mailbox.offer(camera.Outgoing(1, image, 0))
    assert stream.sending.wait(5)
    refused = [connection.mailbox.offer(camera.Outgoing(i, image, 0)) for i in range(2, 6)]
    assert refused == [False] * 4
    stream.release.set()
    assert connection.mailbox.wait_idle(5)
    assert connection.mailbox.offer(camera.Outgoing(6, image, 0))
    connection.finish_sending()
    stream.closed.set()
    assert connection.finished.wait(5)
    assert stream.frames == [1, 6]
    assert sorted(connection.ledger.sent_at) == [1, 6] and connection.mailbox.skipped == 4


def test_ledger_checks_exactly_one_result_per_frame():
    ledger = Ledger()
    for frame_id in (1, 2, 3):
        ledger.book_send(frame_id)
    ledger.book_result(pb.FrameResult(frame_id=1, status=pb.FRAME_STATUS_RECOGNIZED))
    ledger.book_result(pb.FrameResult(frame_id=2, status=pb.FRAME_STATUS_DROPPED))
    ledger.book_result(pb.FrameResult(frame_id=2, status=pb.FRAME_STATUS_DROPPED))
    ledger.book_result(pb.FrameResult(frame_id=9, status=pb.FRAME_STATUS_RECOGNIZED))
    summary = pb.SessionSummary(frames_received=3, frames_recognized=1, frames_dropped=2)
    problems = " / ".join(ledger.problems(summary))
    for words in ("never answered: 3", "duplicate result(s): 2", "never sent: 9", "dropped 2, the client counted 1"):
        assert words in problems, problems
    ledger.book_result(pb.FrameResult(frame_id=3, status=pb.FRAME_STATUS_FAILED))
    assert ledger.counts() == {"recognized": 1, "dropped": 1, "skipped": 0, "failed": 1}


def test_percentiles_nearest_rank():
    values = [float(v) for v in range(100, 0, -1)]
    assert (percentile(values, 50), percentile(values, 90), percentile(values, 99)) == (50, 90, 99)
    assert percentile([7.0], 99) == 7.0 and np.isnan(percentile([], 50))


@pytest.mark.parametrize("orientation", range(1, 9))
def test_to_upright_moves_each_pixel_where_sensor_to_upright_says(orientation):
    stored = np.arange(5 * 3 * 3, dtype=np.uint8).reshape(3, 5, 3)    # 5 wide, 3 high
    upright = to_upright(stored, orientation)
    assert upright.shape[1::-1] == upright_size(orientation, 5, 3)
    for sy in range(3):
        for sx in range(5):
            ux, uy, _, _ = sensor_to_upright((sx, sy, 1, 1), orientation, 5, 3)
            assert (upright[uy, ux] == stored[sy, sx]).all(), (orientation, sx, sy)


def test_readme_sensor_table_matches_upright_to_sensor():
    """The table "Boxes back on the sensor buffer" in clients/python/README.md."""
    W, H, (x, y, w, h) = 100, 200, (3, 5, 7, 11)
    table = {1: (x, y, w, h), 2: (W - x - w, y, w, h), 3: (W - x - w, H - y - h, w, h), 4: (x, H - y - h, w, h),
             5: (y, x, h, w), 6: (y, H - x - w, h, w), 7: (W - y - h, H - x - w, h, w), 8: (W - y - h, x, h, w)}
    for orientation, box in table.items():
        assert upright_to_sensor((x, y, w, h), orientation, W, H) == box, orientation
        assert upright_size(orientation, W, H) == ((H, W) if orientation >= 5 else (W, H))


def test_orientation_names():
    assert parse_orientation("right") == parse_orientation("6") == parse_orientation("RIGHT") == pb.ORIENTATION_RIGHT
    assert parse_orientation("left_mirrored") == pb.ORIENTATION_LEFT_MIRRORED
    with pytest.raises(ValueError):
        parse_orientation("9")


def test_raw_layouts_of_an_odd_frame():
    bgr = np.random.default_rng(1).integers(0, 256, (5, 7, 3), dtype=np.uint8)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    image = encode_frame(bgr, ENCODINGS["nv12"])
    assert (image.width, image.height, image.stride) == (7, 5, 8)
    assert len(image.data) == 8 * 5 + 8 * 3
    luma = np.frombuffer(image.data[:40], np.uint8).reshape(5, 8)[:, :7]
    assert (luma == gray).all()
    image = encode_frame(bgr, ENCODINGS["i420"])
    assert (image.stride, len(image.data)) == (8, 8 * 5 + 2 * 4 * 3)
    image = encode_frame(bgr, ENCODINGS["bgra8"])
    assert image.stride == 28 and image.data[:4] == bytes(bgr[0, 0]) + b"\xff"
    image = encode_frame(bgr, ENCODINGS["gray8"])
    assert image.stride == 7 and image.data == gray.tobytes()


def _one_line_result(stable_frames: int) -> pb.FrameResult:
    word = pb.TextElement(text="Hello", frame=pb.Rect(x=40, y=30, width=50, height=20))
    line = pb.TextLine(text="Hello", frame=pb.Rect(x=40, y=30, width=50, height=20), elements=[word],
                       stable_frames=stable_frames)
    return pb.FrameResult(frame_id=1, status=pb.FRAME_STATUS_RECOGNIZED,
                          text=pb.Text(text="Hello", blocks=[pb.TextBlock(lines=[line])], image_width=200, image_height=100))


def test_overlay_highlights_stable_lines_and_maps_boxes_to_the_sensor():
    stored = np.zeros((100, 200, 3), np.uint8)
    padded = (37, 27, 56, 26)        # the line box, 3 px out
    fresh = draw_overlay(stored, _one_line_result(1), pb.ORIENTATION_UP, stable_after=3)
    held = draw_overlay(stored, _one_line_result(3), pb.ORIENTATION_UP, stable_after=3)
    assert ring_fraction(fresh, padded, LINE_COLOR, 2) > 0.9 and ring_fraction(fresh, padded, STABLE_COLOR, 2) == 0
    assert ring_fraction(held, padded, STABLE_COLOR, 2) > 0.9
    assert ring_fraction(held, (40, 30, 50, 20), WORD_COLOR, 2) > 0.9
    assert not stored.any(), "the captured frame is never drawn on"
    # Stored 100 wide x 200 high, orientation right: upright is 200 x 100, as the result says.
    sideways = np.zeros((200, 100, 3), np.uint8)
    on_sensor = draw_overlay(sideways, _one_line_result(0), pb.ORIENTATION_RIGHT, draw_on="sensor")
    assert on_sensor.shape == (200, 100, 3)
    mapped = upright_to_sensor((40, 30, 50, 20), pb.ORIENTATION_RIGHT, 100, 200)
    assert mapped == (30, 110, 20, 50)
    assert ring_fraction(on_sensor, mapped, WORD_COLOR, 2) > 0.9
    upright_view = draw_overlay(sideways, _one_line_result(0), pb.ORIENTATION_RIGHT)
    assert upright_view.shape == (100, 200, 3) and ring_fraction(upright_view, (40, 30, 50, 20), WORD_COLOR, 2) > 0.9
