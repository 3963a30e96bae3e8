#!/usr/bin/env python3
"""Scripts line by line: how well each detected line finds its script's recognizer, and what it
costs (make bench-scripts).

Generated camera frames (scripts/camera_frames.py): two-script signs (a line of each script in
turn: Latin + Devanagari, Japanese + Latin, Chinese + Latin, Korean + Latin) and each script's
own scene, seeds 100-104 (none was looked at while the routing was written; the end-to-end tests
use the default seed). Each frame is read by legibled (FAST, one worker):

  named     the session names the frame's scripts; each line read by its script's engine
  auto      no script named, automatically_detect_script: every installed script a candidate
  auto-2nd  the same, the frame sent twice in one session: the second reading, whose first
            engine is the script that read most lines of the first (a camera stream's case)

(Until stop 33, `--several-scripts combined` — one engine holding every model of the session
reading every line — was measured beside them; it read no better and held far more memory, and
went away. Its last figures are in BENCHMARKS.md of that stop's parent commit.)

Script identification: a truth line counts as identified when the returned line that reads it
best (CER <= 0.2) says that line's script (TextLine.script).
ms: the server's own recognition time (Timing.recognize_us), median.

    python3 bench/script_lines.py --legibled .build/release/legibled [--seeds 100-104]
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
sys.path.insert(0, HERE)
import camera_frames as cf  # noqa: E402
import models as bm  # noqa: E402
from legible_client import pb  # noqa: E402

SCRIPTS = {"latin": pb.SCRIPT_LATIN, "chinese": pb.SCRIPT_CHINESE, "japanese": pb.SCRIPT_JAPANESE,
           "korean": pb.SCRIPT_KOREAN, "devanagari": pb.SCRIPT_DEVANAGARI}
PAIRS = [("latin", "devanagari"), ("japanese", "latin"), ("chinese", "latin"), ("korean", "latin")]


def seeds(text):
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def read(server, image, frames=1, **options):
    """The result of the last of `frames` sends of `image` in one session (each read:
    recognize_unchanged when more than one)."""
    if frames > 1:
        options["recognize_unchanged"] = True
    stream = server.session(**options)
    try:
        for frame_id in range(1, frames + 1):
            stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=frame_id, image=pb.Image(
                encoding=pb.ENCODING_JPEG, data=bm.jpeg(image)))))
            result = stream.receive().result
    finally:
        stream.close()
    assert result.status == pb.FRAME_STATUS_RECOGNIZED, result
    return result


def identified(result, truth):
    """Truth lines whose best-reading returned line says the right script, and the count."""
    lines = [line for block in result.text.blocks for line in block.lines]
    right = 0
    for expected in truth["lines"]:
        scored = [(bm.cer(line.text, expected["text"]), line) for line in lines]
        if not scored:
            continue
        error, line = min(scored, key=lambda pair: pair[0])
        if error <= 0.2 and line.script == SCRIPTS[expected["script"]]:
            right += 1
    return right, len(truth["lines"])


def frames(seed_list):
    for pair in PAIRS:
        for seed in seed_list:
            yield "+".join(pair), pair, cf.mixed_scene(pair, seed=seed)
    for script in SCRIPTS:
        for seed in seed_list:
            image, truth = cf.script_scene(script, seed=seed)
            for line in truth["lines"]:
                line["script"] = script
            yield script, (script,), (image, truth)


def measure(binary, seed_list, log=None):
    """Per frame set: CER, identified lines and ms for named and automatic sessions."""
    servers = {"lines": bm.Server(binary, "--replicas-per-script", "1")}
    rows = {}
    try:
        for name, scripts, (image, truth) in frames(seed_list):
            named = dict(scripts=[SCRIPTS[s] for s in scripts])
            runs = {"named": read(servers["lines"], image, **named),
                    "auto": read(servers["lines"], image, automatically_detect_script=True),
                    "auto-2nd": read(servers["lines"], image, frames=2, automatically_detect_script=True)}
            row = rows.setdefault(name, {})
            for system, result in runs.items():
                cell = row.setdefault(system, {"cer": [], "ms": [], "right": 0, "lines": 0})
                cell["cer"].append(bm.cer(result.text.text, "\n".join(line["text"] for line in truth["lines"])))
                cell["ms"].append(result.timing.recognize_us / 1000)
                right, total = identified(result, truth)
                cell["right"] += right
                cell["lines"] += total
            if log:
                log("%s %s" % (name, " ".join("%s %.3f" % (s, row[s]["cer"][-1]) for s in runs)))
    finally:
        for server in servers.values():
            server.stop()
    return {"seeds": len(seed_list), "rows": rows}


def resident_mb(pid):
    """The server's memory with its engine worker processes': PSS (shared library pages divided
    among the processes that map them), so that the sum is what the machine holds."""
    def pss(process):
        try:
            with open("/proc/%d/smaps_rollup" % process) as f:
                for line in f:
                    if line.startswith("Pss:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0
    import run as bench_run
    return pss(pid) + sum(pss(child) for child in bench_run.children(pid))


def pool_memory(binary, rounds=2, log=None):
    """The engine pool under sessions that flip between scripts: every single script, every
    pair of scripts and automatic detection, `rounds` times, each session reading one
    two-script sign (Latin + Devanagari) and one Japanese + Latin sign: PSS after start, PSS
    after the load (server and workers), and the engines loaded (from the server's log)."""
    import itertools
    import json
    signs = [cf.mixed_scene(("latin", "devanagari"), seed=100)[0], cf.mixed_scene(("japanese", "latin"), seed=100)[0]]
    combos = [[s] for s in SCRIPTS] + [list(p) for p in itertools.combinations(SCRIPTS, 2)] + [None]
    out = {}
    for mode in ("lines",):
        server = bm.Server(binary, "--replicas-per-script", "1", "--log-format", "json", log=True)
        try:
            time.sleep(3)  # the default engine and the detector load at start
            start = resident_mb(server.process.pid)
            for _ in range(rounds):
                for combo in combos:
                    options = (dict(automatically_detect_script=True) if combo is None
                               else dict(scripts=[SCRIPTS[s] for s in combo]))
                    for image in signs:
                        read(server, image, **options)
            after = resident_mb(server.process.pid)
            events = [json.loads(line) for line in server.read_log().splitlines() if line.startswith("{")]
            engines = sorted({e["engine"] for e in events if e.get("msg") == "engine loaded"})
        finally:
            server.stop()
        out[mode] = {"start_mb": start, "after_mb": after, "engines": engines}
        if log:
            log("%s: %.0f MB -> %.0f MB, engines %s" % (mode, start, after, ", ".join(engines)))
    out["sessions"] = rounds * len(combos)
    return out


def memory_lines(memory):
    lines = ["| several scripts | PSS after start | PSS after %d sessions | engines loaded |" % memory["sessions"],
             "|---|---:|---:|---|"]
    for mode in ("lines",):
        m = memory[mode]
        lines.append("| %s | %.0f MB | %.0f MB | %d: %s |" % (
            mode, m["start_mb"], m["after_mb"], len(m["engines"]), ", ".join("`%s`" % e for e in m["engines"])))
    return lines


def report_lines(result):
    lines = ["| frames (%d seeds each) | named: CER | named: script right | named: ms | auto: CER | auto: script right"
             " | auto: ms | auto, a stream's 2nd frame: CER | script right | ms |" % result["seeds"],
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, row in result["rows"].items():
        cells = []
        for system in ("named", "auto", "auto-2nd"):
            cell = row[system]
            cells += ["%.3f" % statistics.mean(cell["cer"]), "%d / %d" % (cell["right"], cell["lines"]),
                      "%.0f" % statistics.median(cell["ms"])]
        lines.append("| %s | %s |" % (name, " | ".join(cells)))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legibled", default=os.path.join(HERE, "..", ".build", "release", "legibled"))
    parser.add_argument("--seeds", default="100-104", help="first-last (default 100-104)")
    args = parser.parse_args()
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    result = measure(args.legibled, seeds(args.seeds), log)
    print("\n".join(report_lines(result)))
    print()
    print("\n".join(memory_lines(pool_memory(args.legibled, log=log))))


if __name__ == "__main__":
    main()
