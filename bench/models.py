#!/usr/bin/env python3
"""Recognition choices, measured in one run (make bench-models):

1. models: per script, the language model and the script model: CER at FAST and ACCURATE on
   the generated camera scenes of that script (scripts/camera_frames.py, 3 seeds; Latin also
   on a German/French/Spanish/Vietnamese scene), recognition time per frame (the server's
   Timing.recognize_us, median) and resident memory of one engine (legible-floor's VmRSS after
   one recognition minus before the engine was made).
2. levels: FAST against ACCURATE on hard Latin frames (small, inverted, dim and uneven,
   blurred, large text): CER and time.
3. two scripts: one engine with both models (what a Latin + Devanagari session uses) against
   two single-script engines each reading the frame, merged per line by box overlap and
   confidence (the alternative): CER and time.

Every number comes from the real legibled (release build) over a unix socket, OMP_THREAD_LIMIT=1,
--workers 1, frames sent one at a time. Writes markdown tables to stdout and JSON to --json.
"""
import argparse
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

import camera_frames as cf  # noqa: E402
from legible_client import Stream, build_image, pb  # noqa: E402

SCRIPTS = {
    "latin": ("eng", "Latin"),
    "chinese": ("chi_sim", "HanS"),
    "devanagari": ("hin", "Devanagari"),
    "japanese": ("jpn", "Japanese"),
    "korean": ("kor", "Hangul"),
}
PROTO_SCRIPT = {"latin": pb.SCRIPT_LATIN, "chinese": pb.SCRIPT_CHINESE, "devanagari": pb.SCRIPT_DEVANAGARI,
                "japanese": pb.SCRIPT_JAPANESE, "korean": pb.SCRIPT_KOREAN}
SEEDS = (cf.SEED, cf.SEED + 11, cf.SEED + 23)
# Han and kana: Chinese and Japanese are written without spaces. Korean is written with
# spaces between words, so they count.
_CJK = r"[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]"


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def normalise(text):
    """NFC, one space between words, none between Han or kana characters (the script models put
    one between every pair), no blank lines. Korean keeps its word spaces."""
    text = unicodedata.normalize("NFC", text)
    text = re.sub(r"(?<=%s) +(?=%s)" % (_CJK, _CJK), "", text)
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def levenshtein(a, b):
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
        previous = current
    return previous[-1]


def cer(got, want):
    got, want = normalise(got), normalise(want)
    return levenshtein(got, want) / max(1, len(want))


def jpeg(image):
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, "JPEG", quality=92)
    return buffer.getvalue()


class Server:
    def __init__(self, binary, *flags, log=False):
        """`log`: keep the server's log (stderr) for `read_log()`; otherwise it is dropped."""
        self.dir = tempfile.mkdtemp(prefix="legible-bench-")
        self.address = "unix:" + os.path.join(self.dir, "s.sock")
        env = dict(os.environ, OMP_THREAD_LIMIT="1")
        self.log_path = os.path.join(self.dir, "log") if log else None
        stderr = open(self.log_path, "w") if log else subprocess.DEVNULL
        self.process = subprocess.Popen([binary, "--listen", self.address, "--workers", "1", *flags], env=env,
                                        stderr=stderr)
        deadline = time.monotonic() + 30
        while not os.path.exists(self.address[5:]):
            assert self.process.poll() is None and time.monotonic() < deadline, "legibled did not start"
            time.sleep(0.05)

    def session(self, **options):
        stream = Stream(self.address)
        options.setdefault("recognize_unchanged", True)
        stream.send(pb.ClientMessage(start=pb.StartSession(options=pb.RecognitionOptions(**options))))
        message = stream.receive()
        assert message.WhichOneof("message") == "started", message
        return stream

    def read_log(self):
        with open(self.log_path) as f:
            return f.read()

    def stop(self):
        self.process.terminate()
        self.process.wait()


def read(stream, image, frame_id):
    stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=frame_id, image=build_image(pb.ENCODING_JPEG, jpeg(image)))))
    result = stream.receive().result
    assert result.status == pb.FRAME_STATUS_RECOGNIZED, result
    return result


def measure(stream, frames, warm=True):
    """(mean CER, median recognition ms) over frames; the first frame is read once untimed."""
    if warm:
        read(stream, frames[0][0], 0)
    errors, times = [], []
    for index, (image, truth) in enumerate(frames, 1):
        result = read(stream, image, index)
        errors.append(cer(result.text.text, cf.truth_text(truth)))
        times.append(result.timing.recognize_us / 1000)
    return statistics.mean(errors), statistics.median(times)


def resident_mb(floor, model, image_path):
    out = subprocess.run([floor, "--model", model, "--repeat", "1", "--warmup", "0", image_path],
                         env=dict(os.environ, OMP_THREAD_LIMIT="1"), capture_output=True, text=True, check=True)
    row = json.loads(out.stdout)
    return (row["rss_kb"] - row["rss_before_engine_kb"]) / 1024


def models_table(binary, floor, image_path):
    rows = []
    for script, (language_model, script_model) in SCRIPTS.items():
        scenes = [("", [cf.script_scene(script, seed=seed) for seed in SEEDS])]
        if script == "latin":
            scenes.append((" (de/fr/es/vi)", [cf.script_scene("latin-multilingual", seed=seed) for seed in SEEDS]))
        for kind, model in (("language", language_model), ("script", script_model)):
            server = Server(binary, "--model", f"{script}={model}")
            try:
                for label, frames in scenes:
                    row = {"script": script + label, "kind": kind, "model": model}
                    for level, name in ((pb.LEVEL_FAST, "fast"), (pb.LEVEL_ACCURATE, "accurate")):
                        stream = server.session(scripts=[PROTO_SCRIPT[script]], level=level)
                        row[f"cer_{name}"], row[f"ms_{name}"] = measure(stream, frames)
                        stream.close()
                    row["mb"] = resident_mb(floor, model, image_path)
                    rows.append(row)
                    log(json.dumps(row))
            finally:
                server.stop()
    return rows


def hard_frames():
    frames = {"normal": cf.scene()}
    frames["small (13 px)"] = cf.scene(size_scale=0.42, perspective=1.5, blur=0.5)
    frames["tiny (9 px)"] = cf.scene(size_scale=0.3, perspective=1.0, blur=0.4)
    frames["inverted"] = cf.scene(inverted=True)
    image, truth = cf.scene(seed=7)
    pixels = np.asarray(image, np.float32) * np.linspace(0.25, 1.0, image.width)[None, :, None]
    frames["dim, uneven"] = (Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)), truth)
    frames["blurred"] = cf.scene(blur=1.8, noise=5)
    frames["large (62 px)"] = cf.scene(lines=[(t, int(s * 2.2)) for t, s in cf.SHORT_LINES])
    return frames


def levels_table(binary):
    server = Server(binary)
    rows = []
    try:
        for name, frame in hard_frames().items():
            row = {"frame": name}
            for level, label in ((pb.LEVEL_FAST, "fast"), (pb.LEVEL_ACCURATE, "accurate")):
                stream = server.session(level=level)
                row[f"cer_{label}"], row[f"ms_{label}"] = measure(stream, [frame] * 3)
                stream.close()
            rows.append(row)
            log(json.dumps(row))
    finally:
        server.stop()
    return rows


def iou(a, b):
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    w = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    h = max(0, min(ay + ah, by + bh) - max(ay, by))
    union = aw * ah + bw * bh - w * h
    return w * h / union if union else 0


def merged_text(results):
    """Per line the more confident reading among engines, lines matched by box overlap."""
    kept = []
    for result in results:
        for block in result.text.blocks:
            for line in block.lines:
                box = (line.frame.x, line.frame.y, line.frame.width, line.frame.height)
                clash = [i for i, (other, _, _) in enumerate(kept) if iou(other, box) > 0.3]
                if clash:
                    if line.confidence > kept[clash[0]][2]:
                        kept[clash[0]] = (box, line.text, line.confidence)
                else:
                    kept.append((box, line.text, line.confidence))
    kept.sort(key=lambda k: k[0][1])
    return "\n".join(text for _, text, _ in kept)


def two_scripts_table(binary):
    frames = [cf.mixed_scene(("latin", "devanagari"), seed=seed) for seed in SEEDS]
    server = Server(binary)
    try:
        combined = server.session(scripts=[pb.SCRIPT_LATIN, pb.SCRIPT_DEVANAGARI])
        latin = server.session(scripts=[pb.SCRIPT_LATIN])
        hindi = server.session(scripts=[pb.SCRIPT_DEVANAGARI])
        for stream in (combined, latin, hindi):
            read(stream, frames[0][0], 0)
        rows = {"one engine, both models": ([], []), "two engines, merged per line": ([], [])}
        for index, (image, truth) in enumerate(frames, 1):
            want = cf.truth_text(truth)
            result = read(combined, image, index)
            rows["one engine, both models"][0].append(cer(result.text.text, want))
            rows["one engine, both models"][1].append(result.timing.recognize_us / 1000)
            both = [read(latin, image, index), read(hindi, image, index)]
            rows["two engines, merged per line"][0].append(cer(merged_text(both), want))
            rows["two engines, merged per line"][1].append(sum(r.timing.recognize_us for r in both) / 1000)
        out = [{"approach": k, "cer": statistics.mean(v[0]), "ms": statistics.median(v[1])} for k, v in rows.items()]
        for row in out:
            log(json.dumps(row))
        return out
    finally:
        server.stop()


def markdown(models, levels, two):
    lines = ["### Models per script (FAST and ACCURATE; CER on 3 generated camera frames each)", "",
             "| script | kind | model | CER fast | CER accurate | ms fast | ms accurate | MB resident |",
             "|---|---|---|---|---|---|---|---|"]
    for r in models:
        lines.append(f"| {r['script']} | {r['kind']} | {r['model']} | {r['cer_fast']:.3f} | {r['cer_accurate']:.3f} "
                     f"| {r['ms_fast']:.0f} | {r['ms_accurate']:.0f} | {r['mb']:.0f} |")
    lines += ["", "### Levels on hard frames (eng)", "",
              "| frame | CER fast | CER accurate | ms fast | ms accurate |", "|---|---|---|---|---|"]
    for r in levels:
        lines.append(f"| {r['frame']} | {r['cer_fast']:.3f} | {r['cer_accurate']:.3f} | {r['ms_fast']:.0f} | {r['ms_accurate']:.0f} |")
    lines += ["", "### A Latin + Devanagari session (3 mixed frames)", "", "| approach | CER | ms per frame |", "|---|---|---|"]
    for r in two:
        lines.append(f"| {r['approach']} | {r['cer']:.3f} | {r['ms']:.0f} |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--legibled", required=True)
    p.add_argument("--floor", required=True, help="legible-floor, for resident memory per model")
    p.add_argument("--image", default=os.path.join(HERE, "..", "Tests", "Fixtures", "camera-720p.jpg"))
    p.add_argument("--json", help="also write the rows here")
    p.add_argument("--only", choices=["models", "levels", "two"], action="append")
    a = p.parse_args()
    parts = a.only or ["models", "levels", "two"]
    models = models_table(a.legibled, a.floor, a.image) if "models" in parts else []
    levels = levels_table(a.legibled) if "levels" in parts else []
    two = two_scripts_table(a.legibled) if "two" in parts else []
    print(markdown(models, levels, two))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"models": models, "levels": levels, "two_scripts": two}, f, indent=1)


if __name__ == "__main__":
    main()
