"""Operations, end to end against the real legibled: Prometheus metrics that move by the right
amounts as frames flow, /healthz and /readyz through start-up and drain, JSON logs, every flag
from the environment, --print-config and bad settings.
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from conftest import REPO, Server
from legible_client import Stream, build_image, pb
from test_sessions import dense_page, frame, jpeg, label, result_of, started

sys.path.insert(0, os.path.join(REPO, "scripts"))
import camera_frames as cf  # noqa: E402

LEGIBLED = os.environ.get("LEGIBLED", os.path.join(REPO, ".build", "debug", "legibled"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path):
    """(status, body) of GET http://127.0.0.1:port/path."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def wait_for(predicate, timeout=30, what="condition"):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def samples(text):
    """{'name{labels}': value} of a Prometheus text page."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


@pytest.fixture(scope="module")
def monitored():
    port = free_port()
    server = Server("--metrics", f"tcp:127.0.0.1:{port}")
    server.metrics_port = port
    wait_for(lambda: get(port, "/readyz")[0] == 200, what="readyz")
    yield server
    server.stop()


def test_metrics_move_by_the_right_amounts(monitored):
    port = monitored.metrics_port
    before = samples(get(port, "/metrics")[1])
    stream = started(monitored, stable_after=2)
    scene = jpeg(cf.scene()[0])
    stream.send(frame(1, scene))
    assert result_of(stream).status == pb.FRAME_STATUS_RECOGNIZED
    stream.send(frame(2, scene))  # the same picture: skipped as unchanged
    assert result_of(stream).status == pb.FRAME_STATUS_SKIPPED
    stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=3, image=build_image(pb.ENCODING_JPEG, b"not a jpeg"))))
    assert result_of(stream).status == pb.FRAME_STATUS_FAILED
    status, page = get(port, "/metrics")
    assert status == 200
    during = samples(page)
    assert during['legible_sessions'] == before.get('legible_sessions', 0) + 1
    stream.send(pb.ClientMessage(end=pb.EndSession()))
    assert stream.receive().WhichOneof("message") == "summary"
    after = samples(get(port, "/metrics")[1])

    def moved(key):
        return after.get(key, 0) - before.get(key, 0)

    assert moved('legible_frames_received_total{script="latin"}') == 3
    assert moved('legible_frames_recognized_total{script="latin"}') == 1
    assert moved('legible_frames_skipped_total{script="latin",reason="unchanged"}') == 1
    assert moved('legible_frames_failed_total{script="latin",code="INVALID_ARGUMENT"}') == 1
    assert moved('legible_recognition_seconds_count{script="latin"}') == 1
    assert moved('legible_result_age_seconds_count{script="latin"}') == 2
    assert moved('legible_decode_seconds_count{encoding="jpeg"}') == 2
    assert moved('legible_received_bytes_total') >= 2 * len(scene)
    assert moved('legible_sent_bytes_total') > 0
    assert after['legible_sessions'] == before.get('legible_sessions', 0)
    assert after['legible_engines_loaded{script="latin"}'] >= 1
    assert after['process_resident_memory_bytes'] > 20e6
    assert after['process_open_fds'] > 3
    # Conventions: every family has HELP and TYPE; no per-session labels.
    assert "# TYPE legible_recognition_seconds histogram" in page
    assert "session" not in "".join(k for k in after if k.startswith("legible_frames"))


def test_healthz_and_unknown_paths(monitored):
    assert get(monitored.metrics_port, "/healthz") == (200, "ok\n")
    assert get(monitored.metrics_port, "/nope")[0] == 404


def test_readyz_flips_during_start_up_and_drain():
    """Not ready while the default engine loads (the Latin script model takes seconds), ready
    once it has, not ready again while draining after SIGTERM."""
    port = free_port()
    server = Server("--metrics", f"tcp:127.0.0.1:{port}", "--model", "latin=Latin", "--workers", "1",
                    wait_for_engine=False)
    try:
        wait_for(lambda: get(port, "/healthz")[0] == 200, what="healthz")
        assert get(port, "/readyz")[0] == 503, "ready before the default engine loaded"
        wait_for(lambda: get(port, "/readyz")[0] == 200, timeout=60, what="ready")
        stream = started(server, recognize_unchanged=True, level=pb.LEVEL_ACCURATE)
        stream.send(frame(1, dense_page()))  # seconds of work keep the drain open
        stream.send(pb.ClientMessage(ping=pb.Ping(nonce=1)))
        assert stream.receive().WhichOneof("message") == "pong"
        server.process.send_signal(signal.SIGTERM)
        wait_for(lambda: get(port, "/readyz")[0] == 503, timeout=5, what="not ready while draining")
        assert get(port, "/healthz")[0] == 200
        assert result_of(stream).status == pb.FRAME_STATUS_RECOGNIZED  # answered before exit
        assert stream.receive().WhichOneof("message") == "summary"
        assert server.process.wait(timeout=30) == 0
    finally:
        server.stop()


def run_legibled(*args, env=None, timeout=30):
    return subprocess.run([LEGIBLED, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def test_every_flag_can_come_from_the_environment_and_print_config_says_from_where():
    out = run_legibled("--print-config", "--max-sessions", "9",
                       env={"LEGIBLE_WORKERS": "3", "LEGIBLE_LISTEN": "unix:/tmp/x.sock tcp:127.0.0.1:7999",
                            "LEGIBLE_LOG_FORMAT": "json", "LEGIBLE_MAX_SESSIONS": "5"})
    assert out.returncode == 0, out.stderr
    config = dict(re.match(r"(\S+) = (.*?)\s+# (.*)", line).group(1, 2) for line in out.stdout.splitlines())
    origin = dict(re.match(r"(\S+) = .*# (.*)", line).group(1, 2) for line in out.stdout.splitlines())
    assert config["workers"] == "3" and origin["workers"] == "environment LEGIBLE_WORKERS"
    assert config["listen"] == "unix:/tmp/x.sock tcp:127.0.0.1:7999"
    assert config["log-format"] == "json"
    # The command line wins over the environment.
    assert config["max-sessions"] == "9" and origin["max-sessions"] == "command line"
    assert origin["max-pixels"] == "default"


@pytest.mark.parametrize("args,env,mentions", [
    (["--workers", "0"], {}, "--workers"),
    ([], {"LEGIBLE_WORKERS": "many"}, "LEGIBLE_WORKERS"),
    ([], {"LEGIBLE_PRINT_CONFIG": "maybe"}, "LEGIBLE_PRINT_CONFIG"),
    (["--log-format", "xml"], {}, "--log-format"),
    (["--metrics", "unix:/tmp/m.sock"], {}, "--metrics"),
])
def test_a_bad_setting_is_one_line_and_exit_64(args, env, mentions):
    extra = [] if "LEGIBLE_PRINT_CONFIG" in env else ["--print-config"]
    out = run_legibled(*args, *extra, env=env)
    assert out.returncode == 64, (out.stdout, out.stderr)
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and mentions in lines[0], out.stderr


def test_a_damaged_png_is_answered_with_libpngs_reason_and_the_log_stays_json():
    """libpng's own error function would print "libpng error: ..." to stderr, a raw line in a
    JSON log; the server keeps the message and puts it in the frame's error instead."""
    import io
    from PIL import Image
    data = io.BytesIO()
    Image.new("L", (200, 100), 200).save(data, "PNG")
    damaged = bytearray(data.getvalue())
    damaged[damaged.index(b"IDAT") + 6] ^= 0xFF  # the compressed pixels no longer inflate
    server = Server("--log-format", "json")
    try:
        stream = started(server, recognize_unchanged=True)
        for frame_id, png in ((1, bytes(damaged)), (2, data.getvalue()[:len(data.getvalue()) // 2])):
            stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=frame_id, image=build_image(pb.ENCODING_PNG, png))))
            result = result_of(stream)
            assert result.status == pb.FRAME_STATUS_FAILED and result.error.code == 3, result  # INVALID_ARGUMENT
            assert "libpng: " in result.error.message, result.error.message
        stream.send(frame(3, label()))
        assert result_of(stream).status == pb.FRAME_STATUS_RECOGNIZED
    finally:
        server.stop()
    foreign = [line for line in server.read_log().splitlines() if line.strip() and not line.startswith("{")]
    assert foreign == []
    for line in server.read_log().splitlines():
        if line.strip():
            json.loads(line)


def test_json_logs_are_one_object_per_line_with_the_session_id():
    server = Server("--log-format", "json")
    try:
        stream = started(server, recognize_unchanged=True)
        stream.send(frame(1, label()))
        result_of(stream)
        stream.send(pb.ClientMessage(end=pb.EndSession()))
        stream.receive()
        wait_for(lambda: "session closed" in server.read_log(), what="the close logged")
    finally:
        server.stop()
    events = [json.loads(line) for line in server.read_log().splitlines() if line.startswith("{")]
    assert events and all({"time", "level", "msg"} <= set(e) for e in events)
    closed = [e for e in events if e["msg"] == "session closed"]
    assert closed and closed[0]["session"].startswith("s") and closed[0]["recognized"] == "1"
    # Frame-level events are debug only: none at the default level.
    assert not any(e["level"] == "debug" for e in events)
