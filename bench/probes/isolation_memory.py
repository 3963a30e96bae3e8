#!/usr/bin/env python3
"""Resident memory (PSS) of legibled with its engines in worker processes (--engine-isolation process,
the default) and in its own process (none): after start (the default engine, and with workers
its warm spare) and after one frame of each script (an engine per script loaded). The sum over
the server and its worker processes, and each process apart.

    python3 bench/probes/isolation_memory.py [--legibled .build/release/legibled]
"""
import argparse
import os
import shlex
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import run as bench  # noqa: E402


def rss_mb(pid):
    """Proportional set size: shared pages (the libraries every worker maps) divided among the
    processes that map them, so that the sum over processes is what the machine holds."""
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    return 0.0


def snapshot(pid):
    parts = {"server": rss_mb(pid)}
    for index, child in enumerate(sorted(bench.children(pid))):
        parts["worker %d" % (index + 1)] = rss_mb(child)
    return round(sum(parts.values())), {k: round(v) for k, v in parts.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--legibled", default=".build/release/legibled")
    p.add_argument("--flags", default="", help="more legibled flags for both servers")
    p.add_argument("--start-only", action="store_true", help="only the figures after start")
    a = p.parse_args()
    generated = bench.generated_frames([bench.cf.SEED])
    scripts = {"latin": bench.pb.SCRIPT_LATIN, "chinese": bench.pb.SCRIPT_CHINESE,
               "devanagari": bench.pb.SCRIPT_DEVANAGARI, "japanese": bench.pb.SCRIPT_JAPANESE,
               "korean": bench.pb.SCRIPT_KOREAN}
    for isolation in ("process", "none"):
        with bench.legibled(a.legibled, 2, 1, "--engine-isolation", isolation, *shlex.split(a.flags)) as server:
            time.sleep(4)  # the spare loads beside the first engine
            total, parts = snapshot(server.process.pid)
            print("%-8s after start: %d MB (PSS) %s" % (isolation, total, parts))
            if a.start_only:
                continue
            for name, script in scripts.items():
                stream = server.session(scripts=[script], recognize_unchanged=True)
                stream.send(bench.frame_message(1, bench.jpeg_bytes(generated["%s/%d" % (name, bench.cf.SEED)][0])))
                result = stream.receive().result
                assert result.status == bench.pb.FRAME_STATUS_RECOGNIZED, result
                bench.end_session(stream, 1)
            time.sleep(1)
            total, parts = snapshot(server.process.pid)
            print("%-8s after a frame of each of 5 scripts: %d MB (PSS) %s" % (isolation, total, parts))


if __name__ == "__main__":
    main()
