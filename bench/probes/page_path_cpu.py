#!/usr/bin/env python3
"""Where the CPU goes when the page path is saturated: legibled --detector tesseract with 2 engine
workers, offered 4x the one-engine floor by 4 sessions (as make bench's page-path row), for 15 s.
Prints each process's CPU share, time spent runnable but waiting for a core (schedstat), the
Python client's own CPU, and recognized frames/s. With --perf, also records a perf profile of
legibled and its workers (cpu-clock, to bench/out/page-path.perf.data). Ad-hoc probe of stop 33.

    python3 bench/probes/page_path_cpu.py [--perf] [-- extra legibled flags]
"""
import argparse
import json
import os
import subprocess
import sys
import time

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--perf", action="store_true", help="also record a perf profile")
parser.add_argument("--seconds", type=float, default=15)
parser.add_argument("flags", nargs="*", help="extra legibled flags (after --)")
a = parser.parse_args()
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench"))
import run as bench  # noqa: E402


def ticks(pid):
    fields = open(f"/proc/{pid}/stat").read().split(")")[1].split()
    return int(fields[11]) + int(fields[12])


def sched(pid):
    """(ns on a core, ns runnable but waiting for one), summed over the process's threads."""
    run = wait = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            on, waiting, _ = open(f"/proc/{pid}/task/{task}/schedstat").read().split()
            run, wait = run + int(on), wait + int(waiting)
        except OSError:
            pass
    return run, wait


def children(pid):
    out = [pid]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if int(open(f"/proc/{entry}/stat").read().split(")")[1].split()[1]) == pid:
                    out += children(int(entry))
            except OSError:
                pass
    return out


floor = os.path.join(REPO, ".build/release/legible-floor")
page_ms = json.loads(subprocess.run([floor, "--repeat", "3", "--warmup", "1", bench.BENCH_FRAME], env=bench.ENV,
                                    capture_output=True, text=True, check=True).stdout)["median_ms"]
offered = 4 * bench.CORES * 1000 / page_ms
with bench.legibled(os.path.join(REPO, ".build/release/legibled"), bench.CORES, bench.CORES,
                    "--detector", "tesseract", *a.flags) as server:
    bench.saturated(server, offered, 3, 1, {"recognize_unchanged": True})
    pids = children(server.process.pid)
    perf = None
    if a.perf:
        os.makedirs(os.path.join(REPO, "bench/out"), exist_ok=True)
        perf = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-F", "499", "-g", "-o",
                                 os.path.join(REPO, "bench/out/page-path.perf.data"), "-p", ",".join(map(str, pids))],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    before = {p: (ticks(p), sched(p)) for p in pids}
    mine, began = os.times(), time.time()
    out = bench.saturated(server, offered, a.seconds, 1, {"recognize_unchanged": True})
    elapsed, mine_after = time.time() - began, os.times()
    if perf:
        perf.send_signal(2)
        perf.wait()
    hz = os.sysconf("SC_CLK_TCK")
    for p in pids:
        (t0, (r0, w0)), (r1, w1) = before[p], sched(p)
        name = "legibled" if p == server.process.pid else "worker %d" % p
        print("%-14s cpu %5.1f %%  on a core %5.1f %%  waiting for one %4.1f %%" % (
            name, 100 * (ticks(p) - t0) / hz / elapsed, (r1 - r0) / 1e7 / elapsed, (w1 - w0) / 1e7 / elapsed))
    print("client         cpu %5.1f %%" % (100 * ((mine_after.user - mine.user) + (mine_after.system - mine.system)) / elapsed))
    print("recognized %.2f frames/s, engines busy %.3f; one-engine floor %.1f ms, offered %.1f frames/s" % (
        out["rate"], out["busy"], page_ms, offered))
