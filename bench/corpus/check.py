#!/usr/bin/env python3
"""Validate bench/corpus/manifest.json and print counts per script x kind.

Usage: python3 bench/corpus/check.py   (exit status 1 on any problem)
"""
import collections, json, os, sys, unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = {"latin", "chinese", "devanagari", "japanese", "korean", "mixed", "none"}
KINDS = ["scene", "label", "receipt", "page", "screenshot", "vertical", "mixed-script", "no-text"]
REQUIRED = ["id", "file", "script", "scripts", "kind", "source", "licence", "author", "width", "height", "notes"]


def main():
    manifest = json.load(open(os.path.join(HERE, "manifest.json"), encoding="utf-8"))
    problems, ids = [], set()
    for e in manifest:
        eid = e.get("id", "?")
        for k in REQUIRED:
            if k not in e:
                problems.append(f"{eid}: missing field {k}")
        if eid in ids:
            problems.append(f"{eid}: duplicate id")
        ids.add(eid)
        if e.get("script") not in SCRIPTS:
            problems.append(f"{eid}: unknown script {e.get('script')}")
        if e.get("kind") not in KINDS:
            problems.append(f"{eid}: unknown kind {e.get('kind')}")
        for s in e.get("scripts", []):
            if s not in SCRIPTS - {"mixed", "none"}:
                problems.append(f"{eid}: unknown entry {s} in scripts")
        src = e.get("source", {})
        if not (isinstance(src, dict) and src.get("repo") and src.get("path") and len(src.get("commit", "")) == 40):
            problems.append(f"{eid}: source needs repo, path and a 40-hex commit")
        if not e.get("licence"):
            problems.append(f"{eid}: no licence")
        img = os.path.join(HERE, e.get("file", ""))
        if not os.path.isfile(img):
            problems.append(f"{eid}: image {e.get('file')} missing")
        else:
            try:
                from PIL import Image
                with Image.open(img) as im:
                    if im.size != (e.get("width"), e.get("height")):
                        problems.append(f"{eid}: size {im.size} != manifest {e.get('width')}x{e.get('height')}")
                    if max(im.size) > 1600:
                        problems.append(f"{eid}: long side {max(im.size)} > 1600")
            except ImportError:
                pass
        truth = os.path.join(HERE, "truth", f"{eid}.txt")
        if not os.path.isfile(truth):
            problems.append(f"{eid}: truth/{eid}.txt missing")
        else:
            raw = open(truth, "rb").read()
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                problems.append(f"{eid}: truth is not UTF-8")
                text = ""
            if e.get("kind") == "no-text" and text.strip():
                problems.append(f"{eid}: no-text image with non-empty truth")
            if e.get("kind") != "no-text" and not text.strip():
                problems.append(f"{eid}: empty truth for an image with text")
            for i, line in enumerate(text.splitlines(), 1):
                if line != line.strip() or "  " in line or "\t" in line:
                    problems.append(f"{eid}: line {i} has leading/trailing/double spaces or tabs")
                if not line.strip():
                    problems.append(f"{eid}: blank line {i}")
            if text != unicodedata.normalize("NFC", text):
                problems.append(f"{eid}: truth is not NFC")
    files = set(os.listdir(os.path.join(HERE, "images")))
    listed = {os.path.basename(e.get("file", "")) for e in manifest}
    for f in sorted(files - listed):
        problems.append(f"images/{f} is not in the manifest")

    # counts
    table = collections.Counter((e["script"], e["kind"]) for e in manifest)
    scripts = sorted({s for s, _ in table}, key=lambda s: ["latin", "chinese", "devanagari", "japanese", "korean", "mixed", "none"].index(s))
    w = 12
    print("script".ljust(w) + "".join(k[:10].rjust(11) for k in KINDS) + "total".rjust(8))
    for s in scripts:
        row = [table[(s, k)] for k in KINDS]
        print(s.ljust(w) + "".join(str(n or ".").rjust(11) for n in row) + str(sum(row)).rjust(8))
    col = [sum(table[(s, k)] for s in scripts) for k in KINDS]
    print("total".ljust(w) + "".join(str(n).rjust(11) for n in col) + str(len(manifest)).rjust(8))
    per = collections.Counter(s for e in manifest for s in e.get("scripts", []))
    print("images containing each script:", ", ".join(f"{s} {per[s]}" for s in ["latin", "chinese", "devanagari", "japanese", "korean"]))
    chars = sum(len(open(os.path.join(HERE, "truth", f"{e['id']}.txt"), encoding="utf-8").read().replace("\n", "")) for e in manifest if os.path.isfile(os.path.join(HERE, "truth", f"{e['id']}.txt")))
    size = sum(os.path.getsize(os.path.join(HERE, "images", f)) for f in files)
    print(f"{len(manifest)} images, {chars} truth characters, images {size / 1e6:.1f} MB")
    if problems:
        print(f"\n{len(problems)} problem(s):")
        for p in problems:
            print("  " + p)
        return 1
    print("manifest OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
