"""Drawing a FrameResult on a frame: word and line boxes, the lines' text, stable lines in green.

Legible's coordinates are in the *upright* image (the stored pixels turned by the frame's
orientation). `draw_overlay` draws either on that upright view (`draw_on="upright"`: the frame is
turned upright first) or back on the stored frame (`draw_on="sensor"`: each box is mapped with
`upright_to_sensor`), which is what a camera app does to mark its own sensor buffer.
"""
from __future__ import annotations

from typing import Iterator, Literal

import cv2
import numpy as np

from . import pb, upright_to_sensor
from .frames import to_upright

DrawOn = Literal["upright", "sensor"]
Box = tuple[int, int, int, int]

# Colours, BGR. Tests look for these exact values in lossless output.
WORD_COLOR = (255, 144, 30)      # blue: every word (element) box
LINE_COLOR = (0, 165, 255)       # orange: a line box and its text
STABLE_COLOR = (40, 200, 0)      # green: a line that has held its text for --stable-after results
ROI_COLOR = (200, 200, 200)      # grey: the region of interest
CANDIDATE_COLOR = (255, 0, 255)  # magenta: a capture goal's value read, not yet confirmed
CAPTURED_COLOR = (0, 255, 255)   # yellow: the value that captured its goal, in the result that confirmed it
CAPTION_COLOR = (255, 255, 255)
SHADOW_COLOR = (0, 0, 0)

LINE_PADDING = 3   # px around a line box, so it does not hide the word boxes on its edge
FONT = cv2.FONT_HERSHEY_SIMPLEX


def lines_of(text: pb.Text) -> Iterator[tuple[pb.TextLine | pb.TextParagraph, list[pb.TextElement]]]:
    """Each line with its words: MODE_TEXT's lines and elements, or MODE_DOCUMENT's paragraphs
    and words (a block has one or the other)."""
    for block in text.blocks:
        if block.lines:
            for line in block.lines:
                yield line, list(line.elements)
        else:
            for paragraph in block.paragraphs:
                yield paragraph, list(paragraph.words)


def is_stable(line: pb.TextLine | pb.TextParagraph, result: pb.FrameResult, stable_after: int) -> bool:
    """A line to highlight: it held its text for `stable_after` results, or the server says
    every line is stable (FrameResult.stable)."""
    return result.stable or getattr(line, "stable_frames", 0) >= max(1, stable_after)


def _ascii(text: str) -> str:
    """OpenCV's Hershey fonts draw ASCII only."""
    return text.encode("ascii", "replace").decode("ascii")


def _label(canvas: np.ndarray, text: str, x: int, y: int, color: tuple[int, int, int], scale: float = 0.5) -> None:
    cv2.putText(canvas, text, (x, y), FONT, scale, SHADOW_COLOR, 3, cv2.LINE_AA)
    cv2.putText(canvas, text, (x, y), FONT, scale, color, 1, cv2.LINE_AA)


def _rectangle(canvas: np.ndarray, box: Box, color: tuple[int, int, int], thickness: int) -> None:
    x, y, w, h = box
    cv2.rectangle(canvas, (x, y), (x + max(w, 1) - 1, y + max(h, 1) - 1), color, thickness)


def draw_overlay(stored: np.ndarray, result: pb.FrameResult | None, orientation: int, *,
                 draw_on: DrawOn = "upright", stable_after: int = 3, roi: Box | None = None,
                 caption: str | None = None) -> np.ndarray:
    """A new annotated image; `stored` (BGR, as captured) is left as it is.

    orientation: how `stored` turns upright (the orientation sent, or the one the server
    applied). result: the result whose boxes to draw, or None for the caption only. With
    draw_on="upright" the image returned is the upright view; with "sensor" it is the stored
    frame's size and the boxes are mapped back onto it.
    """
    height, width = stored.shape[:2]
    if draw_on == "upright":
        canvas = to_upright(stored, orientation)

        def place(box: Box) -> Box:
            return box
    else:
        canvas = stored.copy()

        def place(box: Box) -> Box:
            return upright_to_sensor(box, orientation, width, height)

    if roi is not None:
        _rectangle(canvas, place(roi), ROI_COLOR, 1)
    if result is not None:
        for line, _ in lines_of(result.text):
            f = line.frame
            padded = (f.x - LINE_PADDING, f.y - LINE_PADDING, f.width + 2 * LINE_PADDING, f.height + 2 * LINE_PADDING)
            color = STABLE_COLOR if is_stable(line, result, stable_after) else LINE_COLOR
            x, y, w, h = place(padded)
            _rectangle(canvas, (x, y, w, h), color, 2)
            _label(canvas, _ascii(line.text), x, y - 6 if y >= 18 else y + h + 16, color)
        for _, words in lines_of(result.text):
            for word in words:
                _rectangle(canvas, place((word.frame.x, word.frame.y, word.frame.width, word.frame.height)), WORD_COLOR, 1)
        for capture in result.captures:
            color = CAPTURED_COLOR if capture.captured else CANDIDATE_COLOR
            for f in capture.frames:
                _rectangle(canvas, place((f.x - 2, f.y - 2, f.width + 4, f.height + 4)), color, 3 if capture.captured else 2)
            if capture.captured and capture.frames:
                x, y, _, h = place((capture.frames[0].x, capture.frames[0].y, capture.frames[0].width,
                                    capture.frames[0].height))
                _label(canvas, _ascii(f"{capture.goal}: {capture.value}"), x, y + h + 18, color)
    if caption:
        _label(canvas, caption, 6, 18, CAPTION_COLOR)
    return canvas
