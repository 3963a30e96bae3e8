"""OpenCV frames to Legible images: the wire encodings, orientation names and the upright view.

OpenCV hands out frames as BGR `numpy` arrays (rows x columns x 3, uint8). This module turns one
into a `pb.Image` in any of the protocol's encodings, laid out as legible.proto says, and turns a
stored (sensor) frame upright for drawing. Coordinate mapping of boxes lives in the package's
`upright_to_sensor` / `sensor_to_upright`; this module only moves pixels.
"""
from __future__ import annotations

import cv2
import numpy as np

from . import build_image, pb

# ---------------------------------------------------------------- names on the command line


def _enum_names(enum, prefix: str) -> dict[str, int]:
    """{'up-mirrored': 2, ...}: a proto enum's values by their lower-case, dashed names
    (the UNSPECIFIED value left out)."""
    return {name.removeprefix(prefix).lower().replace("_", "-"): number
            for name, number in enum.items() if number != 0}


ORIENTATIONS: dict[str, int] = _enum_names(pb.Orientation, "ORIENTATION_")
ENCODINGS: dict[str, int] = _enum_names(pb.Encoding, "ENCODING_")
SCRIPTS: dict[str, int] = _enum_names(pb.Script, "SCRIPT_")
MODES: dict[str, int] = _enum_names(pb.Mode, "MODE_")
LEVELS: dict[str, int] = _enum_names(pb.Level, "LEVEL_")
STATUS_NAMES: dict[int, str] = {number: name for name, number in _enum_names(pb.FrameStatus, "FRAME_STATUS_").items()}


def parse_orientation(text: str) -> int:
    """An orientation by name ('right', 'up_mirrored', 'RIGHT') or EXIF number ('6')."""
    key = text.strip().lower().replace("_", "-").removeprefix("orientation-")
    if key.isdigit() and int(key) in ORIENTATIONS.values():
        return int(key)
    if key in ORIENTATIONS:
        return ORIENTATIONS[key]
    raise ValueError(f"unknown orientation {text!r} (one of {', '.join(ORIENTATIONS)} or 1..8)")


# ---------------------------------------------------------------- upright view

# cv2 operations that make a stored frame upright, per EXIF orientation (legible.proto's table:
# upright pixel (ux, uy) comes from the stored pixel upright_to_sensor gives for it).
_TO_UPRIGHT = {
    pb.ORIENTATION_UP_MIRRORED: lambda a: cv2.flip(a, 1),
    pb.ORIENTATION_DOWN: lambda a: cv2.rotate(a, cv2.ROTATE_180),
    pb.ORIENTATION_DOWN_MIRRORED: lambda a: cv2.flip(a, 0),
    pb.ORIENTATION_LEFT_MIRRORED: lambda a: cv2.transpose(a),
    pb.ORIENTATION_RIGHT: lambda a: cv2.rotate(a, cv2.ROTATE_90_CLOCKWISE),
    pb.ORIENTATION_RIGHT_MIRRORED: lambda a: cv2.flip(cv2.transpose(a), -1),
    pb.ORIENTATION_LEFT: lambda a: cv2.rotate(a, cv2.ROTATE_90_COUNTERCLOCKWISE),
}


def to_upright(stored: np.ndarray, orientation: int) -> np.ndarray:
    """A new array: the stored frame turned upright by EXIF `orientation` (0 and 1: a copy)."""
    turn = _TO_UPRIGHT.get(orientation)
    return np.ascontiguousarray(turn(stored)) if turn else stored.copy()


# ---------------------------------------------------------------- encodings


def _yuv420_planes(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Full-range BT.601 Y, Cb, Cr planes of a BGR frame, chroma 2x2-averaged (4:2:0).

    Full range as JPEG and iOS's 420YpCbCr8BiPlanarFullRange: Y is exactly OpenCV's gray image
    (the plane Legible reads). An odd frame is padded by one replicated column/row first, so Y
    has even size (>= the frame's) and Cb, Cr have ceil(height/2) x ceil(width/2) samples.
    """
    height, width = bgr.shape[:2]
    if height % 2 or width % 2:
        bgr = cv2.copyMakeBorder(bgr, 0, height % 2, 0, width % 2, cv2.BORDER_REPLICATE)
    h, w = bgr.shape[:2]
    ycrcb = cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb)
    chroma = cv2.resize(ycrcb[..., 1:], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(ycrcb[..., 0]), np.ascontiguousarray(chroma[..., 1]), np.ascontiguousarray(chroma[..., 0])


def encode_frame(bgr: np.ndarray, encoding: int, jpeg_quality: int = 90) -> pb.Image:
    """A BGR uint8 frame as a `pb.Image` in `encoding` (a pb.Encoding value).

    Raw encodings get their size and an explicit stride (the bytes of one row of the first
    plane); JPEG and PNG are compressed by OpenCV and carry their own size.
    """
    height, width = bgr.shape[:2]
    if encoding == pb.ENCODING_JPEG:
        ok, data = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
    elif encoding == pb.ENCODING_PNG:
        ok, data = cv2.imencode(".png", bgr, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    else:
        ok, data = True, None
    if not ok:
        raise ValueError(f"OpenCV could not encode a {width}x{height} frame")
    if data is not None:
        return build_image(encoding, data.tobytes())

    if encoding == pb.ENCODING_GRAY8:
        plane = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
        return build_image(encoding, plane.tobytes(), width, height, width)
    if encoding in (pb.ENCODING_BGRA8, pb.ENCODING_RGBA8):
        code = cv2.COLOR_BGR2BGRA if encoding == pb.ENCODING_BGRA8 else cv2.COLOR_BGR2RGBA
        return build_image(encoding, cv2.cvtColor(bgr, code).tobytes(), width, height, 4 * width)
    if encoding in (pb.ENCODING_NV12, pb.ENCODING_I420):
        y, u, v = _yuv420_planes(bgr)
        stride = y.shape[1]                    # width rounded up to even
        luma = y[:height].tobytes()            # exactly `height` rows, then the chroma plane(s)
        if encoding == pb.ENCODING_NV12:
            chroma = np.stack([u, v], axis=-1).reshape(u.shape[0], stride).tobytes()
        else:
            chroma = u.tobytes() + v.tobytes()  # rows of ceil(stride/2) bytes each
        return build_image(encoding, luma + chroma, width, height, stride)
    raise ValueError(f"unsupported encoding {encoding}")
