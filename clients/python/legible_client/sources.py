"""Frame sources for the camera client: a webcam, a video file or a folder of images.

Each source yields BGR uint8 frames (OpenCV's layout) and says at what rate they come:

- a webcam (`/dev/videoN` or an index) delivers frames at the camera's own pace, so reading
  blocks until the next one and the client does not pace it (`paced` is False);
- a video file plays at its own fps (or `--fps`), an image folder at `--fps`: the client
  paces these on a monotonic clock (`paced` is True).
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

import cv2
import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm")
DEFAULT_FOLDER_FPS = 10.0
DEFAULT_VIDEO_FPS = 30.0   # for files that do not say


class SourceError(Exception):
    """A source that cannot be used. `usage` is True when the argument itself is wrong (no such
    file), False when the thing exists but cannot be opened or read (busy camera, bad codec)."""

    def __init__(self, message: str, usage: bool = False) -> None:
        super().__init__(message)
        self.usage = usage


@dataclass
class Source:
    """An opened source. `read()` gives the next BGR frame or None at its end."""

    description: str
    fps: float
    paced: bool
    frame_count: int | None = None          # when known (files and folders)
    _capture: cv2.VideoCapture | None = None
    _files: list[str] = field(default_factory=list)
    _next: int = 0

    def read(self) -> np.ndarray | None:
        if self._capture is not None:
            ok, frame = self._capture.read()
            if not ok or frame is None:
                return None
            return _as_bgr(frame)
        while self._next < len(self._files):
            path = self._files[self._next]
            self._next += 1
            still = cv2.imread(path, cv2.IMREAD_COLOR)
            if still is not None:
                return still
            raise SourceError(f"cannot read image {path}")
        return None

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


def _as_bgr(frame: np.ndarray) -> np.ndarray:
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    return frame


def _open_camera(target: int | str, fps: float | None, description: str) -> Source:
    capture = cv2.VideoCapture(target, cv2.CAP_V4L2) if isinstance(target, str) else cv2.VideoCapture(target)
    if not capture.isOpened():
        raise SourceError(f"cannot open camera {description} (busy, or no permission?)")
    if fps:
        capture.set(cv2.CAP_PROP_FPS, fps)
    reported = capture.get(cv2.CAP_PROP_FPS) or 0.0
    return Source(description=f"camera {description}", fps=fps or reported or DEFAULT_VIDEO_FPS,
                  paced=False, _capture=capture)


def open_source(spec: str, fps: float | None = None) -> Source:
    """Opens `spec`: a camera index ('0'), a camera device ('/dev/video0'), a video file or a
    folder of images (taken in sorted name order). `fps` overrides the rate (see the module doc)."""
    if spec.isdigit():
        return _open_camera(int(spec), fps, spec)
    try:
        mode = os.stat(spec).st_mode
    except OSError as error:
        raise SourceError(f"{spec}: {error.strerror}", usage=True) from None
    if stat.S_ISCHR(mode):
        return _open_camera(spec, fps, spec)
    if stat.S_ISDIR(mode):
        files = sorted(os.path.join(spec, name) for name in os.listdir(spec)
                       if name.lower().endswith(IMAGE_SUFFIXES))
        if not files:
            raise SourceError(f"{spec}: no images ({', '.join(IMAGE_SUFFIXES)}) in this folder", usage=True)
        return Source(description=f"folder {spec} ({len(files)} images)", fps=fps or DEFAULT_FOLDER_FPS,
                      paced=True, frame_count=len(files), _files=files)
    capture = cv2.VideoCapture(spec)
    if not capture.isOpened():
        raise SourceError(f"{spec}: OpenCV cannot open this file as a video")
    own_fps = capture.get(cv2.CAP_PROP_FPS) or 0.0
    count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0) or None
    return Source(description=f"video {spec}", fps=fps or own_fps or DEFAULT_VIDEO_FPS, paced=True,
                  frame_count=count, _capture=capture)
