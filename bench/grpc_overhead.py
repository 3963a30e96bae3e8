#!/usr/bin/env python3
"""gRPC over HTTP/2 against the framed protocol, same server, same frames, one run
(make bench-grpc and section 11 of make bench, ~12 min).

One legibled (release, --workers 2 --replicas-per-script 2) serves both protocols on one Unix
socket and, under TLS (a certificate made here with the openssl command), on one loopback TCP
listener. Four clients (framed and gRPC, cleartext on the Unix socket and TLS on TCP; the order flips
every round, so the machine's other users load all alike):
  one stream  a session of each client open at once, a frame sent to each in turn, one at a
              time (send, wait for the answer; the turn's order rotates every frame): end-to-end
              milliseconds per frame, grpcio's Stream call against the framed Python client,
              and the median of frame i's gRPC / framed ratios (paired in time);
  saturated   (after the rounds, --windows cycles of one --seconds window per client, the order
              reversed every cycle) 4 sessions of the client, kept open, each sending its next
              frame as soon as the last is answered (closed loop) while the window is open; the
              frames in flight at its end are answered before the next window opens: frames
              answered per second and the server's CPU per answered frame, and the median of
              each cycle's gRPC / framed ratios (paired windows).
  overload    (after the rounds, --overload-rounds alternating rounds of the four) legible-load's
              2 x cores sessions offered 4 x the saturated framed rate, open loop, for
              --overload-seconds: result age p50/p99 (how old the text a camera sees is; the
              goal's measure), for information each recognized frame's age on arrival in
              recognitions (over its own Timing.recognize_us, as BENCHMARKS.md's freshness goals
              measure it), medians over rounds, and the median of each round's gRPC / framed
              ratio (a gRPC round paired with the framed round beside it), and the frames'
              outcomes, framed against --transport grpc.
  transport   (last, --transport-frames > 0) the one-stream rounds and saturated windows again,
              against a legibled whose engines answer at once (--calibration-delay-ms 0): the
              frame is still read, deframed and decoded, so what one client costs more than
              another is the transport's own cost, measured without Tesseract's noise, and
              reported as a share of a real frame's time and CPU.
The frame is the 720p camera JPEG of the tests (Tests/Fixtures/camera-720p.jpg), read every
time (recognize_unchanged). Reports the medians over rounds and the ratios gRPC / framed, in
cleartext and under TLS.

    python3 bench/grpc_overhead.py [--legibled .build/release/legibled] [--rounds 5]
        [--frames 20] [--windows 16] [--seconds 2] [--json bench/out/grpc_overhead.json]
"""

import argparse
import json
import os
import queue
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))
import grpc  # noqa: E402
from legible_client import Stream, TLSFiles, pb  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from throughput import own_cpu, thread_cpu  # noqa: E402

FRAME = open(os.path.join(REPO, "Tests", "Fixtures", "camera-720p.jpg"), "rb").read()
START = pb.ClientMessage(start=pb.StartSession(client_name="bench/grpc_overhead.py",
                                               options=pb.RecognitionOptions(recognize_unchanged=True)))


def frame(frame_id):
    return pb.ClientMessage(frame=pb.Frame(frame_id=frame_id,
                                           image=pb.Image(encoding=pb.ENCODING_JPEG, data=FRAME)))


class FramedSession:
    def __init__(self, stream):
        self.stream = stream
        self.stream.send(START)
        assert self.stream.receive().WhichOneof("message") == "started"

    def recognize(self, frame_id):
        self.stream.send(frame(frame_id))
        result = self.stream.receive().result
        assert result.frame_id == frame_id and result.status == pb.FRAME_STATUS_RECOGNIZED, result
        return result

    def close(self):
        self.stream.send(pb.ClientMessage(end=pb.EndSession()))
        while (m := self.stream.receive()) is not None and m.WhichOneof("message") != "summary":
            pass
        self.stream.close()


class GRPCSession:
    def __init__(self, channel):
        self.requests = queue.Queue()
        call = channel.stream_stream("/legible.v1.Recognizer/Stream",
                                     request_serializer=pb.ClientMessage.SerializeToString,
                                     response_deserializer=pb.ServerMessage.FromString)
        self.answers = call(iter(self.requests.get, None))
        self.requests.put(START)
        assert next(self.answers).WhichOneof("message") == "started"

    def recognize(self, frame_id):
        self.requests.put(frame(frame_id))
        result = next(self.answers).result
        assert result.frame_id == frame_id and result.status == pb.FRAME_STATUS_RECOGNIZED, result
        return result

    def close(self):
        self.requests.put(pb.ClientMessage(end=pb.EndSession()))
        self.requests.put(None)
        for _ in self.answers:
            pass


def framed_of(name):
    """The framed client a gRPC client is compared with: "grpc" -> "framed", "grpc+tls" ->
    "framed+tls"."""
    return "framed" + name[len("grpc"):]


def paired_median(values, name):
    """The median of `name`'s values over its framed client's, pair by pair (values in time order)."""
    return statistics.median(a / b for a, b in zip(values[name], values[framed_of(name)]))


def one_stream(makers, frames):
    """({client: [milliseconds per frame]}, {client: [milliseconds outside the server's total]}):
    one session of each client open at once, each frame sent to every session in turn, one at a
    time (send, wait for the answer), the turn's order rotated every frame; 2 warm-up frames
    each. Interleaved so, the clients' frames meet the same load of the machine's other users,
    and frame i of one client is paired with frame i of another. The second figure is the end to
    end time less the server's own Timing.total_us (last byte read to result queued): what the
    client, the transport's framing and the socket add, free of the recognition's own noise."""
    sessions = {name: make() for name, make in makers.items()}
    names = list(sessions)
    times = {name: [] for name in names}
    outside = {name: [] for name in names}
    for i in range(frames + 2):
        for k in range(len(names)):
            name = names[(i + k) % len(names)]
            began = time.perf_counter()
            result = sessions[name].recognize(i + 1)
            if i >= 2:
                ms = (time.perf_counter() - began) * 1000
                times[name].append(ms)
                outside[name].append(ms - result.timing.total_us / 1000)
    for session in sessions.values():
        session.close()
    return times, outside


class Saturator:
    """`sessions` sessions of one client, each on a thread that sends its next frame as soon as
    the last is answered (closed loop) while the gate is open. Kept open across windows, so a
    window measures frames, not session set-up."""

    def __init__(self, make, sessions):
        self.sessions = [make() for _ in range(sessions)]
        for session in self.sessions:
            session.recognize(1)  # warm
        self.gate = threading.Event()
        self.closing = False
        self.lock = threading.Condition()
        self.busy = 0
        self.answered = 0
        self.threads = [threading.Thread(target=self.drive, args=(s,), daemon=True) for s in self.sessions]
        for thread in self.threads:
            thread.start()

    def drive(self, session):
        frame_id = 2
        while True:
            self.gate.wait()
            if self.closing:
                return
            with self.lock:
                if not self.gate.is_set():
                    continue
                self.busy += 1
            session.recognize(frame_id)
            frame_id += 1
            with self.lock:
                self.busy -= 1
                self.answered += 1
                self.lock.notify_all()

    def window(self, seconds, server_pid):
        """(frames answered per second, the server's CPU ms per answered frame, this client's CPU
        ms per answered frame) over one window: the gate open for `seconds`, then closed and the
        frames in flight answered, all of them and their CPU counted (no frame of this window is
        still running in the next one). The server's CPU is its own threads' and its engine
        workers'; the client's, this process's (grpcio's threads included): both run on the same
        cores, so a client's cost shows in the frames/s."""
        server_before, client_before = sum(thread_cpu(server_pid).values()), own_cpu()
        answered_before = self.answered
        began = time.monotonic()
        self.gate.set()
        time.sleep(seconds)
        with self.lock:
            self.gate.clear()
            while self.busy:
                self.lock.wait()
        elapsed = time.monotonic() - began
        answered = max(1, self.answered - answered_before)
        server_cpu = sum(thread_cpu(server_pid).values()) - server_before
        client_cpu = own_cpu() - client_before
        return answered / elapsed, 1000 * server_cpu / answered, 1000 * client_cpu / answered

    def close(self):
        self.closing = True
        self.gate.set()
        for thread in self.threads:
            thread.join()
        for session in self.sessions:
            session.close()


# What each overload round reports (legible-load's result age and freshness in recognitions).
OVERLOAD_MEASURES = ("result_age_p50_ms", "result_age_p99_ms", "age_in_recognitions_p50", "age_in_recognitions_p99",
                     "recognize_p50_ms")


def overload(load_binary, server, transport, sessions, fps, seconds, folder, tls_ca=None):
    """legible-load's result age (ms) and counts at `sessions` x `fps` over `transport` to
    `server` (with `tls_ca`, under TLS)."""
    frames = os.path.join(folder, "frames")
    os.makedirs(frames, exist_ok=True)
    with open(os.path.join(frames, "camera.jpg"), "wb") as f:
        f.write(FRAME)
    report_path = os.path.join(folder, "load-%s%s.json" % (transport, "-tls" if tls_ca else ""))
    argv = [load_binary, "--server", server, "--transport", transport, "--sessions", str(sessions),
            "--fps", "%g" % fps, "--duration", "%g" % seconds, "--frames", frames, "--recognize-unchanged",
            "--json", report_path] + (["--tls-ca", tls_ca] if tls_ca else [])
    print("$ " + " ".join(argv), file=sys.stderr)
    subprocess.run(argv, capture_output=True, timeout=seconds + 120)
    with open(report_path) as f:
        report = json.load(f)
    age, fresh = report["result_age"], report["latency_in_recognitions"]
    # For information: each recognized frame's age on arrival over its own recognition time
    # (the measure of BENCHMARKS.md's freshness goals). Tried as this goal's measure, to take
    # out the machine's speed in each round, its paired p99 ratio was the noisier one.
    return {"result_age_p50_ms": age["p50"], "result_age_p99_ms": age["p99"],
            "age_in_recognitions_p50": fresh["p50"], "age_in_recognitions_p99": fresh["p99"],
            "recognize_p50_ms": report["server_recognize"]["p50"], "counts": report["counts"]}


class Server:
    """A legibled on a Unix socket and a TLS loopback TCP listener, and the four clients of it."""

    def __init__(self, binary, folder, certificate, key, *flags):
        self.folder = tempfile.mkdtemp(dir=folder)
        self.path = os.path.join(self.folder, "s.sock")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.log = open(os.path.join(self.folder, "legibled.log"), "w")
        argv = [binary, "--listen", "unix:" + self.path, "--listen", "tcp:127.0.0.1:%d" % self.port, "--tls-cert",
                certificate, "--tls-key", key, "--workers", "2", "--replicas-per-script", "2", *flags]
        print("$ OMP_THREAD_LIMIT=1 " + " ".join(argv), file=sys.stderr)
        self.process = subprocess.Popen(argv, stderr=self.log, env={**os.environ, "OMP_THREAD_LIMIT": "1"})
        self.pid = self.process.pid
        self.certificate = certificate

    def __enter__(self):
        deadline = time.monotonic() + 60
        while not os.path.exists(self.path) or "engine loaded" not in open(self.log.name).read():
            assert self.process.poll() is None and time.monotonic() < deadline, "legibled did not start"
            time.sleep(0.1)
        self.channel = grpc.insecure_channel("unix:" + self.path)
        self.tls_channel = grpc.secure_channel("localhost:%d" % self.port, grpc.ssl_channel_credentials(
            root_certificates=open(self.certificate, "rb").read()))
        tcp = "tcp:127.0.0.1:%d" % self.port
        self.clients = {
            "framed": lambda: FramedSession(Stream("unix:" + self.path)),
            "grpc": lambda: GRPCSession(self.channel),
            "framed+tls": lambda: FramedSession(Stream(tcp, tls=TLSFiles(self.certificate))),
            "grpc+tls": lambda: GRPCSession(self.tls_channel),
        }
        return self

    def __exit__(self, *_):
        self.channel.close()
        self.tls_channel.close()
        self.process.terminate()
        self.process.wait(30)


def one_stream_rounds(clients, rounds, frames):
    """({client: [round medians, ms]}, {client: [ms outside the server's total, every frame]},
    {client: [ms per frame, every frame in time order]}) over `rounds` interleaved rounds."""
    latency = {name: [] for name in clients}
    outside_server = {name: [] for name in clients}
    every_frame = {name: [] for name in clients}
    for round_index in range(rounds):
        order = list(clients) if round_index % 2 == 0 else list(reversed(clients))
        times, outside = one_stream({name: clients[name] for name in order}, frames)
        for name in order:
            latency[name].append(statistics.median(times[name]))
            outside_server[name] += outside[name]
            every_frame[name] += times[name]
        print("round %d: one stream ms %s" % (round_index + 1, {n: round(latency[n][-1], 2) for n in clients}),
              file=sys.stderr)
    return latency, outside_server, every_frame


def saturated_windows(server, sessions, windows, seconds):
    """({client: [frames/s per window]}, {client: [server CPU ms per frame]}, {client: [client
    CPU ms per frame]}): short windows of each client in turn, the order reversed every cycle; a
    gRPC window is paired with the framed window of its cycle."""
    throughput = {name: [] for name in server.clients}
    server_cpu = {name: [] for name in server.clients}
    client_cpu = {name: [] for name in server.clients}
    saturators = {name: Saturator(make, sessions) for name, make in server.clients.items()}
    # Warm-up, not counted: every engine replica loaded and every path run once.
    for saturator in saturators.values():
        saturator.window(1, server.pid)
    for cycle in range(windows):
        order = list(server.clients) if cycle % 2 == 0 else list(reversed(server.clients))
        for name in order:
            rate, server_ms, client_ms = saturators[name].window(seconds, server.pid)
            throughput[name].append(rate)
            server_cpu[name].append(server_ms)
            client_cpu[name].append(client_ms)
        print("window %d: saturated frames/s %s, server CPU ms per frame %s" % (
            cycle + 1, {n: round(throughput[n][-1], 2) for n in server.clients},
            {n: round(server_cpu[n][-1], 2) for n in server.clients}), file=sys.stderr)
    for saturator in saturators.values():
        saturator.close()
    return throughput, server_cpu, client_cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--legibled", default=os.path.join(REPO, ".build", "release", "legibled"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--frames", type=int, default=20, help="frames per one-stream run")
    parser.add_argument("--seconds", type=float, default=2,
                        help="length of each saturated window (short: the windows paired lie close in time)")
    parser.add_argument("--windows", type=int, default=16, help="saturated windows of each client")
    parser.add_argument("--sessions", type=int, default=4, help="sessions of each saturated client")
    # A round's p99 is its few oldest results: 15 s (~200 results) and 7 paired rounds, after
    # 10 s and 5 put the paired p99 ratio anywhere from 0.935 to 1.098 in four runs with no change
    # to the server's data path between them.
    parser.add_argument("--overload-seconds", type=float, default=15, help="length of each overload run")
    parser.add_argument("--overload-rounds", type=int, default=7,
                        help="alternating overload rounds (a gRPC round paired with the framed round beside it)")
    parser.add_argument("--transport-frames", type=int, default=100,
                        help="frames per one-stream run against the calibration engine (0: no transport phase)")
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()

    folder = tempfile.mkdtemp(prefix="legible-grpc-bench-")
    certificate, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key, "-out", certificate],
                   check=True, capture_output=True)
    with Server(args.legibled, folder, certificate, key) as server:
        latency, outside_server, every_frame = one_stream_rounds(server.clients, args.rounds, args.frames)
        throughput, server_cpu, client_cpu = saturated_windows(server, args.sessions, args.windows, args.seconds)
        load_binary = os.path.join(os.path.dirname(args.legibled), "legible-load")
        capacity = statistics.median(throughput["framed"])
        load_sessions = 2 * (os.cpu_count() or 2)
        # Alternating rounds, the order flipped each round, as above; the medians over rounds.
        runs = {name: [] for name in ("framed", "grpc", "framed+tls", "grpc+tls")}
        for round_index in range(args.overload_rounds):
            order = list(runs) if round_index % 2 == 0 else list(reversed(runs))
            for name in order:
                transport, tls = name.split("+")[0], name.endswith("+tls")
                runs[name].append(overload(
                    load_binary, "tcp:127.0.0.1:%d" % server.port if tls else "unix:" + server.path, transport,
                    load_sessions, 4 * capacity / load_sessions, args.overload_seconds, folder,
                    tls_ca=certificate if tls else None))
        overloaded = {name: {
            **{measure: statistics.median(r[measure] for r in rows) for measure in OVERLOAD_MEASURES},
            "counts": {key: sum(r["counts"][key] for r in rows) for key in rows[0]["counts"]
                       if isinstance(rows[0]["counts"][key], int) and not isinstance(rows[0]["counts"][key], bool)},
            "rounds": rows} for name, rows in runs.items()}
    # The transports' own cost, apart from Tesseract's noise: the same clients against a legibled
    # whose engines answer at once (--calibration-delay-ms 0; the frame is still read, framed or
    # deframed and decoded), so what differs between two clients is all transport.
    transport = {}
    if args.transport_frames:
        with Server(args.legibled, folder, certificate, key, "--calibration-delay-ms", "0") as bare:
            bare_latency, _, _ = one_stream_rounds(bare.clients, args.rounds, args.transport_frames)
            bare_rate, bare_cpu, _ = saturated_windows(bare, args.sessions, args.windows, 1)
        transport = {"one_stream_ms": {n: statistics.median(v) for n, v in bare_latency.items()},
                     "saturated_fps": {n: statistics.median(v) for n, v in bare_rate.items()},
                     "saturated_server_cpu_ms": {n: statistics.median(v) for n, v in bare_cpu.items()}}
    grpc_clients = ("grpc", "grpc+tls")
    figures = {
        "rounds": args.rounds,
        "frames": args.frames,
        "one_stream_ms": {n: statistics.median(v) for n, v in latency.items()},
        "one_stream_paired_ratio": {n: paired_median(every_frame, n) for n in grpc_clients},
        "one_stream_outside_server_ms": {n: statistics.median(v) for n, v in outside_server.items()},
        "windows": args.windows,
        "window_seconds": args.seconds,
        "saturated_paired_fps_ratio": {n: paired_median(throughput, n) for n in grpc_clients},
        "saturated_paired_server_cpu_ratio": {n: paired_median(server_cpu, n) for n in grpc_clients},
        "saturated_fps": {n: statistics.median(v) for n, v in throughput.items()},
        "saturated_server_cpu_ms": {n: statistics.median(v) for n, v in server_cpu.items()},
        "saturated_client_cpu_ms": {n: statistics.median(v) for n, v in client_cpu.items()},
        "overload_rounds": args.overload_rounds,
        "overload_seconds": args.overload_seconds,
    }
    for suffix in ("", "+tls"):
        framed, grpc_name = "framed" + suffix, "grpc" + suffix
        latency_ratio = figures["one_stream_ms"][grpc_name] / figures["one_stream_ms"][framed]
        throughput_ratio = figures["saturated_fps"][grpc_name] / figures["saturated_fps"][framed]
        figures["latency_ratio_" + grpc_name] = latency_ratio
        figures["throughput_ratio_" + grpc_name] = throughput_ratio
        print("%s one stream, median ms per frame: framed %.1f, gRPC %.1f -> gRPC/framed %.3f (goal <= 1.03); "
              "median of the %d paired frames' ratios %.3f" % (
                  "TLS" if suffix else "cleartext", figures["one_stream_ms"][framed],
                  figures["one_stream_ms"][grpc_name], latency_ratio, len(every_frame[grpc_name]),
                  figures["one_stream_paired_ratio"][grpc_name]))
        print("%s one stream, ms per frame outside the server's total_us (client, framing, socket): framed %.2f, "
              "gRPC %.2f" % ("TLS" if suffix else "cleartext", figures["one_stream_outside_server_ms"][framed],
                             figures["one_stream_outside_server_ms"][grpc_name]))
        print("%s saturated (%d sessions), frames/s: framed %.2f, gRPC %.2f -> gRPC/framed %.3f (goal >= 0.97); "
              "median of the %d paired windows' ratios %.3f" % (
                  "TLS" if suffix else "cleartext", args.sessions, figures["saturated_fps"][framed],
                  figures["saturated_fps"][grpc_name], throughput_ratio, args.windows,
                  figures["saturated_paired_fps_ratio"][grpc_name]))
        print("%s saturated, CPU ms per answered frame: server framed %.1f, gRPC %.1f -> gRPC/framed %.3f, paired "
              "windows %.3f; client framed %.1f, gRPC %.1f" % (
                  "TLS" if suffix else "cleartext", figures["saturated_server_cpu_ms"][framed],
                  figures["saturated_server_cpu_ms"][grpc_name],
                  figures["saturated_server_cpu_ms"][grpc_name] / figures["saturated_server_cpu_ms"][framed],
                  figures["saturated_paired_server_cpu_ratio"][grpc_name],
                  figures["saturated_client_cpu_ms"][framed], figures["saturated_client_cpu_ms"][grpc_name]))
    figures["overload"] = overloaded
    for measure in OVERLOAD_MEASURES:
        by_round = {name: [r[measure] for r in row["rounds"]] for name, row in overloaded.items()}
        figures["overload_paired_ratio_" + measure] = {n: paired_median(by_round, n) for n in grpc_clients}
    if transport:
        figures["transport"] = transport
        for suffix in ("", "+tls"):
            framed, grpc_name = "framed" + suffix, "grpc" + suffix
            extra_ms = transport["one_stream_ms"][grpc_name] - transport["one_stream_ms"][framed]
            extra_cpu = transport["saturated_server_cpu_ms"][grpc_name] - transport["saturated_server_cpu_ms"][framed]
            print("%s transport alone (calibration engine): one stream %.2f / %.2f ms per frame (gRPC %+.2f ms = %.4f "
                  "of a real frame's %.1f ms); server CPU per frame %.2f / %.2f ms (%+.2f ms = %.4f of a real frame's "
                  "%.1f ms); saturated %.1f / %.1f frames/s" % (
                      "TLS" if suffix else "cleartext", transport["one_stream_ms"][grpc_name],
                      transport["one_stream_ms"][framed], extra_ms, extra_ms / figures["one_stream_ms"][framed],
                      figures["one_stream_ms"][framed], transport["saturated_server_cpu_ms"][grpc_name],
                      transport["saturated_server_cpu_ms"][framed], extra_cpu,
                      extra_cpu / figures["saturated_server_cpu_ms"][framed],
                      figures["saturated_server_cpu_ms"][framed], transport["saturated_fps"][grpc_name],
                      transport["saturated_fps"][framed]))
    for transport, row in overloaded.items():
        print("overload (4 x %.1f frames/s offered; medians of rounds, counts summed), %s: result age p50 %.0f ms, "
              "p99 %.0f ms; in recognitions p50 %.2f, p99 %.2f (recognition %.0f ms); counts %s" % (
            capacity, transport, row["result_age_p50_ms"], row["result_age_p99_ms"], row["age_in_recognitions_p50"],
            row["age_in_recognitions_p99"], row["recognize_p50_ms"],
            {k: row["counts"][k] for k in ("sent", "recognized", "dropped", "skipped", "failed", "unanswered")}))
    for suffix in ("", "+tls"):
        framed, grpc_row = overloaded["framed" + suffix], overloaded["grpc" + suffix]
        print("overload%s, gRPC/framed result age: p50 %.3f, p99 %.3f; medians of the %d paired rounds' ratios: "
              "p50 %.3f, p99 %.3f" % (
                  " under TLS" if suffix else "", grpc_row["result_age_p50_ms"] / framed["result_age_p50_ms"],
                  grpc_row["result_age_p99_ms"] / framed["result_age_p99_ms"], args.overload_rounds,
                  figures["overload_paired_ratio_result_age_p50_ms"]["grpc" + suffix],
                  figures["overload_paired_ratio_result_age_p99_ms"]["grpc" + suffix]))
        print("overload%s, gRPC/framed age in recognitions, medians of the paired rounds' ratios: p50 %.3f, p99 %.3f "
              "(information)" % (" under TLS" if suffix else "",
                                  figures["overload_paired_ratio_age_in_recognitions_p50"]["grpc" + suffix],
                                  figures["overload_paired_ratio_age_in_recognitions_p99"]["grpc" + suffix]))
    print("TLS over cleartext, one stream: framed %.3f, gRPC %.3f" % (
        figures["one_stream_ms"]["framed+tls"] / figures["one_stream_ms"]["framed"],
        figures["one_stream_ms"]["grpc+tls"] / figures["one_stream_ms"]["grpc"]))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
