"""legible-load against the real legibled in calibration mode (--calibration-delay-ms: every
frame is answered after exactly that long, decode included), where the right numbers are known
in advance: the harness's arithmetic is checked, not the server's speed."""
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import threading

import pytest

from conftest import FIXTURES, REPO, SLOWDOWN, Server
from legible_client import frame, pb

BIN = os.path.dirname(os.environ.get("LEGIBLED", os.path.join(REPO, ".build", "debug", "legibled")))
LOAD = os.path.join(BIN, "legible-load")


def load(*args, timeout=60):
    return subprocess.run([LOAD, *args], capture_output=True, text=True, timeout=timeout)


def run_json(server, *args):
    out_dir = tempfile.mkdtemp(prefix="legible-load-")
    path = os.path.join(out_dir, "out.json")
    html = os.path.join(out_dir, "out.html")
    result = load("--server", server.address, "--json", path, "--html", html, *args)
    report = json.load(open(path)) if os.path.exists(path) else None
    return result, report, html


def assert_accounted(report):
    c = report["counts"]
    assert c["scheduled"] == c["sent"] + c["client_skipped"]
    assert c["sent"] == c["recognized"] + c["dropped"] + c["skipped"] + c["failed"] + c["unanswered"]
    assert c["accounted"] is True
    assert sum(s["scheduled"] for s in report["series"]) == c["scheduled"]
    assert sum(s["counts"]["sent"] for s in report["sessions"]) == c["sent"]


# The fake engine's time per frame. A debug build adds ~35 ms of decode and hops per frame on
# the worker (measured with --calibration-delay-ms 0: fastest frame 35 ms), so one frame holds
# the worker ~55 ms of the steady run's 100 ms between frames. At 50 ms it held it ~85-93 ms,
# and on a slower CI machine frames began to queue behind one another (p50 38 ms over the fastest).
CALIBRATION_MS = 20


@pytest.fixture(scope="module")
def calibrated():
    s = Server("--calibration-delay-ms", str(CALIBRATION_MS), "--workers", "1")
    yield s
    s.stop()


# The steady run's rate and length. Under a sanitizer a calibrated frame's decode and hops take
# ~200-500 ms, not ~35 ms, and 5 fps would overrun the worker: the same 30 frames are sent
# SLOWDOWN times slower over SLOWDOWN times longer, and the jitter bounds get SLOWDOWN times more.
STEADY_FPS = 5 / SLOWDOWN
STEADY_SECONDS = 3 * SLOWDOWN


@pytest.fixture(scope="module")
def steady_run(calibrated):
    """2 sessions x 5 fps x 3 s, ~55 ms per frame on 1 worker: about half busy, nothing should drop."""
    return run_json(calibrated, "--sessions", "2", "--fps", f"{STEADY_FPS:g}", "--duration", f"{STEADY_SECONDS:g}")


def test_steady_arithmetic(steady_run, calibrated):
    result, report, _ = steady_run
    assert result.returncode == 0, result.stderr + result.stdout
    c = report["counts"]
    assert c["scheduled"] == 2 * 5 * 3 == c["sent"]
    assert_accounted(report)
    assert c["unanswered"] == 0 and c["failed"] == 0 and c["client_skipped"] == 0
    # Sessions are staggered by half a frame interval (100 ms) and a frame takes ~55 ms: no
    # frame waits for another, so none is replaced. One drop is tolerated for a stall of the
    # shared machine.
    assert c["recognized"] >= 29, c
    latency = report["latency"]
    # No result can arrive sooner than the calibrated delay after its scheduled send...
    assert latency["min"] >= CALIBRATION_MS, latency
    # ...and no frame waited behind another: the median is within jitter of the fastest frame
    # (the calibrated delay plus decode and transport, which a debug build on a busy 2-core
    # machine makes 30-40 ms), and the slowest is well short of two frames' service back to back.
    assert latency["p50"] <= latency["min"] + 25 * SLOWDOWN, latency
    assert latency["max"] < latency["min"] + 75 * SLOWDOWN, latency
    rates = report["rates"]
    assert rates["requested"] == 10 / SLOWDOWN
    assert rates["sent"] == pytest.approx(10 / SLOWDOWN, rel=0.02)
    assert rates["recognized"] == pytest.approx(10 / SLOWDOWN, rel=0.10)
    assert report["send_lag"]["p99"] < 20 * SLOWDOWN
    # Each recognized frame's own recognition time came back in its Timing (at least the
    # calibrated delay), and no result arrived sooner than its recognition took.
    recognize = report["server_recognize"]
    assert recognize["count"] == c["recognized"] and recognize["min"] >= CALIBRATION_MS, recognize
    assert report["latency_in_recognitions"]["count"] == c["recognized"]
    assert report["latency_in_recognitions"]["min"] >= 1.0, report["latency_in_recognitions"]
    assert report["fairness"]["jain_index"] >= 0.99
    assert all(s["summary_matches"] is True for s in report["sessions"])
    # The server's PID came from the unix socket (SO_PEERCRED) and /proc was read.
    process = report["server_process"]
    assert process["pid"] == calibrated.process.pid
    assert process["rss_peak_megabytes"] > 1 and process["cpu_seconds"] >= 0


def test_steady_text_report(steady_run):
    result, _, _ = steady_run
    out = result.stdout
    for heading in ("Summary:", "Response time histogram", "Latency distribution", "Status distribution",
                    "Fairness", "Server process (pid"):
        assert heading in out
    assert re.search(r"\[recognized\]\s+(29|30) frames", out), out
    assert "Every frame accounted for" in out
    for p in (10, 25, 50, 75, 90, 95, 99):
        assert re.search(rf"^\s+{p} % in [\d.]+ ms$", out, re.M), out
    # The other times, each with its own column: the server's recognition per frame in ms, and
    # the latency in recognitions (no unit), over the frames recognized.
    assert re.search(r"^  recognize \(Timing\.recognize\)\s+[\d.]+ ms / .*\(n=(29|30)\)$", out, re.M), out
    assert re.search(r"^  latency in recognitions\s+[\d.]+ / [\d.]+ / [\d.]+ / [\d.]+  \(n=(29|30)\)$", out, re.M), out


def test_steady_html_is_self_contained(steady_run):
    _, _, html = steady_run
    page = open(html).read()
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") >= 3
    assert "<script" not in page
    assert not re.search(r"""(src|href)\s*=\s*["']?https?:""", page), "the page must fetch nothing"


def chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(not chromium() and not os.environ.get("LEGIBLE_REQUIRE_CHROMIUM"),
                    reason="chromium is not installed (make check-load-html installs it)")
def test_html_loads_in_headless_chromium(steady_run):
    """The page renders in a real browser with nothing in its console (about 2 s here)."""
    _, _, html = steady_run
    assert chromium(), "LEGIBLE_REQUIRE_CHROMIUM is set but chromium is not installed"
    profile = tempfile.mkdtemp(prefix="legible-chromium-")
    out = subprocess.run(
        [chromium(), "--headless", "--disable-gpu", "--no-sandbox", f"--user-data-dir={profile}",
         "--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + html],
        capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "<svg" in out.stdout and "legible-load" in out.stdout
    console = [line for line in out.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console


def test_overload_drops_and_keeps_latency_bounded():
    """4 sessions x 20 fps against 1 worker at 100 ms: 80 frames/s offered, 10/s served.

    What latest-wins guarantees: a session holds one pending frame, and a newer frame replaces
    it (DROPPED at once, so a dropped frame's latency is one frame interval, 50 ms). A frame
    that is recognized was therefore the newest when the engine took it: it waited less than
    one frame interval, so while sessions keep sending, recognized latency <= 1/fps + service
    time (50 + 100 ms, plus decode). Only each session's last frame has no successor: it waits
    its round-robin turn, up to sessions x service time, which bounds the tail.
    """
    s = Server("--calibration-delay-ms", "100", "--workers", "1")
    try:
        result, report, _ = run_json(s, "--sessions", "4", "--fps", "20", "--duration", "3")
    finally:
        s.stop()
    assert result.returncode == 0, result.stderr + result.stdout
    c = report["counts"]
    assert c["scheduled"] == 240 == c["sent"]
    assert_accounted(report)
    assert c["unanswered"] == 0 and c["failed"] == 0
    assert c["dropped"] > 150, c
    # One worker at 100 ms a frame serves at most 10 frames/s, whatever is offered, and at least
    # 80 % of 1 / one service, where one service is the fastest recognized frame's latency (100 ms
    # plus the decode and the loop's hops, which a debug build on a busy machine makes tens of
    # ms). The rate is the count over the time from the first frame to the last answer.
    service = report["latency_by_status"]["recognized"]["min"]
    assert 0.8 * 1000 / service <= report["rates"]["recognized"] <= 10.5, (service, report["rates"])
    assert c["recognized"] / report["rates"]["recognized"] >= report["window_seconds"] - 1e-6
    assert report["latency_by_status"]["dropped"]["p50"] == pytest.approx(50, abs=20)
    # Steady state (seconds whose frames all had a successor): within 1/fps + service + slack.
    last_second = int(report["window_seconds"]) - 1
    for second in report["series"]:
        if second["second"] < last_second and second.get("latency_p99") is not None:
            assert second["latency_p99"] < 50 + service + 150, (service, second)
    # The drain tail: a session's last frame waits for the frame in service and the other
    # sessions' pending ones, then its own: sessions x one service. "One service" here is the
    # fastest frame's; the others' vary above it (decode, the loop's hops), so the bound
    # allows one service more (measured up to 5.07 fastest services on this machine).
    assert report["latency"]["max"] < (4 + 1) * service + 50 + 100, (service, report["latency"])
    # Round-robin across sessions: each gets its share of the worker.
    assert report["fairness"]["jain_index"] >= 0.9, report["fairness"]


def test_grpc_sessions_are_accounted_as_framed_ones(calibrated):
    """--transport grpc: each session a gRPC Recognizer/Stream call; every frame answered and
    the books balance as with the framed protocol; the report names the transport."""
    result, report, _ = run_json(calibrated, "--transport", "grpc", "--sessions", "2", "--fps", f"{STEADY_FPS:g}",
                                 "--duration", f"{STEADY_SECONDS:g}")
    assert result.returncode == 0, result.stderr + result.stdout
    assert_accounted(report)
    c = report["counts"]
    assert c["unanswered"] == 0 and c["failed"] == 0 and c["recognized"] > 0, c
    assert report["configuration"]["server"].endswith("(gRPC)")
    assert report["session_errors"] == 0 and report["summary_mismatches"] == 0


def test_sessions_of_several_scripts_and_automatic_ones(tmp_path):
    """--script takes a session's scripts joined by + and auto (automatically_detect_script),
    assigned round-robin like single scripts: each StartSession says so (a listener here reads
    them), and each session's row names its choice."""
    server = StartOnlyServer(str(tmp_path / "scripts.sock"), count=3)
    try:
        result, report, _ = run_json(server, "--sessions", "3", "--fps", "2", "--duration", "1", "--drain-timeout", "1",
                                     "--script", "latin+devanagari,auto", "--script", "japanese+latin")
    finally:
        server.close()
    starts = server.starts
    assert [(list(o.scripts), o.automatically_detect_script) for o in starts] == [
        ([pb.SCRIPT_LATIN, pb.SCRIPT_DEVANAGARI], False), ([], True), ([pb.SCRIPT_JAPANESE, pb.SCRIPT_LATIN], False)]
    assert [s["script"] for s in report["sessions"]] == ["latin+devanagari", "auto", "japanese+latin"]
    for bad in ("latin+latin", "latin+", "klingon+latin", "auto+latin"):
        refused = load("--script", bad, "--duration", "1")
        assert refused.returncode == 64 and "unknown script" in refused.stderr, (bad, refused.stderr)


def test_max_frames_bounds_the_count(calibrated):
    result, report, _ = run_json(calibrated, "--sessions", "3", "--fps", "10", "--duration", "5", "--max-frames", "7")
    assert result.returncode == 0, result.stderr
    assert report["counts"]["scheduled"] == 7 and report["counts"]["unanswered"] == 0
    assert_accounted(report)
    assert report["total_seconds"] < 2


def test_failed_frames_are_counted_by_code_and_exit_1(calibrated):
    folder = tempfile.mkdtemp(prefix="legible-load-frames-")
    data = open(os.path.join(FIXTURES, "label-640x480.jpg"), "rb").read()
    open(os.path.join(folder, "a-truncated.jpg"), "wb").write(data[:300])
    open(os.path.join(folder, "b-good.jpg"), "wb").write(data)
    # --recognize-unchanged: the good frame comes twice, and the second would be skipped.
    result, report, _ = run_json(calibrated, "--frames", folder, "--fps", "5", "--duration", "1", "--recognize-unchanged")
    assert result.returncode == 1, result.stdout
    c = report["counts"]
    assert c["scheduled"] == 5 and c["failed"] >= 2 and c["recognized"] >= 2
    assert c["failed_by_code"] == {"3": c["failed"]}  # INVALID_ARGUMENT
    assert_accounted(report)


class StartOnlyServer:
    """A listener that answers each of the first `count` connections' StartSession (recorded in
    `starts`) and then reads nothing more, holding the connection until close()."""

    def __init__(self, path, count=1):
        self.address = "unix:" + path
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(8)
        self.starts, self.held = [], []
        self.thread = threading.Thread(target=self.serve, args=(count,), daemon=True)
        self.thread.start()

    def serve(self, count):
        for _ in range(count):
            conn, _ = self.listener.accept()
            self.held.append(conn)
            received = b""
            while len(received) < 5 or len(received) < 5 + struct.unpack(">I", received[1:5])[0]:
                received += conn.recv(65536)
            size = struct.unpack(">I", received[1:5])[0]
            self.starts.append(pb.ClientMessage.FromString(received[5:5 + size]).start.options)
            conn.sendall(frame(pb.ServerMessage(started=pb.SessionStarted(session_id="s", protocol_version=1))))

    def close(self):
        for conn in self.held:
            conn.close()
        self.listener.close()
        self.thread.join(5)


def test_a_server_that_stops_reading(tmp_path):
    """A server that answers StartSession and then reads nothing. The harness holds at most 2
    unsent frames per session, counts every other due frame as client_skipped (socket_full),
    and ends at its hard deadline (window + drain timeout) with the frames it did write
    counted unanswered: exit 1, and every frame still accounted for."""
    server = StartOnlyServer(str(tmp_path / "stuck.sock"))
    try:
        result, report, _ = run_json(server, "--fps", "30", "--duration", "2", "--drain-timeout", "1",
                                     "--generate", "1280x720")
    finally:
        server.close()
    assert result.returncode == 1, result.stdout + result.stderr
    c = report["counts"]
    assert c["scheduled"] == 60
    assert_accounted(report)
    assert c["client_skipped_by_reason"].get("socket_full", 0) > 30, c
    assert c["answered"] == 0 and c["unanswered"] == c["sent"] > 0, c
    assert report["total_seconds"] < 2 + 0.1 + 1 + 0.5
    assert "hard deadline" in report["sessions"][0]["error"]
    assert report["server_process"]["pid"] == os.getpid()  # SO_PEERCRED: this test is the "server"


def test_usage_and_exit_codes(tmp_path):
    helped = load("--help")
    assert helped.returncode == 0
    for text in ("USAGE: legible-load", "EXAMPLES:", "EXIT CODES:", "--sessions", "--allow-remote"):
        assert text in helped.stdout
    remote = load("--server", "tcp:192.0.2.1:7480", "--duration", "1")
    assert remote.returncode == 64 and "--allow-remote" in remote.stderr
    assert load("--fps", "0").returncode == 64
    assert load("--sessions", "2", "--bogus").returncode == 64
    assert load("--frames", str(tmp_path)).returncode == 64  # no images in it
    gone = load("--server", "unix:" + str(tmp_path / "none.sock"), "--duration", "1")
    assert gone.returncode == 2 and gone.stderr.count("\n") == 1, gone.stderr
    refused = load("--server", "tcp:127.0.0.1:1", "--duration", "1")
    assert refused.returncode == 2
