#!/usr/bin/env python3
"""The engine pool under 1,000 sessions of every combination of scripts (make bench-pool, ~2 min
per server; issue 16's "memory of the engine pool on the 1,000-session load").

legible-load opens 1,000 sessions at 1 fps (ramped up over 15 s, 30 s each), the session's
scripts assigned round-robin from every single script, every pair of scripts and automatic
detection (16 choices), each a kiosk camera on one still sign with a Latin, a Devanagari, a
Japanese and a Korean line (960x540; after its first reading a session's frames are skipped
as unchanged). Reported per server: every frame answered, sessions read at least once, the
memory of legibled and its engine worker processes (PSS, sampled every second: after start,
peak, end) and the engines loaded (from the server's log).

    python3 bench/pool_memory.py [--legibled PATH] [--flags "..."]
        [--before-legibled PATH --before-flags "..."]

With --before-legibled, the same load runs against that binary too, one after the other, for
a before/after table (e.g. a build from before the combined engines went away, with
--before-flags "--several-scripts combined"). Writes a markdown table to stdout.
"""
import argparse
import itertools
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
sys.path.insert(0, HERE)
import camera_frames as cf  # noqa: E402
from script_lines import resident_mb  # noqa: E402

SCRIPTS = ("latin", "chinese", "devanagari", "japanese", "korean")
CHOICES = list(SCRIPTS) + ["+".join(pair) for pair in itertools.combinations(SCRIPTS, 2)] + ["auto"]


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def sign(directory):
    image, _ = cf.mixed_scene(("latin", "devanagari", "japanese", "korean"), seed=100, width=960, height=540)
    os.makedirs(directory, exist_ok=True)
    image.convert("RGB").save(os.path.join(directory, "sign.jpg"), "JPEG", quality=85)
    return directory


def run(legibled, flags, load, frames, sessions, duration, out):
    folder = tempfile.mkdtemp(prefix="legible-pool-")
    socket_path = os.path.join(folder, "s.sock")
    log_path = os.path.join(folder, "legibled.log")
    argv = [legibled, "--listen", "unix:" + socket_path, "--workers", "2", "--replicas-per-script", "1",
            "--log-format", "json", *flags]
    log("$ OMP_THREAD_LIMIT=1 " + " ".join(argv))
    server = subprocess.Popen(argv, env=dict(os.environ, OMP_THREAD_LIMIT="1"), stderr=open(log_path, "w"))
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(socket_path) or "engine loaded" not in open(log_path).read():
            assert server.poll() is None and time.monotonic() < deadline, "legibled did not start"
            time.sleep(0.1)
        time.sleep(2)  # the detector compiles beside the default engine
        start = resident_mb(server.pid)
        report_path = os.path.join(out, "pool-%d.json" % server.pid)
        args = [load, "--server", "unix:" + socket_path, "--sessions", str(sessions), "--fps", "1",
                "--duration", str(duration), "--ramp-up", "15", "--frames", frames, "--max-frame-age-ms", "2000",
                "--drain-timeout", "60", "--script", ",".join(CHOICES), "--json", report_path]
        log("$ " + " ".join(args))
        # Its messages to a file, not a pipe nobody reads while it runs (a full pipe would stall it).
        client_log = os.path.join(folder, "legible-load.log")
        with open(client_log, "w") as client_stderr:
            client = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=client_stderr)
            peak = start
            while client.poll() is None:
                peak = max(peak, resident_mb(server.pid))
                time.sleep(1)
        if client.returncode not in (0, 1):
            raise SystemExit("legible-load failed (%d): %s" % (client.returncode, open(client_log).read()))
        end = resident_mb(server.pid)
        report = json.load(open(report_path))
        events = [json.loads(line) for line in open(log_path) if line.startswith("{")]
        engines = sorted({e["engine"] for e in events if e.get("msg") == "engine loaded"})
    finally:
        server.terminate()
        server.wait()
    rows = report["sessions"]
    counts = report["counts"]
    return {
        "start_mb": start, "peak_mb": peak, "end_mb": end, "engines": engines, "counts": counts,
        "read": sum(1 for s in rows if s["counts"]["recognized"] > 0), "sessions": len(rows),
        "answered": counts["unanswered"] == 0 and report["session_errors"] == 0,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    release = os.path.join(HERE, "..", ".build", "release")
    parser.add_argument("--legibled", default=os.path.join(release, "legibled"))
    parser.add_argument("--flags", default="", help="more legibled flags")
    parser.add_argument("--before-legibled", help="a second legibled to run the same load against")
    parser.add_argument("--before-flags", default="")
    parser.add_argument("--label", default="this build", help="the first column's name for --legibled")
    parser.add_argument("--before-label", default="before")
    parser.add_argument("--load", default=os.path.join(release, "legible-load"))
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--duration", type=int, default=30)
    parser.add_argument("--out", default=os.path.join(HERE, "out", "pool"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    frames = sign(tempfile.mkdtemp(prefix="legible-pool-frames-"))
    servers = [(args.label + (" " + args.flags if args.flags else ""), args.legibled, shlex.split(args.flags))]
    if args.before_legibled:
        servers.insert(0, (args.before_label + (" " + args.before_flags if args.before_flags else ""), args.before_legibled,
                           shlex.split(args.before_flags)))
    print(header(args.sessions))
    for name, binary, flags in servers:
        print(row(name, run(binary, flags, args.load, frames, args.sessions, args.duration, args.out)), flush=True)


def header(sessions):
    return ("| legibled (%d sessions x 1 fps, %d script choices) | sessions read / every frame answered | frames "
            "sent / recognized / skipped / dropped | PSS after start | peak | end | engines loaded |\n"
            "|---|---|---|---:|---:|---:|---|" % (sessions, len(CHOICES)))


def row(name, r):
    c = r["counts"]
    log("%s: %.0f -> peak %.0f -> %.0f MB, engines %s" % (name, r["start_mb"], r["peak_mb"], r["end_mb"],
                                                           ", ".join(r["engines"])))
    return "| %s | %d of %d / %s | %d / %d / %d / %d | %.0f MB | %.0f MB | %.0f MB | %d: %s |" % (
        name, r["read"], r["sessions"], "yes" if r["answered"] else "NO", c["sent"], c["recognized"],
        c["skipped"], c["dropped"], r["start_mb"], r["peak_mb"], r["end_mb"], len(r["engines"]),
        ", ".join("`%s`" % e for e in r["engines"]))


def measure(legibled, load, out, sessions=1000, duration=30):
    """The load against `legibled` (run.py's section 9): run()'s figures."""
    os.makedirs(out, exist_ok=True)
    frames = sign(tempfile.mkdtemp(prefix="legible-pool-frames-"))
    return run(legibled, [], load, frames, sessions, duration, out)


if __name__ == "__main__":
    main()
