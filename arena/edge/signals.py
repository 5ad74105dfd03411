"""Ctrl-C and SIGTERM for a command that runs trio, from before its trio loop starts until
after it ends (:class:`StopSignals`).

``trio.open_signal_receiver`` has two races a command's stop cannot live with: it keeps
pending signals as a set, so two Ctrl-C close together may arrive as one (the second, which
should hurry the stop, is lost), and a signal still pending when its block exits, or one that
comes after, is re-delivered to Python's handler: a ``KeyboardInterrupt`` traceback.  Here
every signal is one item of an unbounded channel, signals before the loop runs wait for it,
and those after the command stopped listening are dropped (the command is stopping anyway).
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
from collections.abc import Awaitable, Callable
from types import FrameType
from typing import Any, TypeVar

import trio

T = TypeVar("T")
STOPPING = (signal.SIGINT, signal.SIGTERM)

#: The first stopping signal the last :func:`run_stoppable` took (0: none).
_first_stop = [0]


def stopped_status() -> int:
    """The exit status of a command a signal stopped, as a shell would give it: 128 plus the
    signal's number (130 for Ctrl-C, 143 for SIGTERM); 130 when no signal is known."""
    return 128 + (_first_stop[0] or signal.SIGINT)


class StopSignals:
    """While entered, SIGINT and SIGTERM go to :meth:`attach`'s channel, each one an item.
    Entered around ``trio.run``, trio installs no ``KeyboardInterrupt`` handler of its own
    (it does so only over Python's default one)."""

    def __init__(self, signums: tuple[int, ...] = STOPPING) -> None:
        self.signums = signums
        self._early: list[int] = []
        self._token: trio.lowlevel.TrioToken | None = None
        self._send, self._receive = trio.open_memory_channel[int](math.inf)
        self._old: dict[int, Any] = {}

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is not threading.main_thread():
            return self  # Python takes signals in its main thread only: none come here
        for signum in self.signums:
            self._old[signum] = signal.signal(signum, self._handler)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, old in self._old.items():
            signal.signal(signum, old)
        self._token = None

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if not _first_stop[0]:
            _first_stop[0] = signum
        token = self._token
        if token is None:  # before the loop runs: it takes them at attach
            self._early.append(signum)
            return
        # never idempotent: two signals are two items; after the loop, dropped (the command
        # is stopping anyway)
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(self._deliver, signum)

    def _deliver(self, signum: int) -> None:
        with contextlib.suppress(trio.BrokenResourceError):  # nobody listens any more
            self._send.send_nowait(signum)

    def attach(self) -> trio.MemoryReceiveChannel[int]:
        """In the trio loop: the signals that came since :meth:`__enter__`, then each that
        comes, in order of arrival."""
        self._token = trio.lowlevel.current_trio_token()
        while self._early:
            self._send.send_nowait(self._early.pop(0))
        return self._receive


def run_stoppable(async_fn: Callable[[trio.MemoryReceiveChannel[int]], Awaitable[T]],
                  **run_options: Any) -> T:
    """``trio.run(async_fn, signals)`` with :class:`StopSignals` around it: ``signals``
    yields every SIGINT and SIGTERM from before the loop started."""
    stops = StopSignals()
    _first_stop[0] = 0

    async def attached() -> T:
        return await async_fn(stops.attach())

    with stops:
        return trio.run(attached, **run_options)


async def drain_then_stop(signals: trio.abc.ReceiveChannel[int], stop: trio.CancelScope, *,
                          drain: Callable[[], None], echo: Callable[[str], None],
                          draining: str, stopping: str) -> None:
    """A first Ctrl-C (or SIGTERM) drains (``draining`` said), a second cancels ``stop``
    (``stopping`` said): an event's and a worker's way with :func:`run_stoppable`'s
    signals."""
    count = 0
    async for _ in signals:
        count += 1
        if count == 1:
            echo(draining)
            drain()
        else:
            echo(stopping)
            stop.cancel()
