"""Sessions under load, end to end against the real legibled and real Tesseract: cancel on
disconnect, the frame deadline, slow consumers, --max-sessions, UpdateSession mid-stream, track
ids over a jittered scene, and camera-aware skipping (unchanged and moving).

The waits here are on events (a Pong, a result, a closed socket), each bounded by a timeout.
"""
import functools
import io
import os
import socket
import sys
import threading
import time

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from conftest import REPO, SANITIZED, SLOWDOWN, Server
from legible_client import Stream, build_image, pb
from test_end_to_end import cer

sys.path.insert(0, os.path.join(REPO, "scripts"))
import camera_frames as cf  # noqa: E402

UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED = 14, 4, 8


def jpeg(image, quality=90):
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, "JPEG", quality=quality)
    return buffer.getvalue()


def frame(frame_id, data):
    return pb.ClientMessage(frame=pb.Frame(frame_id=frame_id, image=build_image(pb.ENCODING_JPEG, data)))


def start(server, **options):
    stream = Stream(server.address)
    stream.send(pb.ClientMessage(start=pb.StartSession(client_name="test-sessions",
                                                       options=pb.RecognitionOptions(**options))))
    reply = stream.receive()
    return stream, reply


def started(server, **options):
    stream, reply = start(server, **options)
    assert reply.WhichOneof("message") == "started", reply
    return stream


def result_of(stream):
    message = stream.receive()
    assert message is not None and message.WhichOneof("message") == "result", message
    return message.result


@functools.lru_cache(maxsize=None)
def dense_page():
    """A 720p camera frame packed with 24 lines of small print: ~1 s at ACCURATE here."""
    image = Image.new("L", (1280, 720), 230)
    draw = ImageDraw.Draw(image)
    face = ImageFont.truetype(cf.FONT, 17)
    for index in range(24):
        draw.text((30, 12 + 29 * index), f"Line {index:02d} of the small print keeps Tesseract busy reading every word",
                  font=face, fill=30)
    return jpeg(image)


@functools.lru_cache(maxsize=None)
def wide_dense_page():
    """dense_page with lines nearly twice as long: ~1.6 times its reading, and no more layout
    (the part of a read that a cancel or a deadline cannot stop)."""
    image = Image.new("L", (1280, 720), 230)
    draw = ImageDraw.Draw(image)
    face = ImageFont.truetype(cf.FONT, 17)
    for index in range(24):
        draw.text((30, 12 + 29 * index), f"Line {index:02d} of the small print keeps Tesseract busy reading every "
                  "word, and then some more words across the wider line", font=face, fill=30)
    return jpeg(image)


@functools.lru_cache(maxsize=None)
def small_print():
    """The camera scene with 13 px text: ACCURATE reads it twice (enlarged), ~0.5 s here."""
    return jpeg(cf.scene(size_scale=0.42, perspective=1.5, blur=0.5)[0])


@functools.lru_cache(maxsize=None)
def label():
    with open(os.path.join(REPO, "Tests", "Fixtures", "label-640x480.jpg"), "rb") as f:
        return f.read()


@pytest.fixture(scope="module")
def one_worker():
    s = Server("--workers", "1")
    yield s
    s.stop()


# ---------------------------------------------------------------- cancellation and deadlines

def test_disconnect_cancels_the_recognition_in_flight_and_frees_the_engine(one_worker):
    waiting = started(one_worker, recognize_unchanged=True)
    # Warm: the engine is loaded and idle.
    waiting.send(frame(1, label()))
    assert result_of(waiting).status == pb.FRAME_STATUS_RECOGNIZED
    busy = started(one_worker, recognize_unchanged=True, level=pb.LEVEL_ACCURATE)
    busy.send(frame(1, small_print()))
    busy.send(pb.ClientMessage(ping=pb.Ping(nonce=7)))
    assert busy.receive().pong.nonce == 7  # the dense frame was taken by the only engine
    waiting.send(frame(2, label()))
    sent = time.monotonic()
    busy.close()  # the client goes away mid-recognition
    closed = time.monotonic()
    result = result_of(waiting)
    assert result.status == pb.FRAME_STATUS_RECOGNIZED
    # It waited for the engine only as long as the cancel took (Tesseract checks between words;
    # its layout analysis, 20-70 ms on a 720p frame, cannot be stopped), not the ~0.5 s read.
    assert result.timing.queue_us / 1000 < (closed - sent) * 1000 + 50 * SLOWDOWN, result.timing
    assert one_worker.process.poll() is None


def test_frame_deadline_fails_a_long_recognition_and_the_session_goes_on():
    # The deadline sits between the label (~0.25 s) and the dense page (~1 s). Under a sanitizer
    # the label takes ~0.6 s, so the deadline gets SLOWDOWN times more; but Tesseract (a system
    # library, not instrumented) reads the dense page only ~1.7 times slower (~1.6 s, inside the
    # 1.5 s deadline once its decode is left out), so the page with longer lines (~2.8 s there)
    # has to overrun it.
    server = Server("--workers", "1", "--frame-deadline-ms", str(300 * SLOWDOWN))
    try:
        stream = started(server, recognize_unchanged=True, level=pb.LEVEL_ACCURATE)
        stream.send(frame(1, wide_dense_page() if SANITIZED else dense_page()))
        result = result_of(stream)
        assert result.status == pb.FRAME_STATUS_FAILED and result.error.code == DEADLINE_EXCEEDED, result
        assert not result.HasField("text") or result.text.text == ""
        assert result.timing.total_us / 1000 < 1500 * SLOWDOWN
        stream.send(frame(2, label()))
        assert result_of(stream).status == pb.FRAME_STATUS_RECOGNIZED
    finally:
        server.stop()


# ---------------------------------------------------------------- slow consumers and limits

def test_a_client_that_does_not_read_is_closed_and_others_are_not_held_up():
    server = Server("--max-write-queue-bytes", "65536", "--write-stall-seconds", "1")
    try:
        greedy = started(server, include_symbols=True, max_candidates=5)
        data = jpeg(cf.scene()[0])
        failure = []

        def flood():
            # Sends the same frame over and over and never reads: the unchanged ones are skipped
            # fast and each result carries the whole text with symbols and candidates.
            try:
                for frame_id in range(1, 5000):
                    greedy.send(frame(frame_id, data))
            except OSError as error:
                failure.append(error)

        thread = threading.Thread(target=flood, daemon=True)
        thread.start()
        polite = started(server, recognize_unchanged=True)
        latencies = []
        for frame_id in range(1, 13):
            began = time.monotonic()
            polite.send(frame(frame_id, label()))
            assert result_of(polite).status == pb.FRAME_STATUS_RECOGNIZED
            latencies.append(time.monotonic() - began)
        thread.join(timeout=30)
        assert not thread.is_alive(), "the greedy client was never cut off"
        assert failure and isinstance(failure[0], (BrokenPipeError, ConnectionResetError)), failure
        assert max(latencies) < 2.0, latencies
        assert "closing a client that does not read" in server.read_log()
    finally:
        server.stop()


def test_max_sessions_refuses_one_more_at_once_and_admits_again_after_one_ends():
    server = Server("--max-sessions", "2")
    try:
        first, second = started(server), started(server)
        began = time.monotonic()
        third, reply = start(server)
        assert reply.WhichOneof("message") == "error", reply
        assert reply.error.code == UNAVAILABLE and reply.error.fatal
        assert time.monotonic() - began < 1.0
        assert third.receive() is None  # closed
        first.send(pb.ClientMessage(end=pb.EndSession()))
        assert first.receive().WhichOneof("message") == "summary"
        assert first.receive() is None
        fourth, reply = start(server)
        assert reply.WhichOneof("message") == "started", reply
        second.close()
        fourth.close()
    finally:
        server.stop()


# ---------------------------------------------------------------- UpdateSession

def test_update_session_switches_script_from_the_next_frame(server):
    stream = started(server, recognize_unchanged=True)
    latin, latin_truth = cf.script_scene("latin")
    hindi, hindi_truth = cf.script_scene("devanagari")
    stream.send(frame(1, jpeg(latin)))
    assert cer(result_of(stream).text.text, cf.truth_text(latin_truth)) < 0.03
    stream.send(pb.ClientMessage(update=pb.UpdateSession(options=pb.RecognitionOptions(
        scripts=[pb.SCRIPT_DEVANAGARI], recognize_unchanged=True))))
    stream.send(frame(2, jpeg(hindi)))
    result = result_of(stream)
    assert cer(result.text.text, cf.truth_text(hindi_truth)) < 0.03, result.text.text
    assert {c.language_code for b in result.text.blocks for l in b.lines for c in l.recognized_languages} == {"und-Deva"}
    # A bad update is refused alone; the session reads on with what it had.
    stream.send(pb.ClientMessage(update=pb.UpdateSession(options=pb.RecognitionOptions(language_hints=["xx"]))))
    error = stream.receive()
    assert error.WhichOneof("message") == "error" and not error.error.fatal and error.error.code == 3
    stream.send(frame(3, jpeg(hindi)))
    assert result_of(stream).status == pb.FRAME_STATUS_RECOGNIZED


# ---------------------------------------------------------------- incremental results

def jittered(image, count, seed, shift=3, noise=3.0):
    """The same scene as a hand-held camera sends it: shifted by up to `shift` px, fresh noise."""
    rng = np.random.default_rng(seed)
    base = np.asarray(image.convert("L"), np.float32)
    frames = []
    for _ in range(count):
        dx, dy = rng.integers(-shift, shift + 1, 2)
        moved = np.roll(np.roll(base, dy, axis=0), dx, axis=1) + rng.normal(0, noise, base.shape)
        frames.append(jpeg(Image.fromarray(np.clip(moved, 0, 255).astype(np.uint8))))
    return frames


def test_track_ids_hold_over_a_jittered_scene_and_stability_follows(server):
    image, truth = cf.scene()
    stream = started(server, recognize_unchanged=True, stable_after=3)
    seen = {}
    for index, data in enumerate(jittered(image, 6, seed=5), 1):
        stream.send(frame(index, data))
        result = result_of(stream)
        assert result.status == pb.FRAME_STATUS_RECOGNIZED
        lines = [l for b in result.text.blocks for l in b.lines]
        assert len(lines) == len(truth["lines"])
        if index == 1:
            assert sorted(result.changes.added) == sorted(l.track_id for l in lines)
            seen = {l.text: l.track_id for l in lines}
        else:
            assert {l.text: l.track_id for l in lines} == seen, "a line changed its id"
            assert list(result.changes.added) == [] and list(result.changes.removed) == []
        assert all(l.stable_frames == index for l in lines), [l.stable_frames for l in lines]
        assert result.stable == (index >= 3)


def test_an_unchanged_scene_is_skipped_cheaply_and_carries_its_text(server):
    image, truth = cf.scene()
    frames = jittered(image, 8, seed=9, shift=0)  # a camera on a tripod: only sensor noise
    stream = started(server, stable_after=3)
    statuses = []
    for index, data in enumerate(frames, 1):
        stream.send(frame(index, data))
        result = result_of(stream)
        statuses.append(result.status)
        if index == 1:
            read_cost = result.timing.recognize_us
        assert cer(result.text.text, cf.truth_text(truth)) < 0.02
        if result.status == pb.FRAME_STATUS_SKIPPED:
            assert result.skip_reason == pb.SKIP_REASON_UNCHANGED
            assert result.scene_difference < 1.5
            # A skip costs the decode and a thumbnail, not a recognition.
            assert result.timing.recognize_us == 0
            assert result.timing.decode_us < read_cost / 3, (result.timing, read_cost)
            lines = [l for b in result.text.blocks for l in b.lines]
            assert all(l.stable_frames == index for l in lines)
    assert statuses[0] == pb.FRAME_STATUS_RECOGNIZED
    assert statuses[1:] == [pb.FRAME_STATUS_SKIPPED] * 7, statuses
    # A different scene is read again.
    other, _ = cf.script_scene("latin-multilingual")
    stream.send(frame(99, jpeg(other)))
    assert result_of(stream).status == pb.FRAME_STATUS_RECOGNIZED


def test_wait_for_steady_skips_while_the_camera_moves_then_reads(server):
    image, _ = cf.scene()
    base = np.asarray(image.convert("L"), np.float32)

    def shifted(dx, dy, blur=0.0):
        moved = Image.fromarray(np.clip(np.roll(np.roll(base, dy, 0), dx, 1), 0, 255).astype(np.uint8))
        return jpeg(moved.filter(ImageFilter.GaussianBlur(blur)) if blur else moved)

    stream = started(server, wait_for_steady=True)
    # A camera swung around (with the blur a swing leaves), then held still.
    shake = [(0, 0, 0), (30, 45, 3), (-35, -40, 3), (40, 50, 3), (-30, -45, 3)]
    steady = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
    results = []
    for index, (dx, dy, blur) in enumerate(shake + steady, 1):
        stream.send(frame(index, shifted(dx, dy, blur)))
        results.append(result_of(stream))
    assert results[0].status == pb.FRAME_STATUS_RECOGNIZED
    for result in results[1:5]:
        assert result.status == pb.FRAME_STATUS_SKIPPED and result.skip_reason == pb.SKIP_REASON_MOVING, result
        assert result.motion > 3.6
    # Settled: the first still frame is back where the first read was (unchanged), or read.
    assert results[5].status in (pb.FRAME_STATUS_RECOGNIZED, pb.FRAME_STATUS_SKIPPED)
    assert all(r.skip_reason != pb.SKIP_REASON_MOVING for r in results[6:]), [r.skip_reason for r in results]
