"""The camera client's output: annotated frames to a folder, an MP4 or a window.

Each captured frame is drawn with *its own* result when it has one, so boxes sit exactly on the
text of the frame they were read from. Results arrive later than frames, so the `Timeline` holds
captured frames in capture order until their fate is known (result arrived, or skipped locally),
and the `Renderer` thread draws and writes them in that order. A frame without a drawable result
of its own (dropped, failed, skipped locally) gets the boxes of the newest drawable result before
it, as a live preview would show. The timeline is bounded: past `limit` frames the oldest is drawn
without waiting any longer (its result, when it comes, is still counted, just not drawn).

The window (`--show`) is fed the newest drawn frame through a one-slot handoff; the main thread
shows it (GUI toolkits want their calls on one thread).
"""
from __future__ import annotations

import os
import re
import threading
from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from . import pb
from .frames import STATUS_NAMES
from .overlay import Box, DrawOn, draw_overlay

DRAWABLE = (pb.FRAME_STATUS_RECOGNIZED, pb.FRAME_STATUS_SKIPPED)
WINDOW_NAME = "legible camera"


@dataclass
class Captured:
    """A captured frame in the timeline."""

    frame_id: int
    image: np.ndarray
    result: pb.FrameResult | None = None
    local_skip: bool = False
    ready: bool = False


class Timeline:
    """Captured frames in capture order; `next()` hands out the oldest once its fate is known."""

    def __init__(self, limit: int = 64) -> None:
        self._condition = threading.Condition()
        self._frames: deque[Captured] = deque()
        self._by_id: dict[int, Captured] = {}
        self._closed = False
        self.limit = limit

    def add(self, frame_id: int, image: np.ndarray) -> None:
        """A frame was captured (before it is offered for sending: its result may come fast)."""
        with self._condition:
            entry = Captured(frame_id, image)
            self._frames.append(entry)
            self._by_id[frame_id] = entry
            if len(self._frames) > self.limit:
                self._frames[0].ready = True
            self._condition.notify_all()

    def skip_local(self, frame_id: int) -> None:
        self._settle(frame_id, None, local_skip=True)

    def resolve(self, result: pb.FrameResult) -> None:
        self._settle(result.frame_id, result, local_skip=False)

    def _settle(self, frame_id: int, result: pb.FrameResult | None, local_skip: bool) -> None:
        with self._condition:
            entry = self._by_id.get(frame_id)
            if entry is None:
                return
            entry.result, entry.local_skip, entry.ready = result, local_skip, True
            self._condition.notify_all()

    def close(self) -> None:
        """No more frames or results: whatever is left is handed out as it is."""
        with self._condition:
            self._closed = True
            self._condition.notify_all()

    def next(self) -> Captured | None:
        """Blocks for the oldest frame whose fate is known; None when closed and empty."""
        with self._condition:
            self._condition.wait_for(lambda: self._closed or (self._frames and self._frames[0].ready))
            if not self._frames:
                return None
            entry = self._frames.popleft()
            del self._by_id[entry.frame_id]
            return entry


class OutputError(Exception):
    """An output that cannot be written (folder not writable, no MP4 encoder)."""


class Renderer:
    """Draws the timeline's frames and writes them to the outputs asked for, on its own thread."""

    def __init__(self, timeline: Timeline, *, orientation: int, draw_on: DrawOn, stable_after: int,
                 roi: Box | None, fps: float, out_dir: str | None = None, out_format: str = "png",
                 out_video: str | None = None, window: bool = False) -> None:
        self.timeline = timeline
        self.orientation = orientation
        self.draw_on: DrawOn = draw_on
        self.stable_after = stable_after
        self.roi = roi
        self.fps = fps
        self.out_dir = out_dir
        self.out_format = out_format
        self.out_video = out_video
        self.window = window
        self.written = 0
        self.error: Exception | None = None
        self._writer: cv2.VideoWriter | None = None
        self._video_size: tuple[int, int] | None = None
        self._last_drawable: pb.FrameResult | None = None
        self._window_frame: np.ndarray | None = None
        self._window_lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="legible-render", daemon=True)
        if out_dir:
            try:
                os.makedirs(out_dir, exist_ok=True)
            except OSError as error:
                raise OutputError(f"--out-dir {out_dir}: {error.strerror}") from None

    def start(self) -> None:
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)
        if self._writer is not None and not self._thread.is_alive():
            self._writer.release()
            self._writer = None

    def _run(self) -> None:
        try:
            while (entry := self.timeline.next()) is not None:
                self._emit(entry, self._draw(entry))
        except Exception as error:  # reported by the main thread; keep draining so capture never blocks
            self.error = error
            while self.timeline.next() is not None:
                pass

    def _draw(self, entry: Captured) -> np.ndarray:
        own = entry.result
        if own is not None and own.status in DRAWABLE and (own.text.blocks or own.status == pb.FRAME_STATUS_RECOGNIZED):
            shown = own
            self._last_drawable = own
        else:
            shown = self._last_drawable
        if entry.local_skip:
            state = "skipped locally"
        elif own is None:
            state = "no result yet"
        else:
            state = STATUS_NAMES.get(own.status, "?")
        caption = f"#{entry.frame_id} {state}"
        if shown is not None and shown is not own:
            caption += f", boxes of #{shown.frame_id}"
        orientation = shown.orientation.orientation if shown is not None and shown.orientation.orientation else self.orientation
        return draw_overlay(entry.image, shown, orientation, draw_on=self.draw_on,
                            stable_after=self.stable_after, roi=self.roi, caption=caption)

    def _emit(self, entry: Captured, image: np.ndarray) -> None:
        if self.out_dir:
            path = os.path.join(self.out_dir, f"frame-{entry.frame_id:06d}.{self.out_format}")
            if not cv2.imwrite(path, image):
                raise OutputError(f"cannot write {path}")
        if self.out_video:
            self._write_video(image)
        if self.window:
            with self._window_lock:
                self._window_frame = image
        self.written += 1

    def _write_video(self, image: np.ndarray) -> None:
        height, width = image.shape[:2]
        if self._writer is None:
            assert self.out_video is not None
            self._writer = cv2.VideoWriter(self.out_video, cv2.VideoWriter.fourcc(*"mp4v"), self.fps, (width, height))
            if not self._writer.isOpened():
                raise OutputError(f"cannot write {self.out_video} (OpenCV has no mp4v encoder, or the path is not writable)")
            self._video_size = (width, height)
        if (width, height) != self._video_size:
            image = cv2.resize(image, self._video_size)
        self._writer.write(image)

    def show_newest(self) -> int:
        """Main thread only: shows the newest drawn frame in the window; returns the key pressed
        (-1 for none)."""
        with self._window_lock:
            frame, self._window_frame = self._window_frame, None
        if frame is not None:
            cv2.imshow(WINDOW_NAME, frame)
        return cv2.waitKey(1)


def window_support() -> str | None:
    """None if OpenCV can open a window here, else why not (the user-facing message)."""
    if re.search(r"^\s*GUI:\s*NONE\s*$", cv2.getBuildInformation(), re.MULTILINE):
        return ("--show needs OpenCV with a GUI, but this OpenCV was built without one "
                "(the opencv-python-headless wheel). Install it with: "
                "pip uninstall -y opencv-python-headless && pip install opencv-python "
                "-- or run headless with --out-dir DIR / --out-video OUT.mp4")
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return "--show needs a display (DISPLAY is not set); run headless with --out-dir DIR / --out-video OUT.mp4"
    try:
        cv2.namedWindow(WINDOW_NAME, cv2.WINDOW_AUTOSIZE)
    except cv2.error as error:
        return f"--show: OpenCV cannot open a window ({str(error).strip().splitlines()[-1]}); install opencv-python"
    return None
