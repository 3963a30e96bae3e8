#!/usr/bin/env python3
"""Soak: legibled (release, real Tesseract) at about twice its capacity for SOAK_MINUTES with a
mix of scripts and faults, sampled every 10 s (make soak SOAK_MINUTES=30).

- Load: legible-load, sessions round-robin over Latin, Devanagari and Chinese, open loop.
- Faults, one every ~2 s in turn: a client vanishing mid-frame (abortive close), a garbage
  stream, a slowloris trickle, a session disconnecting with a frame in recognition, a client
  that never reads its results.
- Samples (from /metrics): process RSS, open descriptors, engines loaded, sessions, connections,
  frames received; written to bench/out/soak.csv with a chart bench/out/soak.svg.

At the end: start and end figures, and the load's accounting (frames lost: sent but never
answered; the goal is 0). Exit 1 when frames were lost or the server died.
"""
import argparse
import csv
import io
import json
import os
import random
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import camera_frames as cf  # noqa: E402
from legible_client import build_image, frame as framed, pb  # noqa: E402


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            values[key] = float(value)
    return values


def sample(port, started):
    m = scrape(port)
    engines = sum(v for k, v in m.items() if k.startswith("legible_engines_loaded"))
    received = sum(v for k, v in m.items() if k.startswith("legible_frames_received_total"))
    return {"seconds": round(time.monotonic() - started), "rss_mb": round(m.get("process_resident_memory_bytes", 0) / 2**20, 1),
            "open_fds": int(m.get("process_open_fds", 0)), "engines_loaded": int(engines),
            "sessions": int(m.get("legible_sessions", 0)), "connections": int(m.get("legible_connections", 0)),
            "frames_received": int(received)}


class Faults:
    """Injects one fault every `every` seconds, in turn, until stopped."""

    def __init__(self, path, every=2.0):
        self.path = path
        self.every = every
        self.stop = threading.Event()
        self.count = {}
        self.rng = random.Random(17)
        image = io.BytesIO()
        cf.scene()[0].save(image, "JPEG", quality=85)
        start = framed(pb.ClientMessage(start=pb.StartSession(options=pb.RecognitionOptions(recognize_unchanged=True))))
        self.stream = start + framed(pb.ClientMessage(frame=pb.Frame(frame_id=1, image=build_image(pb.ENCODING_JPEG, image.getvalue()))))
        self.held = []

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(self.path)
        return s

    def vanish_mid_frame(self):
        s = self.connect()
        s.sendall(self.stream[:self.rng.randrange(1, len(self.stream))])
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()

    def garbage(self):
        s = self.connect()
        s.sendall(bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(1, 2000))))
        s.close()

    def slowloris(self):
        s = self.connect()
        s.sendall(b"\x00" + struct.pack(">I", 5000))  # then nothing: the server's deadlines close it
        self.held.append(s)

    def disconnect_in_recognition(self):
        s = self.connect()
        s.sendall(self.stream)
        time.sleep(0.05)
        s.close()

    def never_reads(self):
        s = self.connect()
        s.sendall(self.stream)
        # Its results sit unread in the socket buffer (one frame's are a few kB, far from the
        # write-queue cap, so --write-stall-seconds does not fire): the session stays open, as an
        # idle camera's would, until this client closes it (at most 20 are held, see run) or
        # --idle-seconds passes.
        self.held.append(s)

    def run(self):
        kinds = [self.vanish_mid_frame, self.garbage, self.slowloris, self.disconnect_in_recognition, self.never_reads]
        index = 0
        while not self.stop.wait(self.every):
            kind = kinds[index % len(kinds)]
            index += 1
            try:
                kind()
                self.count[kind.__name__] = self.count.get(kind.__name__, 0) + 1
            except OSError as error:
                self.count["errors"] = self.count.get("errors", 0) + 1
                log(f"fault {kind.__name__}: {error}")
            while len(self.held) > 20:
                self.held.pop(0).close()
        for s in self.held:
            s.close()


def chart(rows, path):
    """An SVG with one panel per series over time (no dependencies)."""
    series = ["rss_mb", "open_fds", "engines_loaded", "sessions"]
    width, panel, pad = 720, 130, 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{len(series) * panel + 20}" '
           'font-family="sans-serif" font-size="11">']
    span = max(1, rows[-1]["seconds"])
    for index, name in enumerate(series):
        top = 10 + index * panel
        values = [r[name] for r in rows]
        low, high = min(values), max(values)
        high = high if high > low else low + 1
        points = " ".join(f"{pad + (r['seconds'] / span) * (width - 2 * pad):.1f},"
                          f"{top + panel - 25 - (r[name] - low) / (high - low) * (panel - 45):.1f}" for r in rows)
        out.append(f'<text x="{pad}" y="{top + 10}">{name}: {values[0]} at start, {values[-1]} at end '
                   f'(min {low}, max {max(values)})</text>')
        out.append(f'<line x1="{pad}" y1="{top + panel - 25}" x2="{width - pad}" y2="{top + panel - 25}" stroke="#999"/>')
        out.append(f'<polyline fill="none" stroke="#2a6fdb" stroke-width="1.5" points="{points}"/>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, default=float(os.environ.get("SOAK_MINUTES", "30")))
    p.add_argument("--legibled", default=os.path.join(HERE, "..", ".build", "release", "legibled"))
    p.add_argument("--load", default=os.path.join(HERE, "..", ".build", "release", "legible-load"))
    p.add_argument("--out", default=os.path.join(HERE, "out"))
    p.add_argument("--sessions", type=int, default=12)
    p.add_argument("--fps", type=float, default=2.5, help="per session; 12 x 2.5 = 30 fps, ~2x two engines' 720p rate")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="legible-soak-")
    frames = os.path.join(work, "frames")
    os.makedirs(frames)
    for index, name in enumerate(["latin", "devanagari", "chinese", "latin-multilingual"]):
        for seed in range(3):
            cf.script_scene(name, seed=cf.SEED + seed)[0].save(os.path.join(frames, f"{index}{seed}.jpg"), "JPEG", quality=85)
    path = os.path.join(work, "s.sock")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([a.legibled, "--listen", "unix:" + path, "--metrics", f"tcp:127.0.0.1:{port}", "--workers", "2",
                               "--replicas-per-script", "2", "--write-stall-seconds", "5", "--first-message-seconds", "5",
                               "--message-seconds", "5", "--max-write-queue-bytes", "262144"],
                              env=dict(os.environ, OMP_THREAD_LIMIT="1"), stderr=open(os.path.join(a.out, "soak-server.log"), "w"))
    rows = []
    faults = None
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2).status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline and server.poll() is None, "legibled did not become ready"
            time.sleep(0.1)
        started = time.monotonic()
        rows.append(sample(port, started))
        seconds = int(a.minutes * 60)
        load = subprocess.Popen([a.load, "--server", "unix:" + path, "--sessions", str(a.sessions), "--fps", str(a.fps),
                                 "--duration", str(seconds), "--ramp-up", "5", "--frames", frames, "--script", "latin",
                                 "--script", "devanagari", "--script", "chinese", "--drain-timeout", "60",
                                 "--json", os.path.join(a.out, "soak-load.json")],
                                stdout=open(os.path.join(a.out, "soak-load.txt"), "w"), stderr=subprocess.STDOUT)
        faults = Faults(path)
        thread = threading.Thread(target=faults.run, daemon=True)
        thread.start()
        with open(os.path.join(a.out, "soak.csv"), "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerow(rows[0])
            while load.poll() is None:
                time.sleep(10)
                if server.poll() is not None:
                    raise SystemExit("legibled died during the soak")
                row = sample(port, started)
                rows.append(row)
                writer.writerow(row)
                f.flush()
                log(json.dumps(row))
        faults.stop.set()
        thread.join(timeout=10)
        time.sleep(12)  # the faults' connections time out
        rows.append(sample(port, started))
    finally:
        if faults:
            faults.stop.set()
        alive = server.poll() is None
        server.terminate()
        server.wait()
    chart(rows, os.path.join(a.out, "soak.svg"))
    with open(os.path.join(a.out, "soak-load.json")) as f:
        report = json.load(f)
    c = report["counts"]
    lost = c["unanswered"]
    print(f"soak: {a.minutes:g} min, {a.sessions} sessions x {a.fps:g} fps (scripts latin, devanagari, chinese), "
          f"faults {json.dumps(faults.count if faults else {})}")
    print(f"frames: sent {c['sent']}, recognized {c['recognized']}, dropped {c['dropped']}, skipped {c['skipped']}, "
          f"failed {c['failed']}, lost (unanswered) {lost}")
    first, last = rows[0], rows[-1]
    for key in ("rss_mb", "open_fds", "engines_loaded", "sessions", "connections"):
        print(f"{key}: start {first[key]}, end {last[key]}, max {max(r[key] for r in rows)}")
    print(f"server alive at the end: {alive}; samples in {os.path.join(a.out, 'soak.csv')}, chart {os.path.join(a.out, 'soak.svg')}")
    return 0 if lost == 0 and alive else 1


if __name__ == "__main__":
    sys.exit(main())
