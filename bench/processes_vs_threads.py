#!/usr/bin/env python3
"""Does sharing one process cost the engines? Saturated line-path throughput of one legibled with
2 engines (`--workers 2 --replicas-per-script 2`) against two legibled processes of 1 engine each,
loaded at once, in alternating rounds (the same open-loop load as `make bench`: 4 sessions per
server offered 4x the one-engine floor rate, the same 720p JPEG, recognize_unchanged).

If two processes read clearly more frames/s than one process with two engines, part of the gap
between Legible and its floor (two `legible-floor` processes) is the engines sharing a process
(allocator, OpenVINO or OpenMP runtime), not Legible's own work per frame.

    python3 bench/processes_vs_threads.py [--rounds 4] [--seconds 8]
"""
import argparse
import json
import os
import statistics
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as bench  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--legibled", default=".build/release/legibled")
    p.add_argument("--floor", default=".build/release/legible-floor")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--seconds", type=float, default=8.0)
    a = p.parse_args()
    os.makedirs(bench.OUT, exist_ok=True)
    argv = [a.floor, "--detector", "--repeat", "3", "--warmup", "1", bench.BENCH_FRAME]
    rate = 1000 / json.loads(bench.subprocess.run(argv, env=bench.ENV, capture_output=True, text=True,
                                                  check=True).stdout)["median_ms"]
    options = {"recognize_unchanged": True}
    one, two = [], []
    with bench.legibled(a.legibled, 2, 2) as shared, bench.legibled(a.legibled, 1, 1) as first, \
            bench.legibled(a.legibled, 1, 1) as second:
        for server in (shared, first, second):  # each loads its engines at its first burst
            bench.saturated(server, 4 * 2 * rate, 3, 1, options)

        def one_process():
            one.append(bench.saturated(shared, 4 * 2 * rate, a.seconds, 1, options)["rate"])

        def two_processes():
            rates = []
            threads = [threading.Thread(target=lambda s=s: rates.append(
                bench.saturated(s, 4 * rate, a.seconds, 1, options)["rate"])) for s in (first, second)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            two.append(sum(rates))

        for round_ in range(a.rounds):
            for step in (one_process, two_processes)[::1 if round_ % 2 == 0 else -1]:
                step()
            bench.log("round %d: one process, 2 engines %.2f frames/s; two processes, 1 engine each %.2f" % (
                round_ + 1, one[-1], two[-1]))
    print("one process, 2 engines:       %.2f frames/s (rounds %s)" % (statistics.mean(one), " ".join("%.2f" % r for r in one)))
    print("two processes, 1 engine each: %.2f frames/s (rounds %s)" % (statistics.mean(two), " ".join("%.2f" % r for r in two)))
    print("ratio one / two: %.3f" % (statistics.mean(one) / statistics.mean(two)))


if __name__ == "__main__":
    main()
