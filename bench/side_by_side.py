#!/usr/bin/env python3
"""Two legibled builds side by side in one run (make bench-compare BEFORE=<commit>): the
overhead, throughput and freshness measures of make bench, each build in turn in every round,
each round's order the reverse of the one before, so that the machine's other load falls on
both alike. For "no regression" after a refactor: the ratios after / before are what counts.

  one stream  both servers up, one session each, the same 720p JPEG to each in turn: median
              end-to-end ms, and the median of the per-pair ratios
  saturated   after a warm-up that loads every engine replica, 2 x cores sessions offered 4x
              capacity open loop: recognized frames/s, and the server's CPU per recognized
              frame (its threads and its engine workers', dropped frames' work included): on a
              shared machine the rate moves with the other load, the CPU a frame costs less
  freshness   the same, distinct generated frames: result age p50 / p99 (ms)
  saturated, paired windows
              both servers up at once after a warm-up, short saturated windows on each in
              turn: frames/s and CPU per recognized frame, the median of the pairs' ratios
              (each pair under nearly the same machine load, no server start in between)
"""
import argparse
import json
import os
import shlex
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as bench  # noqa: E402  (bench/run.py: servers, open-loop driver, frames)
from throughput import thread_cpu  # noqa: E402


def measure(binary, flags, frames, args):
    """One round of one build: its own server, saturated and freshness."""
    with bench.legibled(binary, bench.CORES, bench.CORES, *flags) as server:
        # Unmeasured: the load that makes every replica's engine load (one-off, a second or two
        # of CPU each, which would otherwise fall in the measured run of one side more than the
        # other's), so that both sides are measured in their steady state.
        bench.saturated(server, args.offered, args.warmup_seconds, 0.0, {"recognize_unchanged": True})
        cpu_before = sum(thread_cpu(server.process.pid).values())
        sat = bench.saturated(server, args.offered, args.seconds, 2.0, {"recognize_unchanged": True})
        cpu = sum(thread_cpu(server.process.pid).values()) - cpu_before
        fresh = bench.freshness(server, args.offered / 4, args.seconds, frames, {"recognize_unchanged": True})
    return {"saturated_fps": sat["rate"], "saturated_cpu_ms": 1000 * cpu / max(1, sat["counts"]["recognized"]),
            "p50_age_ms": fresh["p50_ms"], "p99_age_ms": fresh["p99_ms"],
            "unanswered": sat["counts"].get("unanswered", 0) + fresh["counts"].get("unanswered", 0)}


def one_stream_paired(builds, flags, runs):
    """Both builds' servers up at once, one session each, frames sent to each in turn (A, B,
    B, A, ...): the one-stream latency of each, every pair under the same machine load. The
    per-pair ratio's median is the overhead's change, free of the drift between rounds."""
    data = open(bench.BENCH_FRAME, "rb").read()
    names = list(builds)
    servers = {name: bench.legibled(builds[name], bench.CORES, bench.CORES, *flags[name]) for name in names}
    try:
        streams = {name: servers[name].session(recognize_unchanged=True) for name in names}
        times = {name: [] for name in names}
        for i in range(3 + runs):
            order = names if i % 2 == 0 else list(reversed(names))
            for name in order:
                started = bench.time.perf_counter()
                streams[name].send(bench.frame_message(i + 1, data))
                result = streams[name].receive().result
                assert result.status == bench.pb.FRAME_STATUS_RECOGNIZED, result
                if i >= 3:
                    times[name].append((bench.time.perf_counter() - started) * 1000)
        for name in names:
            bench.end_session(streams[name], 3 + runs)
    finally:
        for server in servers.values():
            server.stop()
    ratios = [b / a for a, b in zip(times[names[0]], times[names[1]])]
    return {name: statistics.median(times[name]) for name in names}, statistics.median(ratios)


def saturated_paired(builds, flags, args):
    """Both builds' servers up at once, saturated windows on one then the other (A B, B A, ...),
    so that each pair of windows runs under nearly the same machine load and both servers keep
    their engines loaded throughout. Per window: recognized frames/s after its first second, and
    the server's CPU per recognized frame. Returns {name: [window, ...]}."""
    names = list(builds)
    options = {"recognize_unchanged": True}
    servers = {name: bench.legibled(builds[name], bench.CORES, bench.CORES, *flags[name]) for name in names}
    windows = {name: [] for name in names}
    try:
        for name in names:  # every replica's engine loaded before the first window
            bench.saturated(servers[name], args.offered, args.warmup_seconds, 0.0, options)
        for index in range(args.pairs):
            for name in (names if index % 2 == 0 else list(reversed(names))):
                pid = servers[name].process.pid
                cpu_before = sum(thread_cpu(pid).values())
                sat = bench.saturated(servers[name], args.offered, args.window_seconds, 1.0, options)
                cpu = sum(thread_cpu(pid).values()) - cpu_before
                windows[name].append({"fps": sat["rate"],
                                      "cpu_ms": 1000 * cpu / max(1, sat["counts"]["recognized"]),
                                      "unanswered": sat["counts"].get("unanswered", 0)})
            bench.log("pair %d: %s" % (index + 1, json.dumps({n: windows[n][-1] for n in names})))
    finally:
        for server in servers.values():
            server.stop()
    return windows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", required=True, help="legibled of the earlier build")
    p.add_argument("--after", required=True, help="legibled of the build to judge")
    p.add_argument("--before-flags", default="", help="legibled flags of the earlier build's server")
    p.add_argument("--after-flags", default="", help="legibled flags of the judged build's server (the same "
                   "binary with other flags compares two settings: make bench-isolation)")
    p.add_argument("--rounds", type=int, default=3, help="rounds with their own server starts (0: none, only "
                   "the paired measures, as make bench runs it)")
    p.add_argument("--pairs", type=int, default=8, help="paired saturated windows, both servers up")
    p.add_argument("--window-seconds", type=float, default=8, help="seconds of each paired window")
    p.add_argument("--runs", type=int, default=60, help="one-stream frames per build, paired")
    p.add_argument("--seconds", type=float, default=12, help="seconds of each open-loop run")
    p.add_argument("--warmup-seconds", type=float, default=5, help="seconds of saturated load before them")
    p.add_argument("--offered", type=float, default=47.0,
                   help="frames/s offered in all (make bench offers 4 x cores x the floor rate, ~47)")
    p.add_argument("--json", help="write the raw numbers here")
    a = p.parse_args()
    seeds = [bench.cf.SEED + k for k in (0, 11, 23, 3, 5, 7, 13, 17)]  # make bench's freshness frames
    generated = bench.generated_frames(seeds)
    frames = [bench.jpeg_bytes(generated["latin/%d" % seed][0]) for seed in seeds]
    builds = {"before": a.before, "after": a.after}
    flags = {"before": shlex.split(a.before_flags), "after": shlex.split(a.after_flags)}
    rows = {name: [] for name in builds}
    for round_index in range(a.rounds):
        order = list(builds) if round_index % 2 == 0 else list(reversed(builds))
        for name in order:
            row = measure(builds[name], flags[name], frames, a)
            rows[name].append(row)
            bench.log("round %d %s: %s" % (round_index + 1, name, json.dumps(row)))
    windows = saturated_paired(builds, flags, a)
    medians, pair_ratio = one_stream_paired(builds, flags, a.runs)
    bench.log("one stream, paired: %s, median per-pair ratio after/before %.3f" % (json.dumps(medians), pair_ratio))
    summary = {"one_stream_ms": {"before": round(medians["before"], 2), "after": round(medians["after"], 2),
                                 "after/before": round(pair_ratio, 3)}}
    for key in ("saturated_fps", "saturated_cpu_ms", "p50_age_ms", "p99_age_ms") if a.rounds else ():
        before = statistics.median(r[key] for r in rows["before"])
        after = statistics.median(r[key] for r in rows["after"])
        # Each round's two runs were next to each other: the median of the rounds' ratios.
        ratio = statistics.median(later[key] / earlier[key] if earlier[key] else 0.0
                                  for later, earlier in zip(rows["after"], rows["before"]))
        summary[key] = {"before": round(before, 2), "after": round(after, 2), "after/before": round(ratio, 3)}
    for key in ("fps", "cpu_ms"):
        before = statistics.median(w[key] for w in windows["before"])
        after = statistics.median(w[key] for w in windows["after"])
        ratio = statistics.median(later[key] / earlier[key] if earlier[key] else 0.0
                                  for later, earlier in zip(windows["after"], windows["before"]))
        summary["saturated_paired_" + key] = {"before": round(before, 2), "after": round(after, 2),
                                              "after/before": round(ratio, 3)}
    print("| measure (one stream: median of %d paired ratios; saturated_paired: medians of %d paired windows and "
          "of their ratios; the rest: medians of %d rounds, each with its own server start, and of the rounds' "
          "ratios) | before | after | after / before |" % (a.runs, a.pairs, a.rounds))
    print("|---|---|---|---|")
    for key, s in summary.items():
        print("| %s | %.2f | %.2f | %.3f |" % (key, s["before"], s["after"], s["after/before"]))
    print("unanswered frames: before %d, after %d" % (
        sum(r["unanswered"] for r in rows["before"] + windows["before"]),
        sum(r["unanswered"] for r in rows["after"] + windows["after"])))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "windows": windows, "summary": summary}, f, indent=1)


if __name__ == "__main__":
    main()
