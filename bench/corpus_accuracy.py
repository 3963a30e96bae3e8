#!/usr/bin/env python3
"""Accuracy on the real-image corpus (bench/corpus/): CER per kind and per script, and how
often a text-free image is answered empty, for the systems side by side in one run:

  cli                 `tesseract IMAGE - -l MODEL` (its own defaults: PSM 3), one process per image
  legible-tesseract   legibled --detector tesseract (Tesseract's own layout analysis), FAST
  legible-fast        legibled with the PP-OCRv4 line detector, FAST
  legible-accurate    the same, ACCURATE

Tuning and reporting are kept apart: each image is in the "tune" or the "held-out" part by a
hash of its id (a third tune, two thirds held out), and images looked at during development
(SEEN_IN_DEVELOPMENT) are in the tune part; the tables report both parts separately. No
threshold has been fitted to the corpus yet; the held-out part is for reporting only.

Every number comes from the real legibled (release build) over a unix socket with
OMP_THREAD_LIMIT=1 and --workers 1, images sent one at a time as the files are (JPEG and PNG
as they are, anything else as PNG). CER is bench/models.py's: NFC, CJK spaces removed, runs
of spaces and blank lines collapsed, Levenshtein over characters / the truth's length; a
text-free image's CER is undefined, it counts as "empty" or not.

    python3 bench/corpus_accuracy.py --legibled .build/release/legibled [--json bench/out/corpus.json]
"""
import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))
sys.path.insert(0, HERE)
from PIL import Image  # noqa: E402

import models as bm  # noqa: E402  (CER, Server)
from legible_client import pb  # noqa: E402
from corpus_parts import CORPUS, load_corpus, part  # noqa: E402,F401  (corpus.load_corpus, corpus.part elsewhere)

SCRIPT_OPTIONS = {
    "latin": [pb.SCRIPT_LATIN], "chinese": [pb.SCRIPT_CHINESE], "devanagari": [pb.SCRIPT_DEVANAGARI],
    "japanese": [pb.SCRIPT_JAPANESE], "korean": [pb.SCRIPT_KOREAN],
}
# The tesseract CLI's model per script: the language model a user of the CLI would pick.
CLI_MODEL = {"latin": "eng", "chinese": "chi_sim", "devanagari": "hin", "japanese": "jpn", "korean": "kor"}
SYSTEMS = ("cli", "legible-tesseract", "legible-fast", "legible-accurate")
# Not in the default set: FAST with automatically_detect_script and no script named (a camera
# client that does not know what it will see).
EXTRA_SYSTEMS = ("legible-auto",)


def scripts_of(entry):
    names = entry.get("scripts") or [entry["script"]]
    return [name for name in names if name in SCRIPT_OPTIONS] or ["latin"]


def encoded(path):
    data = open(path, "rb").read()
    if data[:2] == b"\xff\xd8":
        return pb.ENCODING_JPEG, data, ".jpg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return pb.ENCODING_PNG, data, ".png"
    buffer = io.BytesIO()
    Image.open(path).save(buffer, "PNG")
    return pb.ENCODING_PNG, buffer.getvalue(), ".png"


def cli_text(data, suffix, scripts):
    model = "+".join(CLI_MODEL[s] for s in scripts)
    with tempfile.NamedTemporaryFile(suffix=suffix, prefix="corpus-cli-") as f:
        f.write(data)
        f.flush()
        started = time.perf_counter()
        out = subprocess.run(["tesseract", f.name, "-", "-l", model], capture_output=True,
                             env=dict(os.environ, OMP_THREAD_LIMIT="1"), timeout=300)
        return out.stdout.decode("utf-8", "replace"), (time.perf_counter() - started) * 1000


# The Legible sessions' mode (--mode).
MODE = [pb.MODE_TEXT]


def legible_text(server, data, encoding, scripts, level, auto=False):
    mode = MODE[0]
    if auto:
        stream = server.session(automatically_detect_script=True, level=level, mode=mode)
    else:
        stream = server.session(scripts=[SCRIPT_OPTIONS[s][0] for s in scripts], level=level, mode=mode)
    try:
        stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=1, image=pb.Image(encoding=encoding, data=data))))
        result = stream.receive().result
    finally:
        stream.close()
    text = result.text.text if result.status == pb.FRAME_STATUS_RECOGNIZED else ""
    lines = [[line.text, round(line.confidence, 3), pb.Script.Name(line.script), line.model]
             for block in result.text.blocks for line in block.lines]
    return text, result.timing.recognize_us / 1000, lines


def measure(entries, binary, systems, log, variants=None, variant_level=pb.LEVEL_FAST):
    """`variants`: extra systems, name -> legibled flags, each read at `variant_level`."""
    variants = variants or {}
    rows = []
    servers = {}
    try:
        if "legible-tesseract" in systems:
            servers["tesseract"] = bm.Server(binary, "--detector", "tesseract")
        if {"legible-fast", "legible-accurate", "legible-auto"} & set(systems):
            servers["detector"] = bm.Server(binary)
        for name, flags in variants.items():
            servers[name] = bm.Server(binary, *flags)
        for index, entry in enumerate(entries, 1):
            encoding, data, suffix = encoded(os.path.join(CORPUS, entry["file"]))
            scripts = scripts_of(entry)
            row = {k: entry[k] for k in ("id", "kind", "script", "part")}
            row["scripts"] = scripts
            row["empty_truth"] = not bm.normalise(entry["truth"])
            for system in systems:
                lines = None
                if system == "cli":
                    text, ms = cli_text(data, suffix, scripts)
                elif system == "legible-tesseract":
                    text, ms, lines = legible_text(servers["tesseract"], data, encoding, scripts, pb.LEVEL_FAST)
                elif system == "legible-auto":
                    text, ms, lines = legible_text(servers["detector"], data, encoding, scripts, pb.LEVEL_FAST, auto=True)
                elif system in variants:
                    text, ms, lines = legible_text(servers[system], data, encoding, scripts, variant_level)
                else:
                    level = pb.LEVEL_FAST if system == "legible-fast" else pb.LEVEL_ACCURATE
                    text, ms, lines = legible_text(servers["detector"], data, encoding, scripts, level)
                row[system] = {"cer": None if row["empty_truth"] else bm.cer(text, entry["truth"]),
                               "empty": not bm.normalise(text), "ms": round(ms, 1), "text": text, "lines": lines}
            rows.append(row)
            log("%3d/%d %-28s %-12s %-10s %s" % (
                index, len(entries), entry["id"][:28], entry["kind"], entry["script"],
                " ".join("%s %s" % (s, "empty" if row[s]["cer"] is None and row[s]["empty"] else
                                    ("-" if row[s]["cer"] is None else "%.3f" % row[s]["cer"])) for s in systems)))
    finally:
        for server in servers.values():
            server.stop()
    return rows


def table(rows, systems, key, title):
    """Mean CER per group (text images), and for text-free images the share answered empty."""
    lines = ["### %s" % title, "", "| %s | images | %s |" % (key, " | ".join(systems)),
             "|---|---:|%s" % ("---:|" * len(systems))]
    groups = sorted({r[key] for r in rows})
    for group in groups + ["all"]:
        members = [r for r in rows if (group == "all" or r[key] == group) and not r["empty_truth"]]
        if members:
            cells = ["%.3f" % statistics.mean(r[s]["cer"] for r in members) for s in systems]
            lines.append("| %s | %d | %s |" % (group, len(members), " | ".join(cells)))
    empty = [r for r in rows if r["empty_truth"]]
    if empty:
        cells = ["%d %%" % round(100 * sum(r[s]["empty"] for r in empty) / len(empty)) for s in systems]
        lines.append("| text-free: answered empty | %d | %s |" % (len(empty), " | ".join(cells)))
    lines.append("")
    return "\n".join(lines)


def script_table(rows, systems, title):
    """Script identification on real images: of the lines each Legible system answered, the share
    whose TextLine.script is one of the image's scripts, per image script (mixed: either of its
    scripts counts). A line of digits or a logo's letters in a Chinese image named Latin counts
    against it, though a reader might call it right."""
    systems = [s for s in systems if s != "cli"]
    lines = ["### %s" % title, "", "| image script | images | %s |" % " | ".join(systems),
             "|---|---:|%s" % ("---:|" * len(systems))]
    texts = [r for r in rows if not r["empty_truth"]]
    for group in sorted({r["script"] for r in texts}) + ["all"]:
        members = [r for r in texts if group == "all" or r["script"] == group]
        cells = []
        for system in systems:
            answered = [(line[2], r["scripts"]) for r in members for line in (r[system]["lines"] or [])]
            right = sum(1 for script, scripts in answered if script.replace("SCRIPT_", "").lower() in scripts)
            cells.append("%d %% of %d" % (round(100 * right / len(answered)), len(answered)) if answered else "–")
        lines.append("| %s | %d | %s |" % (group, len(members), " | ".join(cells)))
    lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legibled", default=os.path.join(HERE, "..", ".build", "release", "legibled"))
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated subset of " + ", ".join(SYSTEMS + EXTRA_SYSTEMS))
    parser.add_argument("--only", help="ids containing this text")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=FLAGS",
                        help="one more system: legibled with these flags, at FAST (e.g. latin-model='--model latin=Latin')")
    parser.add_argument("--variant-level", choices=("fast", "accurate"), default="fast",
                        help="the level the --variant systems read at")
    parser.add_argument("--script", help="only images of this script (latin, chinese, ..., mixed, none)")
    parser.add_argument("--part", choices=("tune", "held-out"), help="only this part (tune while choosing a setting)")
    parser.add_argument("--json", help="write every row (with texts) here")
    parser.add_argument("--mode", choices=("text", "document"), default="text",
                        help="the Legible sessions' RecognitionOptions.mode")
    args = parser.parse_args()
    MODE[0] = pb.MODE_DOCUMENT if args.mode == "document" else pb.MODE_TEXT
    variants = {}
    for item in args.variant:
        name, _, flags = item.partition("=")
        variants[name] = flags.split()
    systems = [s for s in args.systems.split(",") if s] + list(variants)
    entries = [e for e in load_corpus() if (not args.only or args.only in e["id"])
               and (not args.script or e["script"] == args.script) and (not args.part or e["part"] == args.part)]
    rows = measure(entries, args.legibled, systems, lambda line: print(line, file=sys.stderr, flush=True), variants,
                   variant_level=pb.LEVEL_ACCURATE if args.variant_level == "accurate" else pb.LEVEL_FAST)
    for name in ("held-out", "tune"):
        subset = [r for r in rows if r["part"] == name]
        if subset:
            print(table(subset, systems, "kind", "CER per kind, %s part (%d images)" % (name, len(subset))))
            print(table(subset, systems, "script", "CER per script, %s part" % name))
            print(script_table(subset, systems, "Lines answered in one of the image's scripts, %s part" % name))
    medians = {s: statistics.median(r[s]["ms"] for r in rows) for s in systems}
    print("Median ms per image: " + ", ".join("%s %.0f" % (s, medians[s]) for s in systems) +
          " (cli: wall time of the process; legible: the server's recognize time)\n")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump({"systems": systems, "rows": rows}, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
