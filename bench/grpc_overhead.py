#!/usr/bin/env python3
"""gRPC over HTTP/2 against the framed protocol, same server, same frames, one run
(make bench-grpc and section 11 of make bench, ~7 min).

One legibled (release, --workers 2 --replicas-per-script 2) serves both protocols on one Unix
socket and, under TLS (a certificate made here with the openssl command), on one loopback TCP
listener. Each round runs the four clients (framed and gRPC, cleartext on the Unix socket and TLS on TCP;
the order flips every round, so the machine's other users load all alike):
  one stream  a session of each client open at once, a frame sent to each in turn, one at a
              time (send, wait for the answer; the turn's order rotates every frame): end-to-end
              milliseconds per frame, grpcio's Stream call against the framed Python client,
              and the median of frame i's gRPC / framed ratios (paired in time);
  saturated   4 sessions at once, each sending its next frame as soon as the last is answered
              (closed loop): frames answered per second.
  overload    (after the rounds, --overload-rounds alternating rounds of the four) legible-load's
              2 x cores sessions offered 4 x the saturated framed rate, open loop, for
              --overload-seconds: result age p50/p99 (how old the text a camera sees is; medians
              over rounds) and the frames' outcomes, framed against --transport grpc.
The frame is the 720p camera JPEG of the tests (Tests/Fixtures/camera-720p.jpg), read every
time (recognize_unchanged). Reports the medians over rounds and the ratios gRPC / framed, in
cleartext and under TLS.

    python3 bench/grpc_overhead.py [--legibled .build/release/legibled] [--rounds 5]
        [--frames 20] [--seconds 6] [--json bench/out/grpc_overhead.json]
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

    def close(self):
        self.requests.put(pb.ClientMessage(end=pb.EndSession()))
        self.requests.put(None)
        for _ in self.answers:
            pass


def one_stream(makers, frames):
    """{client: [milliseconds per frame]}: one session of each client open at once, each frame
    sent to every session in turn, one at a time (send, wait for the answer), the turn's order
    rotated every frame; 2 warm-up frames each. Interleaved so, the clients' frames meet the same
    load of the machine's other users, and frame i of one client is paired with frame i of another."""
    sessions = {name: make() for name, make in makers.items()}
    names = list(sessions)
    times = {name: [] for name in names}
    for i in range(frames + 2):
        for k in range(len(names)):
            name = names[(i + k) % len(names)]
            began = time.perf_counter()
            sessions[name].recognize(i + 1)
            if i >= 2:
                times[name].append((time.perf_counter() - began) * 1000)
    for session in sessions.values():
        session.close()
    return times


def saturated(make, sessions, seconds, server_pid):
    """(frames answered per second, the server's CPU ms per answered frame, this client's CPU ms
    per answered frame) of `sessions` closed-loop sessions over `seconds`. The server's CPU is
    its own threads' and its engine workers'; the client's, this process's (grpcio's threads
    included): both run on the same cores, so a client's cost shows in the frames/s."""
    made = [make() for _ in range(sessions)]
    for session in made:
        session.recognize(1)  # warm
    counts = [0] * sessions
    server_before, client_before = sum(thread_cpu(server_pid).values()), own_cpu()
    stop = time.monotonic() + seconds

    def drive(index):
        frame_id = 2
        while time.monotonic() < stop:
            made[index].recognize(frame_id)
            frame_id += 1
            counts[index] += 1
    began = time.monotonic()
    threads = [threading.Thread(target=drive, args=(i,)) for i in range(sessions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    answered = max(1, sum(counts))
    server_cpu = sum(thread_cpu(server_pid).values()) - server_before
    client_cpu = own_cpu() - client_before
    for session in made:
        session.close()
    return sum(counts) / elapsed, 1000 * server_cpu / answered, 1000 * client_cpu / answered


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
    age = report["result_age"]
    return {"result_age_p50_ms": age["p50"], "result_age_p99_ms": age["p99"], "counts": report["counts"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--legibled", default=os.path.join(REPO, ".build", "release", "legibled"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--frames", type=int, default=20, help="frames per one-stream run")
    parser.add_argument("--seconds", type=float, default=6, help="length of each saturated run")
    parser.add_argument("--sessions", type=int, default=4, help="sessions of each saturated run")
    parser.add_argument("--overload-seconds", type=float, default=10, help="length of each overload run")
    parser.add_argument("--overload-rounds", type=int, default=3, help="alternating overload rounds")
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()

    folder = tempfile.mkdtemp(prefix="legible-grpc-bench-")
    path = os.path.join(folder, "s.sock")
    certificate, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key, "-out", certificate],
                   check=True, capture_output=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = open(os.path.join(folder, "legibled.log"), "w")
    argv = [args.legibled, "--listen", "unix:" + path, "--listen", "tcp:127.0.0.1:%d" % port, "--tls-cert",
            certificate, "--tls-key", key, "--workers", "2", "--replicas-per-script", "2"]
    print("$ OMP_THREAD_LIMIT=1 " + " ".join(argv), file=sys.stderr)
    server = subprocess.Popen(argv, stderr=log, env={**os.environ, "OMP_THREAD_LIMIT": "1"})
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(path) or "engine loaded" not in open(log.name).read():
            assert server.poll() is None and time.monotonic() < deadline, "legibled did not start"
            time.sleep(0.1)
        channel = grpc.insecure_channel("unix:" + path)
        tls_channel = grpc.secure_channel("localhost:%d" % port, grpc.ssl_channel_credentials(
            root_certificates=open(certificate, "rb").read()))
        clients = {
            "framed": lambda: FramedSession(Stream("unix:" + path)),
            "grpc": lambda: GRPCSession(channel),
            "framed+tls": lambda: FramedSession(Stream("tcp:127.0.0.1:%d" % port, tls=TLSFiles(certificate))),
            "grpc+tls": lambda: GRPCSession(tls_channel),
        }
        # Warm-up, not counted: every engine replica loaded and every path run once.
        saturated(clients["framed"], args.sessions, 3, server.pid)
        latency = {name: [] for name in clients}
        throughput = {name: [] for name in clients}
        server_cpu = {name: [] for name in clients}
        client_cpu = {name: [] for name in clients}
        paired = {name: [] for name in ("grpc", "grpc+tls")}
        for round_index in range(args.rounds):
            order = list(clients) if round_index % 2 == 0 else list(reversed(clients))
            times = one_stream({name: clients[name] for name in order}, args.frames)
            for name in order:
                latency[name].append(statistics.median(times[name]))
            for name in paired:
                base = times["framed" + name[len("grpc"):]]
                paired[name] += [ms / base_ms for ms, base_ms in zip(times[name], base)]
            for name in order:
                rate, server_ms, client_ms = saturated(clients[name], args.sessions, args.seconds, server.pid)
                throughput[name].append(rate)
                server_cpu[name].append(server_ms)
                client_cpu[name].append(client_ms)
            print("round %d: one stream ms %s, saturated frames/s %s" % (
                round_index + 1, {n: round(latency[n][-1], 1) for n in clients},
                {n: round(throughput[n][-1], 2) for n in clients}), file=sys.stderr)
        channel.close()
        tls_channel.close()
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
                    load_binary, "tcp:127.0.0.1:%d" % port if tls else "unix:" + path, transport, load_sessions,
                    4 * capacity / load_sessions, args.overload_seconds, folder, tls_ca=certificate if tls else None))
        overloaded = {name: {
            "result_age_p50_ms": statistics.median(r["result_age_p50_ms"] for r in rows),
            "result_age_p99_ms": statistics.median(r["result_age_p99_ms"] for r in rows),
            "counts": {key: sum(r["counts"][key] for r in rows) for key in rows[0]["counts"]
                       if isinstance(rows[0]["counts"][key], int) and not isinstance(rows[0]["counts"][key], bool)},
            "rounds": rows} for name, rows in runs.items()}
    finally:
        server.terminate()
        server.wait(30)
    figures = {
        "rounds": args.rounds,
        "frames": args.frames,
        "one_stream_ms": {n: statistics.median(v) for n, v in latency.items()},
        "one_stream_paired_ratio": {n: statistics.median(v) for n, v in paired.items()},
        "saturated_fps": {n: statistics.median(v) for n, v in throughput.items()},
        "saturated_server_cpu_ms": {n: statistics.median(v) for n, v in server_cpu.items()},
        "saturated_client_cpu_ms": {n: statistics.median(v) for n, v in client_cpu.items()},
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
                  figures["one_stream_ms"][grpc_name], latency_ratio, len(paired[grpc_name]),
                  figures["one_stream_paired_ratio"][grpc_name]))
        print("%s saturated (%d sessions), frames/s: framed %.2f, gRPC %.2f -> gRPC/framed %.3f (goal >= 0.97)" % (
            "TLS" if suffix else "cleartext", args.sessions, figures["saturated_fps"][framed],
            figures["saturated_fps"][grpc_name], throughput_ratio))
        print("%s saturated, CPU ms per answered frame: server framed %.1f, gRPC %.1f -> gRPC/framed %.3f; "
              "client framed %.1f, gRPC %.1f" % (
                  "TLS" if suffix else "cleartext", figures["saturated_server_cpu_ms"][framed],
                  figures["saturated_server_cpu_ms"][grpc_name],
                  figures["saturated_server_cpu_ms"][grpc_name] / figures["saturated_server_cpu_ms"][framed],
                  figures["saturated_client_cpu_ms"][framed], figures["saturated_client_cpu_ms"][grpc_name]))
    figures["overload"] = overloaded
    for transport, row in overloaded.items():
        print("overload (4 x %.1f frames/s offered; medians of rounds, counts summed), %s: result age p50 %.0f ms, "
              "p99 %.0f ms, counts %s" % (
            capacity, transport, row["result_age_p50_ms"], row["result_age_p99_ms"],
            {k: row["counts"][k] for k in ("sent", "recognized", "dropped", "skipped", "failed", "unanswered")}))
    for suffix in ("", "+tls"):
        framed, grpc_row = overloaded["framed" + suffix], overloaded["grpc" + suffix]
        print("overload%s, gRPC/framed result age: p50 %.3f, p99 %.3f" % (
            " under TLS" if suffix else "", grpc_row["result_age_p50_ms"] / framed["result_age_p50_ms"],
            grpc_row["result_age_p99_ms"] / framed["result_age_p99_ms"]))
    print("TLS over cleartext, one stream: framed %.3f, gRPC %.3f" % (
        figures["one_stream_ms"]["framed+tls"] / figures["one_stream_ms"]["framed"],
        figures["one_stream_ms"]["grpc+tls"] / figures["one_stream_ms"]["grpc"]))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
