#!/usr/bin/env python3
"""Saturated throughput, side by side in alternating rounds (make bench-throughput, ~6 min).

Two comparisons, each against what does the same work:
  line path  legibled (the default: PP-OCRv4 finds the lines, each is read alone) against
             2 `legible-floor --detector` processes at once (the same reading in-process);
  page path  `legibled --detector tesseract` (one Tesseract call per frame, PSM 11) against
             2 `legible-floor` processes at once and tesserocr-fifo (the same Tesseract call
             behind a FIFO queue); for information also against 2 `legible-floor --decode-each`
             (the floor decodes its JPEG once; a server decodes every frame it receives).
Each server gets 2 x cores sessions offered 4x the floor rate, open loop, the same 720p JPEG
(recognize_unchanged), so every session always has a frame waiting; the order of the steps
flips every round, so the machine's other users load every step alike.

CPU per recognized frame, to tell work from idle: the floor's timed runs (CLOCK_PROCESS_CPUTIME_ID);
a server's from /proc over the whole saturated run, split into its event-loop thread (the main
thread: sockets, protobuf, sessions, answers to dropped frames), every other thread (engines:
with engine worker processes, the threads that wait on them) and its worker processes (workers),
and the Python load client's own, each over the frames the run recognized. The floor's rate is
frames over time (its mean ms per frame), not its median.

    python3 bench/throughput.py [--rounds 6] [--seconds 5] [--json bench/out/throughput.json]
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as bench  # noqa: E402  (bench/run.py: servers, the open-loop client, the floor)

TICKS = os.sysconf("SC_CLK_TCK")


def thread_cpu(pid):
    """{thread name: CPU seconds} of process `pid`, threads of one name summed."""
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        seconds = (int(fields[11]) + int(fields[12])) / TICKS
        kind = "loop" if tid == str(pid) else "engines"
        out[kind] = out.get(kind, 0.0) + seconds
    # Engine worker processes (--engine-isolation process, the default): all their threads.
    for child in bench.children(pid):
        try:
            with open("/proc/%d/stat" % child) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out["workers"] = out.get("workers", 0.0) + (int(fields[11]) + int(fields[12])) / TICKS
    return out


def own_cpu():
    times = os.times()
    return times.user + times.system


def saturated_with_cpu(server, offered, seconds, options):
    """One saturated run: (recognized frames/s, {where: CPU ms per recognized frame}, counts).
    The CPU is the whole run's (set-up, warm-up and drain included) over every frame it
    recognized, so dropped frames' cost is in it."""
    before, client_before = thread_cpu(server.process.pid), own_cpu()
    out = bench.saturated(server, offered, seconds, 1, options)
    after, client_after = thread_cpu(server.process.pid), own_cpu()
    frames = max(1, out["counts"]["recognized"])
    cpu = {k: 1000 * (after.get(k, 0) - before.get(k, 0)) / frames for k in set(after) | set(before)}
    cpu["client"] = 1000 * (client_after - client_before) / frames
    return out["rate"], cpu, out["counts"]


def mean_cpu(rows):
    keys = sorted({k for row in rows for k in row})
    return {k: statistics.mean(row.get(k, 0.0) for row in rows) for k in keys}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--legibled", default=".build/release/legibled")
    p.add_argument("--floor", default=".build/release/legible-floor")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--seconds", type=float, default=5.0, help="each step of a round")
    p.add_argument("--json", default=os.path.join(bench.OUT, "throughput.json"))
    a = p.parse_args()
    os.makedirs(bench.OUT, exist_ok=True)
    cores = bench.CORES
    frame = bench.BENCH_FRAME

    def floor_rate(detector):
        argv = [a.floor] + (["--detector"] if detector else []) + ["--repeat", "3", "--warmup", "1", frame]
        return 1000 / json.loads(bench.subprocess.run(argv, env=bench.ENV, capture_output=True, text=True,
                                                      check=True).stdout)["median_ms"]

    bench.log("one-engine floor rates (for the offered load and the floor runs' length)")
    line_rate, page_rate = floor_rate(True), floor_rate(False)
    results = {k: {"rates": [], "cpu": [], "counts": []} for k in ("line", "page", "fifo")}
    floors = {"line": [], "page": [], "page_decoding": []}
    floor_cpu = {"line": [], "page": [], "page_decoding": []}
    with bench.legibled(a.legibled) as line, bench.legibled(a.legibled, cores, cores, "--detector", "tesseract") as page, \
            bench.fifo_peer() as fifo:
        def legible(kind, server, rate):
            def step():
                out = saturated_with_cpu(server, 4 * cores * rate, a.seconds, {"recognize_unchanged": True})
                for key, value in zip(("rates", "cpu", "counts"), out):
                    results[kind][key].append(value)
            return step

        def peer():
            out = saturated_with_cpu(fifo, 4 * cores * page_rate, a.seconds, {})
            for key, value in zip(("rates", "cpu", "counts"), out):
                results["fifo"][key].append(value)
            time.sleep(1.0)  # the peer skips the frames its disconnected clients left queued

        def floor(kind):
            rate = line_rate if kind == "line" else page_rate
            flags = ["--decode-each"] if kind == "page_decoding" else []
            def step():
                rate_, _, cpu = bench.floor_parallel(a.floor, max(5, int(a.seconds * rate)), detector=kind == "line",
                                                     flags=flags)
                floors[kind].append(rate_)
                floor_cpu[kind].append(statistics.mean(cpu))
            return step

        # Not counted: each server loads its second engine at its first burst.
        bench.saturated(line, 4 * cores * line_rate, 3, 1, {"recognize_unchanged": True})
        bench.saturated(page, 4 * cores * page_rate, 3, 1, {"recognize_unchanged": True})
        steps = [floor("line"), legible("line", line, line_rate), floor("page"), legible("page", page, page_rate), peer,
                 floor("page_decoding")]
        for round_ in range(a.rounds):
            for step in steps[::1 if round_ % 2 == 0 else -1]:
                step()
            bench.log("round %d: line: floor x%d %.2f, Legible %.2f | page: floor x%d %.2f (decoding each %.2f), "
                      "Legible %.2f, fifo %.2f" % (
                          round_ + 1, cores, floors["line"][-1], results["line"]["rates"][-1], cores, floors["page"][-1],
                          floors["page_decoding"][-1], results["page"]["rates"][-1], results["fifo"]["rates"][-1]))

    summary = {"rounds": a.rounds, "seconds": a.seconds, "cores": cores, "floor_one_engine": {"line": line_rate, "page": page_rate}}
    for kind in ("line", "page", "fifo"):
        summary[kind] = {"rate": statistics.mean(results[kind]["rates"]), "rounds": results[kind]["rates"],
                         "cpu": mean_cpu(results[kind]["cpu"]), "counts": bench.sum_counts(results[kind]["counts"])}
    for kind in ("line", "page", "page_decoding"):
        summary["floor_" + kind] = {"rate": statistics.mean(floors[kind]), "rounds": floors[kind],
                                    "cpu": {"process": statistics.mean(floor_cpu[kind])}}
    summary["ratios"] = {
        "line: Legible / floor (same rounds)": summary["line"]["rate"] / summary["floor_line"]["rate"],
        "page: Legible / floor (same rounds)": summary["page"]["rate"] / summary["floor_page"]["rate"],
        "page: Legible / tesserocr-fifo (same rounds)": summary["page"]["rate"] / summary["fifo"]["rate"],
        "page: tesserocr-fifo / floor (same rounds)": summary["fifo"]["rate"] / summary["floor_page"]["rate"],
        "page: Legible / floor decoding every frame (information)":
            summary["page"]["rate"] / summary["floor_page_decoding"]["rate"],
    }
    with open(a.json, "w") as f:
        json.dump(summary, f, indent=1)
    print("\nsaturated frames/s, mean of %d rounds of %.0f s (2 x %d sessions offered 4x the floor rate):" % (
        a.rounds, a.seconds, cores))
    for kind, label in (("floor_line", "floor x%d, line path" % cores), ("line", "Legible, line path"),
                        ("floor_page", "floor x%d, page path" % cores),
                        ("floor_page_decoding", "floor x%d, page, --decode-each" % cores),
                        ("page", "Legible --detector tesseract"),
                        ("fifo", "tesserocr-fifo (page path)")):
        print("  %-32s %6.2f   rounds %s" % (label, summary[kind]["rate"], " ".join("%.2f" % r for r in summary[kind]["rounds"])))
    for name, ratio in summary["ratios"].items():
        print("  %-48s %.3f" % (name, ratio))
    print("CPU ms per recognized frame (servers: the whole run's CPU, dropped frames' included, over the frames"
          " recognized; loop = the server's event-loop thread, engines = every other thread):")
    for kind in ("floor_line", "line", "floor_page", "floor_page_decoding", "page", "fifo"):
        print("  %-8s %s" % (kind, ", ".join("%s %.3f" % kv for kv in summary[kind]["cpu"].items())))
    print("counts: " + "; ".join("%s %s" % (k, summary[k]["counts"]) for k in ("line", "page", "fifo")))
    print("wrote " + a.json)


if __name__ == "__main__":
    main()
