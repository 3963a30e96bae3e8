"""A one-slot mailbox between a capture loop and a single sender thread.

A camera produces frames at its own rate and must never wait for the network, and a client must
never build a queue of stale frames: by the time they were sent they would be old. So the capture
loop *offers* each frame; the mailbox takes it only when the sender is free (its slot empty and no
send in progress). Otherwise the frame is refused at once and counted as skipped locally, and the
capture loop goes on. The server's own latest-wins slot then handles what does reach it.

    capture ──offer()──▶ [ one slot ] ──take()──▶ sender ──done()──┐
       ▲  refused: skipped += 1              busy until done() ◀───┘
"""
from __future__ import annotations

import threading
from typing import Generic, TypeVar

T = TypeVar("T")


class MailboxClosed(Exception):
    """offer() after close()."""


class Mailbox(Generic[T]):
    """One slot, one consumer. Thread-safe; offer() never blocks."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._item: T | None = None
        self._busy = False
        self._closed = False
        self.accepted = 0
        self.skipped = 0

    def offer(self, item: T) -> bool:
        """Puts `item` in the slot if the consumer is free; else counts it skipped. Never blocks."""
        with self._condition:
            if self._closed:
                raise MailboxClosed()
            if self._item is not None or self._busy:
                self.skipped += 1
                return False
            self._item = item
            self.accepted += 1
            self._condition.notify_all()
            return True

    def take(self, timeout: float | None = None) -> T | None:
        """The consumer's next item; marks it busy until done(). None once closed and empty
        (or when `timeout` seconds pass with nothing to take)."""
        with self._condition:
            self._condition.wait_for(lambda: self._item is not None or self._closed, timeout)
            item, self._item = self._item, None
            self._busy = item is not None
            return item

    def done(self) -> None:
        """The consumer finished the item it took; the mailbox accepts offers again."""
        with self._condition:
            self._busy = False
            self._condition.notify_all()

    def close(self) -> None:
        """No more offers. An item already in the slot is still handed out by take()."""
        with self._condition:
            self._closed = True
            self._condition.notify_all()

    @property
    def busy(self) -> bool:
        """The consumer holds an item (or one waits in the slot)."""
        with self._condition:
            return self._busy or self._item is not None

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Waits until the slot is empty and the consumer done; False on timeout."""
        with self._condition:
            return self._condition.wait_for(lambda: self._item is None and not self._busy, timeout)
