#!/usr/bin/env python3
"""Vertical Chinese and Japanese: generated camera-like frames of 2-4 columns read top to bottom,
columns right to left (a shop sign, a plaque, a poster), read by legibled in a session of the
script (--script chinese: PP-OCR's recognizer; japanese: Tesseract's jpn_vert).

Each frame: a light, unevenly lit ground (tilt_and_clutter.ground), 2-4 columns of 4-9
characters of Noto Sans or Noto Serif CJK (SC or JP) at 36-56 px, a slight blur, JPEG. The truth is the
columns' text right to left, one line each. CER as bench/models.py computes it (CJK spaces
removed). Seeds 0-9 are the tune part (looked at while the column reading was written); the
report uses seeds 100-119, which were not.

    python3 bench/vertical_columns.py --legibled .build/release/legibled [--seeds 100-119]
"""
import argparse
import os
import random
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))
sys.path.insert(0, HERE)
import numpy as np  # noqa: E402
from PIL import Image, ImageDraw, ImageFilter, ImageFont  # noqa: E402

import models as bm  # noqa: E402
import tilt_and_clutter as tc  # noqa: E402
from legible_client import pb  # noqa: E402

# Face 2 of the Noto CJK collections is SC, face 0 JP.
FONTS = {"chinese": (("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),
                     ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 2)),
         "japanese": (("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 0),
                      ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 0))}
# Everyday sign and label words; columns are drawn from them at random.
PHRASES = ("欢迎光临 营业时间 早上九点 晚上十点 新鲜水果 特价商品 今日推荐 请勿吸烟 安全出口 小心地滑 "
           "中华料理 手工面条 北京烤鸭 茶叶专卖 百年老店 生意兴隆 恭喜发财 万事如意 学校大门 图书馆 "
           "研究中心 人民医院 地铁站 火车站 停车场 洗手间 办公室 会议室 收银台 服务中心").split()
# No "ー" or "、": vertical type turns them (and PIL, without libraqm, draws them horizontal).
JAPANESE = ("いらっしゃいませ 営業時間 午前十時から 本日のおすすめ 禁煙 非常口 足元にご注意 手打ちそば "
            "和菓子 お茶 駅前通り 図書館 学生会館 お手洗い 受付 特売品 新鮮な野菜 ありがとう またお越しください").split()
PHRASE_SETS = {"chinese": PHRASES, "japanese": JAPANESE}
SESSION = {"chinese": dict(scripts=[pb.SCRIPT_CHINESE]), "japanese": dict(language_hints=["ja"])}


def column_frame(seed, script="chinese"):
    rng = random.Random(seed)
    phrases = PHRASE_SETS[script]
    width, height = rng.choice(((720, 1280), (1280, 720), (960, 960)))
    background = tc.ground(rng, size=(width, height))
    font_path, index = rng.choice(FONTS[script])
    size = rng.choice((36, 44, 56))
    font = ImageFont.truetype(font_path, size, index=index)
    pitch = int(size * 1.15)
    count = rng.randint(2, 4)
    layer = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(layer)
    truth = []
    x = width - rng.randint(100, 220)
    for _ in range(count):
        text = ""
        while len(text) < rng.randint(4, 9):
            text += rng.choice(phrases)
        text = text[:max(4, min(len(text), (height - 160) // pitch))]
        y = rng.randint(60, max(61, height - 60 - pitch * len(text)))
        for character in text:
            draw.text((x, y), character, font=font, fill=255)
            y += pitch
        truth.append(text)
        x -= int(size * rng.uniform(1.7, 2.3))
        if x < 40:
            break
    alpha = np.array(layer, dtype=np.float64) / 255
    frame = background * (1 - alpha) + rng.uniform(20, 60) * alpha
    image = Image.fromarray(np.clip(frame, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.7))
    return image, "\n".join(truth)


def read(server, image, level, script):
    stream = server.session(level=level, **SESSION[script])
    try:
        stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=1, image=pb.Image(
            encoding=pb.ENCODING_JPEG, data=tc.jpeg(image)))))
        return stream.receive().result
    finally:
        stream.close()


def seeds(text):
    first, _, last = text.partition("-")
    return range(int(first), int(last or first) + 1)


def measure(binary, script, seed_range, level=pb.LEVEL_FAST, flags=(), log=None, save=None):
    """Mean and median CER over the frames of `seed_range`, one server for them all."""
    server = bm.Server(binary, *flags)
    rates = []
    try:
        for seed in seed_range:
            image, truth = column_frame(seed, script)
            if save:
                os.makedirs(save, exist_ok=True)
                image.save(os.path.join(save, "columns-%s-%d.png" % (script, seed)))
            result = read(server, image, level, script)
            text = result.text.text if result.status == pb.FRAME_STATUS_RECOGNIZED else ""
            rates.append(bm.cer(text, truth))
            if log:
                log("seed %3d CER %.3f  %s | %s" % (seed, rates[-1], truth.replace("\n", " / "),
                                                   text.replace("\n", " / ")))
    finally:
        server.stop()
    return {"script": script, "frames": len(rates), "mean": statistics.mean(rates),
            "median": statistics.median(rates), "exact": sum(rate == 0 for rate in rates)}


def report_lines(results):
    lines = ["| script | frames | mean CER | median CER | read exactly |", "|---|---:|---:|---:|---:|"]
    for r in results:
        lines.append("| %s | %d | %.3f | %.3f | %d |" % (r["script"], r["frames"], r["mean"], r["median"], r["exact"]))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legibled", default=os.path.join(HERE, "..", ".build", "release", "legibled"))
    parser.add_argument("--seeds", default="100-119", help="frames to read (0-9: the tune part)")
    parser.add_argument("--level", choices=("fast", "accurate"), default="fast")
    parser.add_argument("--script", choices=("chinese", "japanese", "both"), default="both")
    parser.add_argument("--flags", default="", help="more legibled flags, such as '--pp-ocr-scripts none'")
    parser.add_argument("--save", help="write the frames here as PNG")
    args = parser.parse_args()
    level = pb.LEVEL_FAST if args.level == "fast" else pb.LEVEL_ACCURATE
    scripts = ("chinese", "japanese") if args.script == "both" else (args.script,)
    results = [measure(args.legibled, script, seeds(args.seeds), level, args.flags.split(),
                       lambda line: print(line, file=sys.stderr, flush=True), args.save) for script in scripts]
    print("Vertical columns, seeds %s, %s:" % (args.seeds, args.level))
    print("\n".join(report_lines(results)))


if __name__ == "__main__":
    main()
