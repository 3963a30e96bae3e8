#!/usr/bin/env python3
"""The one-run benchmark (make bench): Legible against its floor and its peers, on the same
frames, in one run on this machine, written to BENCHMARKS.md with a freshness chart beside it.

  1. floor       legible-floor --detector (in-process, no server: the PP-OCRv4 detector and
                 the recognizer stack legibled's engines read each line with, built by the
                 same PipelineFactory): median ms per frame and frames/s; one legible-floor
                 process per core at once.
  2. legible     one stream, closed loop: end-to-end latency per frame (median, p99) against
                 (1); saturated: --workers = cores, 2 x cores sessions offered 4x the floor
                 capacity open loop (a frame always pending): recognized frames/s.
  3. peers       tesseract CLI per frame (latency; throughput with one process per core);
                 tesserocr-fifo (latency one stream; saturated as in 2).
  4. freshness   2 x cores streams offering 4x each server's measured capacity for --freshness-s
                 seconds with distinct frames: result age (sent -> result received) p50/p99 per
                 5 s window, Legible against the FIFO peer, and a PNG chart.
  5. accuracy    CER per script, per EXIF orientation and on hard camera frames, Legible FAST
                 and ACCURATE against the tesseract CLI (--psm 11 and its default --psm 3) and
                 legibled --detector tesseract (the whole-frame read); plus Tesseract's public
                 eurotext.png (from the tesserocr sdist).
  6. corpus      bench/corpus (public images, hand-made truth): CER per kind and script for the
                 CLI, --detector tesseract, FAST and ACCURATE; tune and held-out parts apart.
  7. tilt        lines turned -30..30 degrees found as one line and read; text-free frames
                 answered empty; the detector against --detector tesseract.
  8. vertical    generated columns of vertical Chinese and Japanese read top to bottom, right to left
  9. scripts     line by line: each line's script found and read by its engine, named and automatic;
                 the engine pool's memory as sessions flip scripts and under 1,000 sessions
 10. isolation   engines in worker processes (the default) against engines in the server's
                 process, both servers up: one stream per-pair latency ratio, saturated frames/s
                 and CPU per recognized frame in paired windows (bench/side_by_side.py).
 11. grpc        stock gRPC (grpcio's Stream call; legible-load --transport grpc under overload)
                 against the framed protocol on one server, in cleartext and under TLS:
                 one-stream ms, saturated frames/s, result age at 4x (bench/grpc_overhead.py).

The machine is shared, so what is compared is measured side by side: the one-stream latencies
of the floor, Legible, the FIFO peer and the CLI in 8 short rounds, and the saturated runs of
the floor (one process per core), Legible and the FIFO peer in 6 rounds, each round's order
the reverse of the one before. Everything runs with OMP_THREAD_LIMIT=1. Generated frames are
cached in bench/.cache/frames-* (keyed by the generator's source); raw numbers go to
bench/out/bench.json and the servers' logs to bench/out/*.log.
"""
import argparse
import concurrent.futures
import datetime
import hashlib
import io
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for path in (os.path.join(ROOT, "clients", "python"), os.path.join(ROOT, "scripts"), HERE, os.path.join(HERE, "peers")):
    sys.path.insert(0, path)
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

import camera_frames as cf  # noqa: E402
import models as bm  # noqa: E402  (bench/models.py: CER, hard_frames)
import corpus_accuracy as corpus  # noqa: E402
import tilt_and_clutter as tilt  # noqa: E402
import pool_memory  # noqa: E402
import script_lines  # noqa: E402
import vertical_columns as vertical  # noqa: E402
import tesseract_cli  # noqa: E402
from legible_client import Stream, pb  # noqa: E402

CORES = os.cpu_count() or 1
ENV = dict(os.environ, OMP_THREAD_LIMIT="1")
CACHE = os.path.join(HERE, ".cache")
OUT = os.path.join(HERE, "out")
BENCH_FRAME = os.path.join(ROOT, "Tests", "Fixtures", "camera-720p.jpg")
FIFO = os.path.join(HERE, "peers", "tesserocr_fifo.py")
SEEDS = (cf.SEED, cf.SEED + 11, cf.SEED + 23)
# Per accuracy configuration: the Legible session options and the model the CLI gets (the
# model Legible's engine uses for it, so both read with the same traineddata).
CONFIGS = {
    "latin": ({"scripts": [pb.SCRIPT_LATIN]}, "eng"),
    "latin-multilingual": ({"language_hints": ["de", "fr", "es", "vi"]}, "Latin"),
    "chinese": ({"scripts": [pb.SCRIPT_CHINESE]}, "HanS"),
    "japanese": ({"scripts": [pb.SCRIPT_JAPANESE]}, "jpn"),
    "korean": ({"scripts": [pb.SCRIPT_KOREAN]}, "kor"),
    "devanagari": ({"scripts": [pb.SCRIPT_DEVANAGARI]}, "Devanagari"),
    "latin + devanagari": ({"scripts": [pb.SCRIPT_LATIN, pb.SCRIPT_DEVANAGARI]}, "eng+Devanagari"),
}
# Tesseract's eurotext.png (shipped in tesserocr's sdist as tests/eurotext.png). The image comes
# with no truth file: this transcription was read off the image by eye, line by line.
EUROTEXT_TRUTH = """The (quick) [brown] {fox} jumps!
Over the $43,456.78 <lazy> #90 dog
& duck/goose, as 12.5% of E-mail
from aspammer@website.com is spam.
Der „schnelle” braune Fuchs springt
über den faulen Hund. Le renard brun
«rapide» saute par-dessus le chien
paresseux. La volpe marrone rapida
salta sopra il cane pigro. El zorro
marrón rápido salta sobre el perro
perezoso. A raposa marrom rápida
salta sobre o cão preguiçoso."""
COMMANDS = []  # the exact commands of this run, for BENCHMARKS.md


def log(*parts):
    print("[%s]" % time.strftime("%H:%M:%S"), *parts, file=sys.stderr, flush=True)


def note_command(argv, env="OMP_THREAD_LIMIT=1"):
    line = (env + " " if env else "") + " ".join(shlex.quote(a) for a in argv)
    line = line.replace(ROOT + "/", "").replace(tempfile.gettempdir() + "/", "$TMP/")
    if line not in COMMANDS:
        COMMANDS.append(line)


def percentile(values, p):
    """Nearest rank: the smallest value with at least p % of the values at or below it."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, int(np.ceil(p / 100 * len(ordered))))
    return ordered[rank - 1]


def jpeg_bytes(image, quality=92):
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, "JPEG", quality=quality)
    return buffer.getvalue()


# ------------------------------------------------------------------------------- frames

def _source_key():
    digest = hashlib.sha1()
    for name in (os.path.join(ROOT, "scripts", "camera_frames.py"), os.path.join(HERE, "models.py")):
        with open(name, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:12]


def _make(spec):
    """(name, [(key, PNG bytes, truth text)]) for one generation job (run in a worker process)."""
    kind = spec[0]
    if kind == "script":
        _, script, seed = spec
        frames = [("%s/%d" % (script, seed), cf.script_scene(script, seed=seed))]
    elif kind == "mixed":
        frames = [("latin + devanagari/%d" % spec[1], cf.mixed_scene(("latin", "devanagari"), seed=spec[1]))]
    else:
        frames = [("hard/" + name, frame) for name, frame in bm.hard_frames().items()]
    out = []
    for key, (image, truth) in frames:
        buffer = io.BytesIO()
        image.save(buffer, "PNG", compress_level=1)
        out.append((key, buffer.getvalue(), cf.truth_text(truth)))
    return out


def generated_frames(freshness_seeds):
    """{key: (upright RGB image, truth text)}: every generated frame this run reads, from the
    cache or made in a process pool (one process per core)."""
    folder = os.path.join(CACHE, "frames-" + _source_key())
    index_path = os.path.join(folder, "index.json")
    specs = [("script", s, seed) for s in ("latin", "latin-multilingual", "chinese", "japanese", "korean", "devanagari")
             for seed in SEEDS]
    specs += [("script", "latin", seed) for seed in freshness_seeds if seed not in SEEDS]
    specs += [("mixed", seed) for seed in SEEDS[:2]]
    specs += [("hard",)]
    index = {}
    if os.path.exists(index_path):
        with open(index_path) as f:
            index = json.load(f)
    wanted = [s for s in specs if json.dumps(s) not in index.get("specs", [])]
    if wanted:
        log("generating %d frame jobs (cached afterwards in %s)" % (len(wanted), os.path.relpath(folder, ROOT)))
        os.makedirs(folder, exist_ok=True)
        with concurrent.futures.ProcessPoolExecutor(CORES) as pool:
            for spec, frames in zip(wanted, pool.map(_make, wanted)):
                for key, png, truth in frames:
                    name = hashlib.sha1(key.encode()).hexdigest()[:16] + ".png"
                    with open(os.path.join(folder, name), "wb") as f:
                        f.write(png)
                    index.setdefault("frames", {})[key] = {"file": name, "truth": truth}
                index.setdefault("specs", []).append(json.dumps(spec))
        with open(index_path, "w") as f:
            json.dump(index, f, indent=1, ensure_ascii=False)
    frames = {}
    for key, entry in index["frames"].items():
        image = Image.open(os.path.join(folder, entry["file"]))
        image.load()
        frames[key] = (image.convert("RGB"), entry["truth"])
    return frames


# ------------------------------------------------------------------------------- servers

class Server:
    """legibled or the tesserocr-fifo peer on a temporary unix socket."""

    def __init__(self, name, argv):
        self.dir = tempfile.mkdtemp(prefix="legible-bench-")
        self.path = os.path.join(self.dir, "s.sock")
        self.address = "unix:" + self.path
        argv = [a.replace("{socket}", self.path) for a in argv]
        note_command([a.replace(self.path, "$SOCK") for a in argv])
        self.log_path = os.path.join(OUT, name + ".log")
        self.log = open(self.log_path, "a")
        self.process = subprocess.Popen(argv, env=ENV, stderr=self.log, stdout=self.log)
        deadline = time.monotonic() + 60
        while not os.path.exists(self.path):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("%s did not start; see %s" % (name, self.log_path))
            time.sleep(0.05)
        time.sleep(0.2)

    def session(self, **options):
        stream = Stream(self.address)
        stream.send(pb.ClientMessage(start=pb.StartSession(protocol_version=1, client_name="bench/run.py",
                                                           options=pb.RecognitionOptions(**options))))
        message = stream.receive()
        assert message is not None and message.WhichOneof("message") == "started", message
        stream.started = message.started
        return stream

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()


def children(pid):
    """The processes whose parent is `pid` (legibled's engine workers)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def legibled(binary, workers=CORES, replicas=CORES, *flags):
    return Server("legibled", [binary, "--listen", "unix:{socket}", "--workers", str(workers),
                               "--replicas-per-script", str(replicas), *flags])


def fifo_peer(workers=CORES):
    return Server("tesserocr-fifo", [sys.executable, FIFO, "--listen", "unix:{socket}", "--workers", str(workers)])


def frame_message(frame_id, data, encoding=pb.ENCODING_JPEG, orientation=0):
    return pb.ClientMessage(frame=pb.Frame(frame_id=frame_id, orientation=orientation,
                                           image=pb.Image(encoding=encoding, data=data)))


def closed_loop(server, data, runs, warmup, **options):
    """Per-frame end-to-end latency (ms), one frame at a time in one session; with `timings`,
    the server's own Timing of each (decode, recognize, total in ms) is appended to it."""
    options.setdefault("recognize_unchanged", True)
    timings = options.pop("timings", None)
    stream = server.session(**options)
    times = []
    for i in range(warmup + runs):
        started = time.perf_counter()
        stream.send(frame_message(i + 1, data))
        result = stream.receive().result
        elapsed = (time.perf_counter() - started) * 1000
        assert result.status == pb.FRAME_STATUS_RECOGNIZED and result.frame_id == i + 1, result
        if i >= warmup:
            times.append(elapsed)
            if timings is not None:
                t = result.timing
                timings.append((t.decode_us / 1000, t.recognize_us / 1000, t.total_us / 1000))
    end_session(stream, warmup + runs)
    return times


def end_session(stream, sent):
    """EndSession, then every answer and the summary: checks that each frame got one answer."""
    stream.send(pb.ClientMessage(end=pb.EndSession()))
    while True:
        message = stream.receive()
        if message is None or message.WhichOneof("message") == "summary":
            break
    assert message is not None and message.summary.frames_received == sent, message
    stream.close()


class OpenLoop:
    """Open-loop streams: each sends at its own rate whatever the answers, like a camera; a
    receiver per stream records when each frame's answer came and its status."""

    def __init__(self, server, streams, fps, duration, frames, options):
        self.server, self.streams, self.fps, self.duration = server, streams, fps, duration
        self.frames, self.options = frames, options
        self.sent = [{} for _ in range(streams)]      # frame_id -> sent at (monotonic)
        self.answers = [{} for _ in range(streams)]   # frame_id -> (answered at, status)
        self.duplicates = 0
        self.late_sends = 0
        self.recognize_ms = []  # the servers' own Timing.recognize_us, for "one recognition" in this run

    def run(self, drain_seconds):
        sessions = [self.server.session(**self.options) for _ in range(self.streams)]
        self.t0 = time.monotonic() + 0.2
        self.end = self.t0 + self.duration
        receivers = [threading.Thread(target=self._receive, args=(i, s), daemon=True) for i, s in enumerate(sessions)]
        senders = [threading.Thread(target=self._send, args=(i, s), daemon=True) for i, s in enumerate(sessions)]
        for t in receivers + senders:
            t.start()
        for t in senders:
            t.join()
        deadline = time.monotonic() + drain_seconds
        while time.monotonic() < deadline and self.unanswered():
            time.sleep(0.05)
        self.closed_at = time.monotonic()
        for s in sessions:
            try:
                s.sock.shutdown(2)
            except OSError:
                pass
        for t in receivers:
            t.join(5)
        for s in sessions:
            s.close()
        return self

    def _send(self, index, stream):
        interval = 1.0 / self.fps
        due = self.t0 + index * interval / self.streams
        k = 0
        while due < self.end:
            now = time.monotonic()
            if now < due:
                time.sleep(due - now)
            elif now - due > interval:
                self.late_sends += 1
            frame_id = k + 1
            data = self.frames[(k + index * 3) % len(self.frames)]
            message = frame_message(frame_id, data)
            self.sent[index][frame_id] = time.monotonic()
            try:
                stream.send(message)
            except OSError:
                break
            k += 1
            due += interval

    def _receive(self, index, stream):
        while True:
            try:
                message = stream.receive()
            except OSError:
                return
            if message is None:
                return
            if message.WhichOneof("message") == "result":
                r = message.result
                if r.frame_id in self.answers[index]:
                    self.duplicates += 1
                self.answers[index][r.frame_id] = (time.monotonic(), r.status, r.timing.recognize_us / 1000)
                if r.status == pb.FRAME_STATUS_RECOGNIZED and r.timing.recognize_us:
                    self.recognize_ms.append(r.timing.recognize_us / 1000)

    def unanswered(self):
        return sum(len(s) - len(a) for s, a in zip(self.sent, self.answers))

    def counts(self):
        c = {"sent": sum(len(s) for s in self.sent), "unanswered": self.unanswered(), "duplicates": self.duplicates,
             "late sends": self.late_sends}
        for name, status in (("recognized", pb.FRAME_STATUS_RECOGNIZED), ("dropped", pb.FRAME_STATUS_DROPPED),
                             ("skipped", pb.FRAME_STATUS_SKIPPED), ("failed", pb.FRAME_STATUS_FAILED)):
            c[name] = sum(1 for a in self.answers for _, st, _ in a.values() if st == status)
        return c

    def engine_busy(self, warmup, engines):
        """Share of the engines' time in recognition after the warm-up: the servers' own
        recognize_us of the RECOGNIZED results answered then, over engines x the window."""
        start = self.t0 + warmup
        busy = sum(ms for a in self.answers for at, st, ms in a.values()
                   if st == pb.FRAME_STATUS_RECOGNIZED and start <= at <= self.end)
        return busy / 1000 / (engines * (self.end - start))

    def recognized_rate(self, warmup):
        """RECOGNIZED results answered in [t0 + warmup, end], per second."""
        start = self.t0 + warmup
        n = sum(1 for a in self.answers for at, st, _ in a.values() if st == pb.FRAME_STATUS_RECOGNIZED and start <= at <= self.end)
        return n / (self.end - start)

    def ages(self, window):
        """Per window of `window` s (by answer time): (start s, [(age ms, that frame's recognize ms)]
        of the RECOGNIZED results)."""
        buckets = {}
        for sent, answers in zip(self.sent, self.answers):
            for frame_id, (at, status, recognize_ms) in answers.items():
                if status != pb.FRAME_STATUS_RECOGNIZED or at > self.end:
                    continue
                buckets.setdefault(int((at - self.t0) // window), []).append(((at - sent[frame_id]) * 1000, recognize_ms))
        return [(i * window, buckets.get(i, [])) for i in range(int(np.ceil(self.duration / window)))]

    def waiting_at_end(self):
        """Frames sent but not answered by the end of the sending window, and the oldest's age (ms)."""
        pending = [self.end - sent[f] for sent, answers in zip(self.sent, self.answers) for f in sent
                   if f not in answers or answers[f][0] > self.end]
        return len(pending), (max(pending) * 1000 if pending else 0.0)


# ------------------------------------------------------------------------------- sections

def floor_parallel(floor, runs, detector=True, flags=()):
    """One legible-floor process per core at once: (frames/s in all, each one's mean ms, each
    one's CPU ms per frame). The mean, not the median: throughput is frames over time, slow
    frames included. `flags`: more of legible-floor's (--decode-each)."""
    argv = [floor] + (["--detector"] if detector else []) + list(flags) + ["--repeat", str(runs), "--warmup", "2", BENCH_FRAME]
    note_command(argv, env="OMP_THREAD_LIMIT=1 (%d at once)" % CORES)
    processes = [subprocess.Popen(argv, env=ENV, stdout=subprocess.PIPE, text=True) for _ in range(CORES)]
    reports = [json.loads(p.communicate()[0]) for p in processes]
    return sum(1000 / r["mean_ms"] for r in reports), [r["mean_ms"] for r in reports], [r["cpu_ms"] for r in reports]


def one_stream(binary, floor, runs, cli_runs):
    """One stream, closed loop, for the floor, Legible, tesserocr-fifo and the tesseract CLI, in
    short rounds whose order flips every other round, so drifting load from the machine's other
    users hits all four alike. Pooled over the rounds: medians and p99 (the floor: the mean of
    the rounds' medians, as legible-floor reports one median per run)."""
    data = open(BENCH_FRAME, "rb").read()
    rounds = 8
    per_round = max(1, runs // rounds)
    cli_per_round = max(1, cli_runs // rounds)
    argv = [floor, "--detector", "--repeat", str(per_round), "--warmup", "2", BENCH_FRAME]
    note_command(argv)
    note_command(tesseract_cli.command("eng", 11, "$TMP/tesseract-cli-XXXX.jpg"))
    floor_medians, legible_times, fifo_times, cli_times, timings = [], [], [], [], []
    with legibled(binary) as server, fifo_peer() as peer:
        tesseract_cli.recognize(data)  # the model file into the page cache
        steps = [
            lambda: floor_medians.append(json.loads(
                subprocess.run(argv, env=ENV, capture_output=True, text=True, check=True).stdout)["median_ms"]),
            lambda: legible_times.extend(closed_loop(server, data, per_round, 2, timings=timings)),
            lambda: fifo_times.extend(closed_loop(peer, data, per_round, 2)),
            lambda: cli_times.extend(tesseract_cli.recognize(data)[1] for _ in range(cli_per_round)),
        ]
        for round_ in range(rounds):
            for step in steps[::1 if round_ % 2 == 0 else -1]:
                step()
    floor_median = statistics.mean(floor_medians)
    legible_median = statistics.median(legible_times)
    return {
        "floor": {"median_ms": floor_median, "round_medians_ms": floor_medians, "runs": per_round * rounds},
        "legible": {"median_ms": legible_median, "p99_ms": percentile(legible_times, 99), "runs": len(legible_times),
                    "server_decode_ms": statistics.median(t[0] for t in timings),
                    "server_recognize_ms": statistics.median(t[1] for t in timings),
                    "server_total_ms": statistics.median(t[2] for t in timings),
                    # Per frame, paired: end-to-end over the server's own recognize_us of that frame.
                    "paired_ratio": statistics.median(e / t[1] for e, t in zip(legible_times, timings)),
                    "floor_median_ms": floor_median, "ratio": legible_median / floor_median},
        "fifo": {"median_ms": statistics.median(fifo_times), "p99_ms": percentile(fifo_times, 99), "runs": len(fifo_times)},
        "cli": {"median_ms": statistics.median(cli_times), "p99_ms": percentile(cli_times, 99), "runs": len(cli_times)},
    }


def saturated(server, rate, seconds, warmup, options):
    """2 x cores sessions offered `rate` frames/s in all, open loop, the same frame again and
    again (recognize_unchanged): recognized frames/s after the warm-up."""
    data = open(BENCH_FRAME, "rb").read()
    sessions = 2 * CORES
    run = OpenLoop(server, sessions, rate / sessions, seconds, [data], options).run(drain_seconds=1.0)
    return {"rate": run.recognized_rate(warmup), "busy": run.engine_busy(warmup, CORES), "offered": rate,
            "sessions": sessions, "seconds": seconds, "counts": run.counts()}


def legible_load_crosscheck(binary, server, rate, seconds):
    """With clients/legible-load built (.build/release/legible-load), its recognized rate."""
    tool = os.path.join(os.path.dirname(binary), "legible-load")
    if not os.path.exists(tool):
        return None
    folder = tempfile.mkdtemp(prefix="legible-bench-frames-")
    os.symlink(BENCH_FRAME, os.path.join(folder, "camera-720p.jpg"))
    out = os.path.join(folder, "load.json")
    argv = [tool, "--server", server.address, "--sessions", str(2 * CORES), "--fps", "%.2f" % (rate / (2 * CORES)),
            "--duration", str(seconds), "--frames", folder, "--recognize-unchanged", "--json", out]
    try:
        subprocess.run(argv, env=ENV, capture_output=True, text=True, timeout=seconds + 60)
        with open(out) as f:
            report = json.load(f)
        note_command([a.replace(server.path, "$SOCK") for a in argv], env="")
        return {"rate": float(report["rates"]["recognized"])}
    except Exception as error:  # its report format is its own: fall back to the Python driver alone
        log("legible-load cross-check skipped:", error)
        return None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cli_throughput(seconds):
    """One CLI process after another on each of `cores` threads for `seconds`: frames/s."""
    data = open(BENCH_FRAME, "rb").read()
    done = []
    stop = time.monotonic() + seconds

    def loop():
        while time.monotonic() < stop:
            tesseract_cli.recognize(data)
            done.append(time.monotonic())

    started = time.monotonic()
    threads = [threading.Thread(target=loop) for _ in range(CORES)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"rate": len(done) / (max(done) - started), "processes": CORES}


def freshness(server, capacity, seconds, frames, options, window=5.0):
    sessions = 2 * CORES
    offered = 4 * capacity
    run = OpenLoop(server, sessions, offered / sessions, seconds, frames, options).run(drain_seconds=2.0)
    windows = []
    for start, rows in run.ages(window):
        ages = [age for age, _ in rows]
        windows.append({"start_s": start, "n": len(ages), "p50_ms": percentile(ages, 50) if ages else None,
                        "p99_ms": percentile(ages, 99) if ages else None,
                        "recognize_median_ms": statistics.median(ms for _, ms in rows) if rows else None})
    # After the first window (engines loading, queues filling).
    steady = [row for start, rows in run.ages(window) if start >= window for row in rows]
    all_ages = [age for age, _ in steady]
    in_recognitions = [age / ms for age, ms in steady if ms > 0]
    waiting, oldest = run.waiting_at_end()
    return {"offered": offered, "sessions": sessions, "seconds": seconds, "windows": windows,
            "recognize_median_ms": statistics.median(run.recognize_ms) if run.recognize_ms else None,
            "age_in_recognitions_p50": percentile(in_recognitions, 50),
            "age_in_recognitions_p99": percentile(in_recognitions, 99),
            "p50_ms": percentile(all_ages, 50), "p99_ms": percentile(all_ages, 99), "counts": run.counts(),
            "waiting_at_end": waiting, "oldest_waiting_ms": oldest}


def flat(windows):
    """(flat?, last-third p99 / first-third p99) over the windows after the first."""
    rows = [w for w in windows[1:] if w["p99_ms"] is not None]
    third = max(1, len(rows) // 3)
    first = statistics.median(w["p99_ms"] for w in rows[:third])
    last = statistics.median(w["p99_ms"] for w in rows[-third:])
    return last <= 1.25 * first, last / first


def accuracy_section(binary, frames):
    """CER per case for Legible FAST/ACCURATE and the CLI (--psm 11, --psm 3)."""
    cases = []  # (group, label, config, frame key, orientation)
    for config in CONFIGS:
        for seed in SEEDS[:2] if config == "latin + devanagari" else SEEDS:
            cases.append(("script", config, config, "%s/%d" % (config, seed), 1))
    for orientation in range(1, 9):
        cases.append(("orientation", "%d %s" % (orientation, cf.ORIENTATIONS[orientation]), "latin",
                      "latin/%d" % cf.SEED, orientation))
    for key in sorted(k for k in frames if k.startswith("hard/")):
        cases.append(("hard", key[5:], "latin", key, 1))
    results = {}
    memo = {}
    models = sorted({model for _, model in CONFIGS.values()} | {"Latin"})
    note_command(["tesseract", "$TMP/tesseract-cli-XXXX.jpg", "-", "-l", "{%s}" % ",".join(models), "--psm", "{11,3}"])
    with legibled(binary, workers=1, replicas=1) as server, \
            legibled(binary, 1, 1, "--detector", "tesseract") as page_layout:
        streams = {}
        page_streams = {}
        for group, label, config, key, orientation in cases:
            image, truth = frames[key]
            stored = cf.to_stored(image, orientation)
            data = jpeg_bytes(stored)
            digest = hashlib.sha1(data).hexdigest()
            row = {"group": group, "label": label, "config": config, "key": key, "digest": digest}
            if digest in memo:
                row.update(memo[digest])
            else:
                options, model = CONFIGS[config]
                for level, name in ((pb.LEVEL_FAST, "fast"), (pb.LEVEL_ACCURATE, "accurate")):
                    if (config, level) not in streams:
                        streams[config, level] = [server.session(level=level, recognize_unchanged=True, **options), 0]
                    stream = streams[config, level]
                    stream[1] += 1
                    stream[0].send(frame_message(stream[1], data, orientation=orientation))
                    result = stream[0].receive().result
                    text = result.text.text if result.status == pb.FRAME_STATUS_RECOGNIZED else ""
                    row["legible_" + name] = bm.cer(text, truth)
                for psm in (11, 3):
                    text, _ = tesseract_cli.recognize(data, model, psm)
                    row["cli_%d" % psm] = bm.cer(text, truth)
                # Tesseract's own layout of the whole frame (the text mode before the detector).
                if config not in page_streams:
                    page_streams[config] = [page_layout.session(level=pb.LEVEL_FAST, recognize_unchanged=True,
                                                                **options), 0]
                stream = page_streams[config]
                stream[1] += 1
                stream[0].send(frame_message(stream[1], data, orientation=orientation))
                result = stream[0].receive().result
                row["legible_tesseract"] = bm.cer(result.text.text if result.status == pb.FRAME_STATUS_RECOGNIZED
                                                  else "", truth)
                memo[digest] = {k: row[k] for k in ("legible_fast", "legible_accurate", "cli_11", "cli_3",
                                                    "legible_tesseract")}
            if group == "orientation":
                # The same stored frame with EXIF tag 0x0112: does the CLI turn it? (Leptonica does not.)
                text, _ = tesseract_cli.recognize(cf.jpeg_with_exif(stored, orientation), CONFIGS[config][1], 11)
                row["cli_11_exif"] = bm.cer(text, truth)
            results.setdefault(group, []).append(row)
            log("accuracy %-11s %-22s fast %.3f accurate %.3f cli11 %.3f cli3 %.3f" % (
                group, label, row["legible_fast"], row["legible_accurate"], row["cli_11"], row["cli_3"]))
        # Public image: eurotext.png as it is (a clean scan, not a camera frame).
        eurotext = os.path.join(CACHE, "eurotext.png")
        if os.path.exists(eurotext):
            data = open(eurotext, "rb").read()
            for config, options, model in (("eng", {"scripts": [pb.SCRIPT_LATIN]}, "eng"),
                                           ("Latin (hints de, fr, it, es, pt)", {"language_hints": ["de", "fr", "it", "es", "pt"]}, "Latin")):
                row = {"group": "public", "label": "eurotext.png, " + config, "config": config}
                for level, name in ((pb.LEVEL_FAST, "fast"), (pb.LEVEL_ACCURATE, "accurate")):
                    stream = server.session(level=level, **options)
                    stream.send(frame_message(1, data, encoding=pb.ENCODING_PNG))
                    result = stream.receive().result
                    row["legible_" + name] = bm.cer(result.text.text if result.status == pb.FRAME_STATUS_RECOGNIZED else "",
                                                    EUROTEXT_TRUTH)
                    stream.close()
                for psm in (11, 3):
                    text, _ = tesseract_cli.recognize(data, model, psm, suffix=".png")
                    row["cli_%d" % psm] = bm.cer(text, EUROTEXT_TRUTH)
                results.setdefault("public", []).append(row)
                log("accuracy public %s: %s" % (config, json.dumps({k: round(v, 3) for k, v in row.items() if k.startswith(("legible", "cli"))})))
        for stream, _ in list(streams.values()) + list(page_streams.values()):
            stream.close()
    return results


# ------------------------------------------------------------------------------- report

def command_output(argv):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        return (out.stdout or out.stderr).strip()
    except Exception:
        return ""


def package_version(name):
    return command_output(["dpkg-query", "-W", "-f=${Version}", name]) or "?"


def machine():
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    mem = next((int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal")), 0)
    import tesserocr
    return {
        "cpu": cpu, "cores": CORES, "ram_gib": round(mem / 1024 / 1024, 1), "kernel": platform.release(),
        "os": command_output(["sh", "-c", ". /etc/os-release; echo $PRETTY_NAME"]),
        "tesseract": package_version("libtesseract5"), "leptonica": package_version("liblept5"),
        "libjpeg_turbo": package_version("libturbojpeg0"), "protobuf_c": package_version("libprotobuf-c1"),
        "swift": command_output(["swift", "--version"]).splitlines()[0] if command_output(["swift", "--version"]) else "?",
        "python": platform.python_version(), "tesserocr": tesserocr.__version__,
        "tesserocr_tesseract": tesserocr.tesseract_version().splitlines()[0],
        "cli": tesseract_cli.version(),
        "loadavg_start": open("/proc/loadavg").read().split()[:3],
    }


def goal(ok):
    return "**met**" if ok else "**not met**"


def fmt(value, digits=0):
    return "–" if value is None else ("%.*f" % (digits, value))


def write_report(path, r, chart_name):
    m = r["machine"]
    f1, lg, sat, cli, fifo = r["floor"], r["legible"], r["saturated"], r["cli"], r["fifo"]
    rec = f1["median_ms"]
    lines = ["# Legible benchmarks", "",
             "Written by `make bench` (`bench/run.py`) on %s in one run of %.1f minutes. **Indicative numbers:** "
             "this 2-core machine is shared with other engineers' builds and tests (load average %s at the start, "
             "%s at the end), so every figure moves between runs; ratios measured side by side matter more than "
             "absolute milliseconds." % (r["date"], r["minutes"], " ".join(m["loadavg_start"]), " ".join(r["loadavg_end"])), "",
             "**Machine:** %s, %d cores, %.1f GiB RAM, Linux %s (%s).  " % (m["cpu"], m["cores"], m["ram_gib"], m["kernel"], m["os"]),
             "**Versions:** Tesseract %s (Debian libtesseract5), Leptonica %s, libjpeg-turbo %s, protobuf-c %s, %s, "
             "Python %s, tesserocr %s built from source against %s (%s), CLI: %s." % (
                 m["tesseract"], m["leptonica"], m["libjpeg_turbo"], m["protobuf_c"], m["swift"], m["python"],
                 m["tesserocr"], m["tesserocr_tesseract"],
                 "the system's 5.3.0" if "5.3.0" in m["tesserocr_tesseract"] else "NOT the system's Tesseract",
                 m["cli"]), "",
             "Every process runs with `OMP_THREAD_LIMIT=1`. The frame for latency and throughput is "
             "`Tests/Fixtures/camera-720p.jpg` (1280×720, 5 lines); Legible sessions set "
             "`recognize_unchanged` where the same frame is resent, so nothing is SKIPPED.", ""]
    g = r["goals"]
    lines += ["## Goals", "", "Every figure is from this one run. A goal that holds in one run and not in the next is "
              "within the machine's noise: count it as not met.", "",
              "| goal | measured | ratio | target | in this run |", "|---|---|---|---|---|"]
    for row in g:
        lines.append("| %s | %s | %s | %s | %s |" % row)
    lines += ["", "## 1. The floor: the same reading in-process, no server (`legible-floor --detector`)", "",
              "| | median ms / frame | frames/s |", "|---|---|---|",
              "| one engine (%d frames in %d rounds interleaved with the one-stream runs of tables 2–3; round medians %s) | %.1f | %.2f |" % (
                  f1["runs"], len(f1["round_medians_ms"]), " / ".join("%.0f" % x for x in f1["round_medians_ms"]), rec, f1["rate"]),
              "| one engine per core (%d `legible-floor` processes at once, in the rounds of the saturated runs; mean ms per frame, so frames/s is frames over time) | %s | **%.2f** (floor throughput) |" % (
                  CORES, " / ".join("%.1f" % v for v in f1["parallel_mean_ms"]), f1["parallel_rate"]),
              "| page path: one engine per core (`legible-floor` without `--detector`: one Tesseract call per frame, PSM 11, as tesserocr-fifo makes; rounds %s) | | **%.2f** |" % (
                  " / ".join("%.2f" % x for x in r["page_floor"]["parallel_rounds"]), r["page_floor"]["parallel_rate"]),
              "| cores × one engine (the throughput goal's base) | | %.2f |" % (CORES * f1["rate"]), "",
              "When one engine per core runs slower than one engine alone, the cores were not all ours: the "
              "machine's other users took the difference.", ""]
    lines += ["## 2. Legible (`legibled --workers %d --replicas-per-script %d`)" % (CORES, CORES), "",
              "| | median ms | p99 ms | frames/s | ratio |", "|---|---|---|---|---|",
              "| one stream, end to end (%d frames, closed loop, in the floor's rounds) | %.1f | %.1f | | %.3f × floor (%.1f ms); per frame %.3f × the server's own recognize_us |" % (
                  lg["runs"], lg["median_ms"], lg["p99_ms"], lg["ratio"], lg["floor_median_ms"], lg["paired_ratio"]),
              "| saturated: %d sessions offered %.1f frames/s open loop, %d s in %d rounds (%s) | | | %.2f | %.3f × cores × floor rate; %.3f × floor throughput (same rounds) |" % (
                  sat["sessions"], sat["offered"], sat["seconds"], len(sat["rounds"]), " / ".join("%.2f" % x for x in sat["rounds"]),
                  sat["rate"], sat["rate"] / (CORES * f1["rate"]), sat["rate"] / f1["parallel_rate"])]
    sp = r["saturated_page"]
    lines.append("| saturated, page path (`--detector tesseract`, the peer's Tesseract call): offered %.1f frames/s (%s) | | | %.2f | %.3f × its floor throughput (same rounds); %.3f × tesserocr-fifo (same rounds) |" % (
        sp["offered"], " / ".join("%.2f" % x for x in sp["rounds"]), sp["rate"], sp["rate"] / r["page_floor"]["parallel_rate"],
        sp["rate"] / fifo["saturated"]["rate"]))
    if r.get("legible_load"):
        lines.append("| saturated, measured by `legible-load` (cross-check) | | | %.2f | |" % r["legible_load"]["rate"])
    lines += ["", "Saturated, Legible's engines spent %.0f %% of the time recognizing (Σ `recognize_us` of the results answered in "
              "the window / (%d engines × the window); a recognition begun before the window can push it past 100 %%); "
              "tesserocr-fifo's %.0f %%.%s" % (
                  100 * sat["busy"], CORES, 100 * fifo["saturated"]["busy"],
                  " Both keep their engines busy: what separates their frames/s is how fast one recognition ran on the "
                  "CPU each got." if min(sat["busy"], fifo["saturated"]["busy"]) >= 0.9 else ""),
              "", "One stream, the server's own `Timing` (medians): decode %.1f ms, recognize %.1f ms, total (received → "
              "result written) %.1f ms; the rest of the end-to-end time is the socket, protobuf and the Python client." % (
                  lg["server_decode_ms"], lg["server_recognize_ms"], lg["server_total_ms"]),
              "Saturated counts (all rounds): %s." % ", ".join("%s %d" % kv for kv in sat["counts"].items()), ""]
    lines += ["## 3. The peers", "",
              "| peer | median ms / frame (one stream) | p99 ms | frames/s saturated | vs Legible |", "|---|---|---|---|---|",
              "| tesseract CLI per frame (`tesseract in.jpg - -l eng --psm 11`; %d frames in the rounds of table 1; %d processes at once for 15 s for throughput) | %.1f | %.1f | %.2f | %.2f× Legible's throughput |" % (
                  cli["runs"], cli["processes"], cli["median_ms"], cli["p99_ms"], cli["rate"], cli["rate"] / sat["rate"]),
              "| tesserocr-fifo (%d engines, FIFO queue, one Tesseract call per frame; one stream in the rounds of table 1; saturated with the same sessions as Legible, offered 4× the page floor, in the same rounds: %s) | %.1f | %.1f | %.2f | %.2f× Legible's line path; %.2f× Legible's page path (the same Tesseract call) |" % (
                  CORES, " / ".join("%.2f" % x for x in fifo["saturated"]["rounds"]), fifo["median_ms"], fifo["p99_ms"],
                  fifo["saturated"]["rate"], fifo["saturated"]["rate"] / sat["rate"],
                  fifo["saturated"]["rate"] / r["saturated_page"]["rate"]),
              "| Legible, for comparison | %.1f | %.1f | %.2f | |" % (lg["median_ms"], lg["p99_ms"], sat["rate"]), "",
              "tesserocr-fifo saturated counts: %s." % ", ".join("%s %d" % kv for kv in fifo["saturated"]["counts"].items()), ""]
    fr = r["freshness"]
    L, F = fr["legible"], fr["fifo"]
    lines += ["## 4. Freshness at 4× capacity", "",
              "%d streams offer 4× each server's measured saturated throughput (Legible %.1f frames/s, tesserocr-fifo %.1f "
              "frames/s) for %d s, cycling %d distinct camera scenes. Result age = frame sent → its result received, "
              "RECOGNIZED results only, per 5 s window by the time the result arrived. One recognition: the floor's %.0f ms "
              "on a quiet engine; during this run Legible's own `Timing.recognize_us` had a median of %.0f ms (two engines "
              "sharing the cores with the client, the peer's idle process and the machine's other users). Measured in each "
              "result's own recognition time (age / its `recognize_us`, windows after the first): Legible p50 %.2f, p99 %.2f; "
              "tesserocr-fifo p50 %.1f, p99 %.1f." % (
                  L["sessions"], L["offered"], F["offered"], L["seconds"], fr["distinct_frames"], rec, L["recognize_median_ms"],
                  L["age_in_recognitions_p50"], L["age_in_recognitions_p99"], F["age_in_recognitions_p50"],
                  F["age_in_recognitions_p99"]), "",
              "![result age over time](%s)" % chart_name, "",
              "| window (s) | Legible n | Legible p50 ms | Legible p99 ms | Legible recognize ms (median) | FIFO n | FIFO p50 ms | FIFO p99 ms | FIFO recognize ms (median) |",
              "|---|---|---|---|---|---|---|---|---|"]
    for a, b in zip(L["windows"], F["windows"]):
        lines.append("| %d–%d | %d | %s | %s | %s | %d | %s | %s | %s |" % (
            a["start_s"], a["start_s"] + 5, a["n"], fmt(a["p50_ms"]), fmt(a["p99_ms"]), fmt(a["recognize_median_ms"]),
            b["n"], fmt(b["p50_ms"]), fmt(b["p99_ms"]), fmt(b["recognize_median_ms"])))
    lines += ["", "Legible: %s; waiting unanswered when sending stopped: %d. tesserocr-fifo: %s; frames still queued "
              "when sending stopped: %d, the oldest %.1f s old (they are never read: the clients disconnect)." % (
                  ", ".join("%s %d" % kv for kv in L["counts"].items()), L["waiting_at_end"],
                  ", ".join("%s %d" % kv for kv in F["counts"].items()), F["waiting_at_end"], F["oldest_waiting_ms"] / 1000), ""]
    acc = r["accuracy"]
    lines += ["## 5. Accuracy (CER, lower is better)", "",
              "Legible gets each frame as a JPEG with `Frame.orientation`; the tesseract CLI gets the same stored JPEG "
              "as a pytesseract user would pass it, with the same model as Legible's engine (`-l`), at `--psm 11` (the "
              "peer) and at `--psm 3` (the CLI's default). The CLI is told nothing of the orientation: a phone's JPEG "
              "usually carries it in EXIF, but Leptonica (hence the CLI) ignores the EXIF tag: the last column of the "
              "orientation table sends the frame with the tag, and the CLI reads it no better. Goals compare Legible with the better of the two CLI runs. CER: Levenshtein distance / truth "
              "length after `bench/models.py`'s normalisation (NFC, one space between words, none between Han/kana).", "",
              "### Per script (generated camera scenes, `script_scene` and `mixed_scene`; mean over %d seeds, 2 for the mixed scene)" % len(SEEDS), "",
              "| script | CLI model | Legible FAST | Legible ACCURATE | CLI --psm 11 | CLI --psm 3 | FAST, `--detector tesseract` |",
              "|---|---|---|---|---|---|---|"]
    for config, rows in group_by(acc["script"], "config"):
        lines.append("| %s | `%s` | %.3f | %.3f | %.3f | %.3f | %s |" % ((config, CONFIGS[config][1]) + means(rows) + (page_mean(rows),)))
    lines += ["", "### Per EXIF orientation (the Latin scene, seed %d, stored as `to_stored(upright, orientation)`)" % cf.SEED, "",
              "| orientation | Legible FAST | Legible ACCURATE | CLI --psm 11 | CLI --psm 3 | CLI --psm 11, JPEG with the EXIF tag | FAST, `--detector tesseract` |",
              "|---|---|---|---|---|---|---|"]
    for row in acc["orientation"]:
        lines.append("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s |" % ((row["label"],) + means([row]) + (row["cli_11_exif"], page_mean([row]))))
    lines += ["", "### Hard camera frames (`bench/models.py` `hard_frames()`, eng)", "",
              "| frame | Legible FAST | Legible ACCURATE | CLI --psm 11 | CLI --psm 3 | FAST, `--detector tesseract` |",
              "|---|---|---|---|---|---|"]
    for row in acc["hard"]:
        lines.append("| %s | %.3f | %.3f | %.3f | %.3f | %s |" % ((row["label"],) + means([row]) + (page_mean([row]),)))
    lines += ["", "### Camera frames overall (each distinct frame once)", "",
              "| set | frames | Legible FAST | Legible ACCURATE | CLI --psm 11 | CLI --psm 3 | FAST, `--detector tesseract` |",
              "|---|---|---|---|---|---|---|"]
    for name, rows in r["overall_sets"]:
        lines.append("| %s | %d | %.3f | %.3f | %.3f | %.3f | %s |" % ((name, len(rows)) + means(rows) + (page_mean(rows),)))
    lines += ["", "### Public images", ""]
    if acc.get("public"):
        lines += ["Real public images with ground truth already on this machine: none in Debian's packages (the "
                  "`tesseract-ocr` packages ship no test images) or in the installed Python packages. The one used here is "
                  "Tesseract's `eurotext.png` (1024×800, a clean 1-bit-looking scan of 12 lines in English, German, French, "
                  "Italian, Spanish and Portuguese), shipped as `tests/eurotext.png` in the tesserocr 2.13.0 source "
                  "distribution that `bench/peers/setup.sh` downloads to build the peer. It has no truth file; the truth is "
                  "a transcription read off the image by eye (in `bench/run.py`). It is a scan, not a camera frame, so it "
                  "is not in the camera totals; it is sent as the PNG it is.", "",
                  "| image, model | Legible FAST | Legible ACCURATE | CLI --psm 11 | CLI --psm 3 |", "|---|---|---|---|---|"]
        for row in acc["public"]:
            lines.append("| %s | %.3f | %.3f | %.3f | %.3f |" % ((row["label"],) + means([row])))
    else:
        lines.append("No real public image with ground truth was found on this machine; none is used.")
    if r.get("corpus"):
        rows = r["corpus"]
        lines += ["", "## 6. Real images (`bench/corpus`: public images with hand-made truth)", "",
                  "Each image once, as the file is, to the tesseract CLI (`tesseract IMG - -l MODEL`, its defaults), "
                  "`legibled --detector tesseract` FAST (the whole-frame read) and `legibled` FAST and ACCURATE (the line "
                  "detector). The images are split by a hash of their id into a tune part (a third, plus the images "
                  "looked at during development) and a held-out part that no choice was made on; CER as above "
                  "(`bench/corpus_accuracy.py`, `make bench-corpus`).", ""]
        for part in ("held-out", "tune"):
            subset = [row for row in rows if row["part"] == part]
            if subset:
                lines += [corpus.table(subset, corpus.SYSTEMS, "kind", "CER per kind, %s part (%d images)" % (part, len(subset))),
                          corpus.table(subset, corpus.SYSTEMS, "script", "CER per script, %s part" % part)]
    if r.get("tilt"):
        lines += ["", "## 7. Tilted lines and text-free frames (`bench/tilt_and_clutter.py`, `make bench-tilt`)", "",
                  "1280×720 frames of 4 lines turned by −30…30° (5 seeds each): a truth line counts when one returned line's "
                  "corner points overlap its turned ink box by IoU ≥ 0.5, and is read when that line's CER is under 0.2. "
                  "Then 28 text-free frames (noise, gradients, stripes, bricks, leaves, tiles, wood). FAST, one worker.", ""]
        lines += tilt.report_lines(r["tilt"])
    if r.get("vertical"):
        lines += ["", "## 8. Vertical columns (`bench/vertical_columns.py`, `make bench-vertical`)", "",
                  "Generated frames of 2–4 columns of Chinese or Japanese (Noto Sans/Serif CJK, 36–56 px, light uneven "
                  "ground, slight blur), read top to bottom, columns right to left; seeds 100–119, which no choice was "
                  "made on (0–9 were looked at). FAST, one worker: Chinese columns are read by PP-OCR's recognizer, "
                  "Japanese ones by Tesseract's `jpn_vert`. Before this reading, every such frame read as nothing or "
                  "noise (CER 1.000 on seeds 0–9).", ""]
        lines += vertical.report_lines(r["vertical"])
    if r.get("scripts"):
        lines += ["", "## 9. Scripts line by line (`bench/script_lines.py`, `make bench-scripts`)", "",
                  "Generated two-script signs (a line of each script in turn) and each script's own scene, seeds "
                  "100–104 (none looked at while the routing was written). *named*: the session names the frame's "
                  "scripts, each line read by its script's engine; *auto*: no script named, "
                  "`automatically_detect_script`; *auto, a stream's 2nd frame*: the same frame sent again in that "
                  "session, first read by the script that read most lines of the first (a camera stream's case). "
                  "A truth line's script is right when the returned line reading it "
                  "best (CER ≤ 0.2) names it (`TextLine.script`). ms: the server's recognition time, median. FAST, one "
                  "worker.", ""]
        lines += script_lines.report_lines(r["scripts"])
        lines += ["", "The engine pool when sessions flip between scripts: every script alone, every pair and automatic "
                  "detection, twice, each session reading a Latin + Devanagari and a Japanese + Latin sign "
                  "(`--replicas-per-script 1`, one worker; memory of legibled and its engine worker processes, PSS):", ""]
        lines += script_lines.memory_lines(r["scripts"]["memory"])
        if r["scripts"].get("thousand"):
            lines += ["", "The engine pool under 1,000 sessions (`bench/pool_memory.py`, `make bench-pool`): "
                      "legible-load's 1,000 sessions at 1 fps for 30 s (ramped up over 15 s, max_frame_age_ms 2000), "
                      "their scripts round-robin from every single script, every pair and automatic detection, "
                      "each a kiosk on one still sign with a Latin, a Devanagari, a Japanese and a Korean line "
                      "(`--workers 2 --replicas-per-script 1`; PSS of legibled and its engine workers, sampled "
                      "every second). The load offers far more than 2 cores read: most frames are dropped as "
                      "stale, and the sessions read are the measure of what got through.", ""]
            lines += [pool_memory.header(1000), pool_memory.row("this build", r["scripts"]["thousand"])]
    if r.get("isolation"):
        iso = r["isolation"]
        lines += ["", "## 10. Engines in worker processes (`bench/side_by_side.py`, `make bench-isolation`)", "",
                  "The same legibled with `--engine-isolation process` (the default: each engine's pipeline in a "
                  "worker process, frames through shared memory) and `--engine-isolation none` (engines on threads "
                  "of the server's process), both servers up at once. One stream: the 720p fixture to each in turn, "
                  "%d frames each, the median of the per-pair ratios. Saturated: %d pairs of 8 s windows, 4 sessions "
                  "offered ~47 frames/s, after a warm-up that loads every replica; the server's CPU (its threads and "
                  "its workers') per recognized frame; the medians of the pairs' ratios." % (
                      ISOLATION_RUNS, ISOLATION_PAIRS), "",
                  "| measure | in the server's process | in worker processes | workers / in process |",
                  "|---|---:|---:|---:|"]
        for key, label in (("one_stream_ms", "one stream, ms (median)"), ("saturated_paired_fps", "saturated, frames/s"),
                           ("saturated_paired_cpu_ms", "CPU per recognized frame, ms")):
            lines.append("| %s | %.2f | %.2f | %.3f |" % (label, iso[key]["before"], iso[key]["after"],
                                                         iso[key]["after/before"]))
    if r.get("grpc"):
        lines += ["", "## 11. Stock gRPC against the framed protocol (`bench/grpc_overhead.py`, `make bench-grpc`)", ""]
        lines += grpc_report_lines(r["grpc"])
    lines += ["", "## Commands", "", "```"] + COMMANDS + ["```", "",
              "`make bench` = `bench/peers/setup.sh` (idempotent: apt packages, tesserocr built from source) + "
              "`swift build -c release` + `python3 bench/run.py`. The older targets still run alone: `make bench-overhead` "
              "(one stream against the floor; superseded by tables 1–2), `make bench-imaging` (decode/orient cost per "
              "encoding) and `make bench-models` (model choice per script, ~15 min). Raw numbers of this run: "
              "`bench/out/bench.json` (not committed).", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


ISOLATION_PAIRS, ISOLATION_RUNS = 8, 40


def isolation_cost(binary):
    """What keeping the engines in worker processes costs (the default, --engine-isolation
    process, against none), side by side with both servers up: one stream's per-pair latency
    ratio, and saturated frames/s and CPU per recognized frame in paired windows
    (bench/side_by_side.py, the paired measures of make bench-isolation)."""
    path = os.path.join(OUT, "isolation-bench.json")
    argv = [sys.executable, os.path.join(HERE, "side_by_side.py"), "--before", binary, "--before-flags",
            "--engine-isolation none", "--after", binary, "--after-flags", "--engine-isolation process",
            "--rounds", "0", "--pairs", str(ISOLATION_PAIRS), "--runs", str(ISOLATION_RUNS), "--json", path]
    subprocess.run(argv, env=ENV, check=True, stdout=subprocess.DEVNULL)
    note_command(["python3"] + [os.path.relpath(x, ROOT) if x.startswith(ROOT) else x for x in argv[1:]])
    with open(path) as f:
        return json.load(f)["summary"]


def grpc_cost(binary):
    """Stock gRPC over HTTP/2 against the framed protocol on one legibled, same frames, in
    alternating rounds, in cleartext (Unix socket) and under TLS (loopback TCP): one stream's
    median ms, saturated frames/s, result age under 4x overload (bench/grpc_overhead.py, the
    measures of make bench-grpc)."""
    path = os.path.join(OUT, "grpc-bench.json")
    argv = [sys.executable, os.path.join(HERE, "grpc_overhead.py"), "--legibled", binary, "--json", path]
    subprocess.run(argv, env=ENV, check=True, stdout=subprocess.DEVNULL)
    note_command(["python3"] + [os.path.relpath(x, ROOT) if x.startswith(ROOT) else x for x in argv[1:]])
    with open(path) as f:
        return json.load(f)


def grpc_ratios(g):
    """gRPC / framed for each measure, cleartext and TLS: {(measure, suffix): (grpc, framed, ratio)}."""
    out = {}
    for suffix in ("", "+tls"):
        for measure in ("one_stream_ms", "saturated_fps", "saturated_server_cpu_ms", "saturated_client_cpu_ms"):
            table = g[measure]
            out[(measure, suffix)] = (table["grpc" + suffix], table["framed" + suffix],
                                      table["grpc" + suffix] / table["framed" + suffix])
        for measure in ("result_age_p50_ms", "result_age_p99_ms"):
            grpc_age, framed_age = g["overload"]["grpc" + suffix][measure], g["overload"]["framed" + suffix][measure]
            out[(measure, suffix)] = (grpc_age, framed_age, grpc_age / framed_age)
    return out


def grpc_report_lines(g):
    ratios = grpc_ratios(g)
    lines = ["One legibled (`--workers 2 --replicas-per-script 2`) serves both protocols on a Unix socket and, under "
             "TLS, on loopback TCP. One stream: a session of each of the four clients open at once, the 720p fixture "
             "sent to each in turn and its answer awaited, %d frames per run (the turn's order rotating every frame, "
             "so frame i of gRPC and of framed meet the same load and pair up), in %d rounds; saturated: 4 sessions of a "
             "client, kept open, in a closed loop for a %.0f s window (the frames in flight at its end answered "
             "before the next window opens), the four clients' windows in turn, %d cycles (the order reversed each "
             "cycle): frames answered per second and the server's CPU per answered frame; both with grpcio's "
             "`Recognizer/Stream` call against the framed Python client. Medians over rounds and windows, and the "
             "medians of the ratios paired in time (frame i; a cycle's windows), which the machine's drifting load "
             "moves least: the goals are judged on those. Overload: `legible-load --transport framed|grpc`, "
             "%d sessions offered 4× the saturated framed rate open loop for %.0f s, in %d alternating rounds: result "
             "age (sent → result received) p50 and p99, medians over rounds, and the medians of each round's "
             "gRPC / framed ratio (a gRPC round paired with the framed round beside it). The Python clients run on the same "
             "2 cores as the server, so what a client spends per frame shows in its saturated rate: the server's "
             "CPU per answered frame (its threads and engine workers, from /proc) is the measure the clients do "
             "not move." % (
                 g["frames"], g["rounds"], g["window_seconds"], g["windows"], 2 * CORES, g["overload_seconds"],
                 g["overload_rounds"]), "",
             "| measure | framed | gRPC | gRPC / framed | framed, TLS | gRPC, TLS | gRPC / framed, TLS |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for measure, label, form in (("one_stream_ms", "one stream, ms (median)", "%.1f"),
                                 ("saturated_fps", "saturated, frames/s", "%.2f"),
                                 ("saturated_server_cpu_ms", "saturated: the server's CPU per answered frame, ms", "%.1f"),
                                 ("saturated_client_cpu_ms", "saturated: the Python client's CPU per answered frame, ms",
                                  "%.1f"),
                                 ("result_age_p50_ms", "overload 4×: result age p50, ms", "%.0f"),
                                 ("result_age_p99_ms", "overload 4×: result age p99, ms", "%.0f")):
        clear, tls = ratios[(measure, "")], ratios[(measure, "+tls")]
        lines.append("| %s | %s | %s | %.3f | %s | %s | %.3f |" % (
            label, form % clear[1], form % clear[0], clear[2], form % tls[1], form % tls[0], tls[2]))
    o = g["one_stream_outside_server_ms"]
    lines.append("| one stream: ms per frame outside the server's `Timing.total_us` (client, framing, socket) "
                 "| %.2f | %.2f | | %.2f | %.2f | |" % (o["framed"], o["grpc"], o["framed+tls"], o["grpc+tls"]))
    for key, label in (("overload_paired_ratio_result_age_p50_ms",
                        "overload 4×: result age p50, median of the paired rounds' ratios"),
                       ("overload_paired_ratio_result_age_p99_ms",
                        "overload 4×: result age p99, median of the paired rounds' ratios"),
                       ("one_stream_paired_ratio", "one stream: median of the paired frames' ratios"),
                       ("saturated_paired_fps_ratio", "saturated frames/s: median of the paired windows' ratios"),
                       ("saturated_paired_server_cpu_ratio",
                        "saturated, the server's CPU per frame: median of the paired windows' ratios")):
        lines.append("| %s | | | %.3f | | | %.3f |" % (label, g[key]["grpc"], g[key]["grpc+tls"]))
    if g.get("transport"):
        t = g["transport"]
        lines += ["", "The transports alone: the same one-stream rounds and saturated windows (1 s) against a legibled "
                  "whose engines answer at once (`--calibration-delay-ms 0`; the frame is still read, deframed and "
                  "decoded), so a difference between two clients is the transport's own cost, without Tesseract's "
                  "noise. Saturated frames/s here is bound by the Python clients' own CPU (grpcio's is the larger).",
                  "", "| transport alone | framed | gRPC | gRPC − framed | framed, TLS | gRPC, TLS | gRPC − framed, TLS |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for measure, label, form in (("one_stream_ms", "one stream, ms per frame (median)", "%.2f"),
                                     ("saturated_server_cpu_ms", "saturated: the server's CPU per frame, ms", "%.2f"),
                                     ("saturated_fps", "saturated, frames/s", "%.0f")):
            m = t[measure]
            signed = "%+" + form[1:]
            lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                label, form % m["framed"], form % m["grpc"], signed % (m["grpc"] - m["framed"]),
                form % m["framed+tls"], form % m["grpc+tls"], signed % (m["grpc+tls"] - m["framed+tls"])))
    lines.append("")
    for name in ("framed", "grpc", "framed+tls", "grpc+tls"):
        counts = g["overload"][name]["counts"]
        lines.append("Overload counts, %s (all rounds): %s.  " % (name, ", ".join(
            "%s %d" % (key, counts[key]) for key in ("sent", "recognized", "dropped", "skipped", "failed", "unanswered"))))
    return lines


def grpc_goals(g):
    """The issue's goals, judged on the ratios paired in time (frame i of each client one after
    the other; a cycle's saturated windows), beside the medians they come from."""
    goals = []
    for (measure, suffix), (grpc_value, framed_value, ratio) in grpc_ratios(g).items():
        where = " under TLS" if suffix else ""
        if measure == "one_stream_ms":
            paired = g["one_stream_paired_ratio"]["grpc" + suffix]
            goals.append(("gRPC%s: one stream, gRPC / framed ms per frame, median of paired frames" % where,
                          "medians %.1f / %.1f ms (%.3f)" % (grpc_value, framed_value, ratio), "%.3f" % paired,
                          "≤ 1.03", goal(paired <= 1.03)))
        elif measure == "saturated_fps":
            paired = g["saturated_paired_fps_ratio"]["grpc" + suffix]
            goals.append(("gRPC%s: saturated, gRPC / framed frames/s, median of paired windows" % where,
                          "medians %.2f / %.2f frames/s (%.3f)" % (grpc_value, framed_value, ratio), "%.3f" % paired,
                          "≥ 0.97", goal(paired >= 0.97)))
        elif measure == "saturated_server_cpu_ms":
            paired = g["saturated_paired_server_cpu_ratio"]["grpc" + suffix]
            goals.append(("gRPC%s: saturated, the server's CPU per answered frame, gRPC / framed, paired windows" % where,
                          "medians %.1f / %.1f ms (%.3f)" % (grpc_value, framed_value, ratio), "%.3f" % paired,
                          "≤ 1.03", goal(paired <= 1.03)))
        elif measure == "result_age_p99_ms":
            # "Unchanged" within the machine's noise: the p99 result age no more than 5 % above framed's.
            paired = g["overload_paired_ratio_result_age_p99_ms"]["grpc" + suffix]
            goals.append(("gRPC%s: result age p99 at 4× overload, gRPC / framed, median of paired rounds" % where,
                          "medians %.0f / %.0f ms (%.3f)" % (grpc_value, framed_value, ratio), "%.3f" % paired,
                          "≤ 1.05", goal(paired <= 1.05)))
    if g.get("transport"):
        t = g["transport"]
        for suffix in ("", "+tls"):
            where = " under TLS" if suffix else ""
            extra = t["saturated_server_cpu_ms"]["grpc" + suffix] - t["saturated_server_cpu_ms"]["framed" + suffix]
            real = g["saturated_server_cpu_ms"]["framed" + suffix]
            goals.append(("(context) gRPC%s, the transport alone (calibration engine): the server's extra CPU per "
                          "frame over a real frame's" % where, "%+.2f / %.1f ms" % (extra, real),
                          "%.4f" % (extra / real), "–", "not a goal"))
    return goals


def sum_counts(rows):
    return {k: sum(row[k] for row in rows) for k in rows[0]}


def group_by(rows, key):
    out = {}
    for row in rows:
        out.setdefault(row[key], []).append(row)
    return list(out.items())


def page_mean(rows):
    """Mean CER of `legibled --detector tesseract` FAST (the text mode before the line detector)."""
    values = [r["legible_tesseract"] for r in rows if "legible_tesseract" in r]
    return "%.3f" % statistics.mean(values) if values else "—"


def means(rows):
    return tuple(statistics.mean(r[k] for r in rows) for k in ("legible_fast", "legible_accurate", "cli_11", "cli_3"))


def chart(path, fr, recognition_ms):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    for name, data, colour in (("Legible", fr["legible"], "tab:blue"), ("tesserocr-fifo", fr["fifo"], "tab:red")):
        xs = [w["start_s"] + 2.5 for w in data["windows"] if w["p50_ms"] is not None]
        ax.plot(xs, [w["p50_ms"] for w in data["windows"] if w["p50_ms"] is not None], "-o", color=colour, ms=3,
                label=name + " p50")
        ax.plot(xs, [w["p99_ms"] for w in data["windows"] if w["p99_ms"] is not None], "--s", color=colour, ms=3,
                label=name + " p99")
    ax.axhline(2.2 * recognition_ms, color="grey", lw=0.8, ls=":", label="2.2 × one recognition (the floor)")
    ax.set_yscale("log")
    ax.set_xlabel("time since the streams started (s), 5 s windows")
    ax.set_ylabel("result age (ms, log scale)")
    ax.set_title("Result age at 4× capacity (%d streams)" % fr["legible"]["sessions"])
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


# ------------------------------------------------------------------------------- main

def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--legibled", default=os.path.join(ROOT, ".build", "release", "legibled"))
    p.add_argument("--floor", default=os.path.join(ROOT, ".build", "release", "legible-floor"))
    p.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    p.add_argument("--runs", type=int, default=40, help="frames per latency measurement")
    p.add_argument("--saturated-s", type=float, default=30, help="per server, split in 6 rounds")
    p.add_argument("--freshness-s", type=float, default=60)
    p.add_argument("--cli-runs", type=int, default=16)
    a = p.parse_args()
    started = time.monotonic()
    os.makedirs(OUT, exist_ok=True)
    r = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "machine": machine()}
    freshness_seeds = [cf.SEED + k for k in (0, 11, 23, 3, 5, 7, 13, 17)]
    frames = generated_frames(freshness_seeds)

    log("1-3. one stream: the floor, Legible, tesserocr-fifo and the CLI in alternating rounds")
    single = one_stream(a.legibled, a.floor, a.runs, a.cli_runs)
    log(json.dumps(single))
    r["legible"], r["fifo"], r["cli"] = single["legible"], single["fifo"], single["cli"]
    # One recognition: the floor's median over the rounds.
    rec = single["floor"]["median_ms"]
    r["floor"] = dict(single["floor"], rate=1000 / rec)
    capacity = CORES * r["floor"]["rate"]

    log("2. saturated: the floor per core, Legible and tesserocr-fifo in alternating rounds")
    # Short rounds, the order reversed every other round, so that the load of the machine's other
    # users falls on the floor, Legible and the peer alike. Each session offers the floor rate of
    # two engines (4x capacity in all), so every session has a frame waiting at every moment.
    # Two comparisons of the same work: the line path (Legible's default) against the floor with
    # --detector; the page path (`--detector tesseract`: the one Tesseract call per frame that
    # tesserocr-fifo makes) against the floor without it and the peer.
    rounds = 6
    seconds = a.saturated_s / rounds
    offered = 4 * capacity
    page_rec = json.loads(subprocess.run([a.floor, "--repeat", "3", "--warmup", "1", BENCH_FRAME], env=ENV,
                                         capture_output=True, text=True, check=True).stdout)["median_ms"]
    page_offered = 4 * CORES * 1000 / page_rec
    parallel, page_parallel, legible_rates, page_rates, fifo_rates = [], [], [], [], []
    r["saturated_counts"] = {"legible": [], "page": [], "fifo": []}
    legible_busy, fifo_busy = [], []
    parallel_runs = max(5, int(seconds * 1000 / rec))
    with legibled(a.legibled) as server, legibled(a.legibled, CORES, CORES, "--detector", "tesseract") as page, \
            fifo_peer() as peer:
        # Not counted: each server loads its second engine (one per core) at its first burst,
        # which would otherwise fall in the first round.
        saturated(server, offered, 3, 1, {"recognize_unchanged": True})
        saturated(page, page_offered, 3, 1, {"recognize_unchanged": True})
        for round_ in range(rounds):
            def run_floor():
                parallel.append(floor_parallel(a.floor, parallel_runs))

            def run_page_floor():
                page_parallel.append(floor_parallel(a.floor, max(5, int(seconds * 1000 / page_rec)), detector=False))

            def run_legible():
                out = saturated(server, offered, seconds, 1, {"recognize_unchanged": True})
                legible_rates.append(out["rate"])
                legible_busy.append(out["busy"])
                r["saturated_counts"]["legible"].append(out["counts"])

            def run_page():
                out = saturated(page, page_offered, seconds, 1, {"recognize_unchanged": True})
                page_rates.append(out["rate"])
                r["saturated_counts"]["page"].append(out["counts"])

            def run_fifo():
                out = saturated(peer, page_offered, seconds, 1, {})
                fifo_rates.append(out["rate"])
                fifo_busy.append(out["busy"])
                r["saturated_counts"]["fifo"].append(out["counts"])
                time.sleep(1.0)  # the peer skips the frames its disconnected clients left queued

            for step in (run_floor, run_legible, run_page_floor, run_page, run_fifo)[::1 if round_ % 2 == 0 else -1]:
                step()
            log("round %d: line: floor x%d %.2f, Legible %.2f | page: floor x%d %.2f, Legible %.2f, fifo %.2f frames/s" % (
                round_ + 1, CORES, parallel[-1][0], legible_rates[-1], CORES, page_parallel[-1][0], page_rates[-1],
                fifo_rates[-1]))
        r["legible_load"] = legible_load_crosscheck(a.legibled, server, offered, 2 * seconds)
    r["floor"]["parallel_rate"] = statistics.mean(p[0] for p in parallel)
    r["floor"]["parallel_mean_ms"] = [statistics.mean(p[1][i] for p in parallel) for i in range(CORES)]
    r["page_floor"] = {"median_ms": page_rec, "parallel_rate": statistics.mean(p[0] for p in page_parallel),
                       "parallel_rounds": [p[0] for p in page_parallel]}
    r["saturated"] = {"rate": statistics.mean(legible_rates), "rounds": legible_rates, "offered": offered,
                      "busy": statistics.mean(legible_busy),
                      "sessions": 2 * CORES, "seconds": a.saturated_s, "counts": sum_counts(r["saturated_counts"]["legible"])}
    r["saturated_page"] = {"rate": statistics.mean(page_rates), "rounds": page_rates, "offered": page_offered,
                           "counts": sum_counts(r["saturated_counts"]["page"])}
    log(json.dumps(r["floor"]), json.dumps(r["saturated"]), json.dumps(r["saturated_page"]))

    log("3. tesseract CLI throughput")
    r["cli"].update(cli_throughput(15))
    log(json.dumps(r["cli"]))
    r["fifo"].update({"saturated": {"rate": statistics.mean(fifo_rates), "rounds": fifo_rates, "busy": statistics.mean(fifo_busy),
                               "counts": sum_counts(r["saturated_counts"]["fifo"])}})
    log(json.dumps(r["fifo"]))

    log("4. freshness at 4x capacity")
    fresh = [jpeg_bytes(frames["latin/%d" % seed][0]) for seed in freshness_seeds]
    r["freshness"] = {"distinct_frames": len(fresh)}
    with legibled(a.legibled) as server:
        r["freshness"]["legible"] = freshness(server, r["saturated"]["rate"], a.freshness_s, fresh, {"recognize_unchanged": True})
    log("legible", json.dumps({k: v for k, v in r["freshness"]["legible"].items() if k != "windows"}))
    with fifo_peer() as server:
        r["freshness"]["fifo"] = freshness(server, r["fifo"]["saturated"]["rate"], a.freshness_s, fresh, {})
    log("fifo", json.dumps({k: v for k, v in r["freshness"]["fifo"].items() if k != "windows"}))
    chart_name = os.path.splitext(os.path.basename(a.out))[0] + "-freshness.png"
    chart(os.path.join(os.path.dirname(os.path.abspath(a.out)), chart_name), r["freshness"], rec)

    log("5. accuracy")
    r["accuracy"] = accuracy_section(a.legibled, frames)

    log("6. the real-image corpus (bench/corpus)")
    entries = corpus.load_corpus()
    r["corpus"] = corpus.measure(entries, a.legibled, corpus.SYSTEMS, lambda line: log("corpus", line))
    log("7. tilted lines and text-free frames")
    r["tilt"] = tilt.measure_both(a.legibled, pb.LEVEL_FAST, log)
    log("8. vertical columns")
    r["vertical"] = [vertical.measure(a.legibled, script, vertical.seeds("100-119")) for script in ("chinese", "japanese")]
    log("9. scripts line by line")
    r["scripts"] = script_lines.measure(a.legibled, script_lines.seeds("100-104"), lambda line: log("scripts", line))
    r["scripts"]["memory"] = script_lines.pool_memory(a.legibled, log=lambda line: log("scripts", line))
    r["scripts"]["thousand"] = pool_memory.measure(
        a.legibled, os.path.join(os.path.dirname(a.legibled), "legible-load"), os.path.join(OUT, "pool"))

    log("10. engines in worker processes against engines in the server's process")
    r["isolation"] = isolation_cost(a.legibled)
    log(json.dumps(r["isolation"]))

    log("11. stock gRPC against the framed protocol")
    r["grpc"] = grpc_cost(a.legibled)

    # Overall camera sets: each distinct frame (by its bytes) once.
    def distinct(rows):
        seen, out = set(), []
        for row in rows:
            if row["digest"] not in seen:
                seen.add(row["digest"])
                out.append(row)
        return out
    acc = r["accuracy"]
    everything = distinct(acc["script"] + acc["orientation"] + acc["hard"])
    upright = distinct(acc["script"] + acc["orientation"][:1] + acc["hard"])
    r["overall_sets"] = [("all generated camera frames", everything),
                         ("upright only (no turned orientations)", upright)]

    # Goals.
    L, sat, fifo = r["legible"], r["saturated"], r["fifo"]
    goals = []
    goals.append(("overhead: one stream, Legible median / floor median", "%.1f / %.1f ms" % (L["median_ms"], L["floor_median_ms"]),
                  "%.3f" % L["ratio"], "≤ 1.03", goal(L["ratio"] <= 1.03)))
    goals.append(("overhead, paired per frame: end to end / the server's own recognize_us (load-independent)",
                  "%.1f / %.1f ms (medians)" % (L["median_ms"], L["server_recognize_ms"]), "%.3f" % L["paired_ratio"],
                  "≤ 1.03", goal(L["paired_ratio"] <= 1.03)))
    t_ratio = sat["rate"] / capacity
    goals.append(("throughput: saturated / (cores × one-engine floor rate)", "%.2f / %.2f frames/s" % (sat["rate"], capacity),
                  "%.3f" % t_ratio, "≥ 0.95", goal(t_ratio >= 0.95)))
    f_ratio = sat["rate"] / fifo["saturated"]["rate"]
    p_ratio = sat["rate"] / r["floor"]["parallel_rate"]
    goals.append(("throughput: saturated / floor throughput measured in the same rounds (%d processes)" % CORES,
                  "%.2f / %.2f frames/s" % (sat["rate"], r["floor"]["parallel_rate"]), "%.3f" % p_ratio, "≥ 0.95", goal(p_ratio >= 0.95)))
    sp = r["saturated_page"]
    pp_ratio = sp["rate"] / r["page_floor"]["parallel_rate"]
    goals.append(("throughput, page path (`--detector tesseract`): saturated / its floor throughput, same rounds",
                  "%.2f / %.2f frames/s" % (sp["rate"], r["page_floor"]["parallel_rate"]), "%.3f" % pp_ratio, "≥ 0.95",
                  goal(pp_ratio >= 0.95)))
    pf_ratio = sp["rate"] / fifo["saturated"]["rate"]
    goals.append(("throughput: Legible / tesserocr-fifo, the same Tesseract call per frame (page path), same rounds",
                  "%.2f / %.2f frames/s" % (sp["rate"], fifo["saturated"]["rate"]), "%.3f" % pf_ratio, "≥ 1", goal(pf_ratio >= 1)))
    goals.append(("(contrast) Legible's line path / tesserocr-fifo: different work (detector + each line read alone)",
                  "%.2f / %.2f frames/s" % (sat["rate"], fifo["saturated"]["rate"]), "%.3f" % f_ratio, "–", "not a goal"))
    iso = r["isolation"]
    goals.append(("isolation: one stream, engines in worker processes / in the server's process (paired)",
                  "%.1f / %.1f ms" % (iso["one_stream_ms"]["after"], iso["one_stream_ms"]["before"]),
                  "%.3f" % iso["one_stream_ms"]["after/before"], "≤ 1.02", goal(iso["one_stream_ms"]["after/before"] <= 1.02)))
    goals.append(("isolation: saturated frames/s, worker processes / server's process (paired windows)",
                  "%.2f / %.2f frames/s" % (iso["saturated_paired_fps"]["after"], iso["saturated_paired_fps"]["before"]),
                  "%.3f" % iso["saturated_paired_fps"]["after/before"], "≥ 0.98",
                  goal(iso["saturated_paired_fps"]["after/before"] >= 0.98)))
    goals.append(("isolation: CPU per recognized frame, worker processes / server's process (paired windows)",
                  "%.1f / %.1f ms" % (iso["saturated_paired_cpu_ms"]["after"], iso["saturated_paired_cpu_ms"]["before"]),
                  "%.3f" % iso["saturated_paired_cpu_ms"]["after/before"], "≤ 1.02",
                  goal(iso["saturated_paired_cpu_ms"]["after/before"] <= 1.02)))
    goals += grpc_goals(r["grpc"])
    fl = r["freshness"]["legible"]
    age_ratio = fl["p99_ms"] / rec
    is_flat, growth = flat(fl["windows"])
    goals.append(("freshness: Legible p99 result age at 4× / one recognition (floor, quiet engine)", "%.0f / %.0f ms" % (fl["p99_ms"], rec),
                  "%.2f" % age_ratio, "≤ 2.2", goal(age_ratio <= 2.2)))
    in_run = fl["age_in_recognitions_p99"]
    goals.append(("freshness: Legible p99 of (result age / that frame's own recognize_us) at 4×",
                  "p50 %.2f, p99 %.2f recognitions" % (fl["age_in_recognitions_p50"], in_run), "%.2f" % in_run, "≤ 2.2", goal(in_run <= 2.2)))
    goals.append(("freshness: Legible p99 flat (last third of windows / first third)", "", "%.2f" % growth, "≤ 1.25", goal(is_flat)))
    ff = r["freshness"]["fifo"]
    fifo_flat, fifo_growth = flat(ff["windows"])
    goals.append(("(peer) tesserocr-fifo p99 age / one recognition; growth", "%.0f ms" % ff["p99_ms"],
                  "%.1f; growth %.1f×" % (ff["p99_ms"] / rec, fifo_growth), "(for contrast)", "flat" if fifo_flat else "grows"))
    for level in ("fast", "accurate"):
        worse = []
        for group in ("script", "orientation"):
            keyed = group_by(acc[group], "config" if group == "script" else "label")
            for name, rows in keyed:
                m = dict(zip(("legible_fast", "legible_accurate", "cli_11", "cli_3"), means(rows)))
                if round(m["legible_" + level], 3) > round(min(m["cli_11"], m["cli_3"]), 3):
                    worse.append(name)
        goals.append(("accuracy %s: CER ≤ CLI on every script and orientation (%d rows)" % (level.upper(), len(CONFIGS) + 8),
                      "worse on: " + (", ".join(worse) if worse else "none"), "%d / %d rows" % (len(CONFIGS) + 8 - len(worse), len(CONFIGS) + 8),
                      "all rows", goal(not worse)))
        for name, rows in r["overall_sets"]:
            m = dict(zip(("legible_fast", "legible_accurate", "cli_11", "cli_3"), means(rows)))
            cli = min(m["cli_11"], m["cli_3"])
            ratio = m["legible_" + level] / cli if cli else float("inf")
            goals.append(("accuracy %s: CER on %s / CLI" % (level.upper(), name), "%.3f / %.3f" % (m["legible_" + level], cli),
                          "%.2f" % ratio, "≤ 0.50", goal(ratio <= 0.5)))
    r["goals"] = goals
    r["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    r["minutes"] = (time.monotonic() - started) / 60
    with open(os.path.join(OUT, "bench.json"), "w") as f:
        json.dump(r, f, indent=1, default=str, ensure_ascii=False)
    write_report(a.out, r, chart_name)
    log("wrote %s and %s in %.1f min" % (a.out, chart_name, r["minutes"]))


if __name__ == "__main__":
    main()
