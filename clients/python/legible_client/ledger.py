"""The client's books: when each frame was sent, which result answered it, and whether the
server's SessionSummary agrees.

Legible answers every frame it receives exactly once (recognized, dropped, skipped or failed).
The ledger checks that from the client's side: every frame id sent gets one result, no result
arrives twice or for a frame never sent, and the summary's counts match what arrived.
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field

from . import pb
from .frames import STATUS_NAMES


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank p-th percentile (0 < p <= 100) of `values`; nan when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class Answer:
    """One result as booked: its status, the send → result latency in seconds."""

    frame_id: int
    status: int
    latency: float
    duplicate: bool = False
    unknown: bool = False


@dataclass
class Ledger:
    """Thread-safe: the sender books sends, the receiver books results."""

    sent_at: dict[int, float] = field(default_factory=dict)
    answers: dict[int, Answer] = field(default_factory=dict)
    duplicates: list[int] = field(default_factory=list)
    unknown: list[int] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def book_send(self, frame_id: int) -> None:
        """Called just before the frame's first byte is written (a result can arrive before
        the send call returns)."""
        with self._lock:
            self.sent_at[frame_id] = time.monotonic()

    def unbook_send(self, frame_id: int) -> None:
        """The send failed before the frame was written: it was never sent."""
        with self._lock:
            self.sent_at.pop(frame_id, None)

    def book_result(self, result: pb.FrameResult) -> Answer:
        now = time.monotonic()
        with self._lock:
            sent = self.sent_at.get(result.frame_id)
            latency = now - sent if sent is not None else math.nan
            answer = Answer(result.frame_id, result.status, latency,
                            duplicate=result.frame_id in self.answers, unknown=sent is None)
            if answer.unknown:
                self.unknown.append(result.frame_id)
            elif answer.duplicate:
                self.duplicates.append(result.frame_id)
            else:
                self.answers[result.frame_id] = answer
            return answer

    @property
    def sent(self) -> int:
        with self._lock:
            return len(self.sent_at)

    def counts(self) -> dict[str, int]:
        """Results per status name ('recognized', 'dropped', 'skipped', 'failed')."""
        with self._lock:
            counts = {name: 0 for name in STATUS_NAMES.values()}
            for answer in self.answers.values():
                name = STATUS_NAMES.get(answer.status, str(answer.status))
                counts[name] = counts.get(name, 0) + 1
            return counts

    def latencies(self, status: int | None = None) -> list[float]:
        """Latencies in seconds of the results with `status` (all when None)."""
        with self._lock:
            return [a.latency for a in self.answers.values() if status is None or a.status == status]

    def unanswered(self) -> list[int]:
        with self._lock:
            return sorted(set(self.sent_at) - set(self.answers))

    def problems(self, summary: pb.SessionSummary | None) -> list[str]:
        """What breaks "every sent frame got exactly one result"; empty when all adds up."""
        found = []
        missing = self.unanswered()
        if missing:
            found.append(f"{len(missing)} frame(s) sent but never answered: {_ids(missing)}")
        if self.duplicates:
            found.append(f"{len(self.duplicates)} duplicate result(s): {_ids(self.duplicates)}")
        if self.unknown:
            found.append(f"{len(self.unknown)} result(s) for frames never sent: {_ids(self.unknown)}")
        if summary is None:
            found.append("no SessionSummary from the server")
            return found
        counts = self.counts()
        theirs = {"received": summary.frames_received, "recognized": summary.frames_recognized,
                  "dropped": summary.frames_dropped, "skipped": summary.frames_skipped,
                  "failed": summary.frames_failed}
        ours = {"received": self.sent, **{k: counts[k] for k in ("recognized", "dropped", "skipped", "failed")}}
        for key, value in theirs.items():
            if value != ours[key]:
                found.append(f"server says {key} {value}, the client counted {ours[key]}")
        return found


def _ids(ids: list[int], limit: int = 10) -> str:
    shown = ", ".join(str(i) for i in ids[:limit])
    return shown + (", ..." if len(ids) > limit else "")
