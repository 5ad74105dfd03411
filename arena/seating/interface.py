"""The seating interface and its values: :class:`Seating` (what a server tells a policy, pure
bookkeeping with time as an input) and what it answers (:class:`SeatedTable`: the tables that
start now), with :class:`Admission` and :class:`SeatingStatistics`.  The policies are in
``arrival``, ``roster`` and ``scheduled``; ``arena.seating.policies`` lists them all."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Protocol

import attrs

from arena.gameplay.records import PlannedTable
from protocol.errors import ErrorCode


@attrs.frozen
class SeatedTable:
    """A table to start now.  ``sessions[seat]`` holds the seat (``None``: absent, played by
    the default policy); ``entrants[seat]`` is who that is in the policy's own list (``None``
    without one); ``seed`` and ``options`` are ``None`` where the server's own apply."""

    number: int
    sessions: tuple[Any, ...]
    names: tuple[str, ...]
    entrants: tuple[int | None, ...]
    seed: str | None = None
    options: Any = None
    tag: PlannedTable | None = None  # the schedule's planned table (ScheduledSeating)
    #: Play only if every session is still connected when the table starts; otherwise the
    #: table does not start (no game, no log) and the others are ready again.  Arrival seating
    #: wants this (a bot that closed at once must not cost others a game); seating by token
    #: does not (an absent bot's seat is played by the default policy).
    needs_everyone: bool = False


@attrs.frozen
class Admission:
    """A session's hello, answered: the name to show for it, or why it is refused."""

    name: str | None = None
    refusal: ErrorCode | None = None
    #: The token was checked (a roster, a registry): it may bring the bot back after a lost
    #: connection.  An open server takes any token unchecked, so it brings no one back.
    token_checked: bool = True


@attrs.frozen
class SeatingStatistics:
    """A snapshot for the runners: which tokens ever connected, which left before the end, how
    many tables started and are running, and whether the policy will start no more."""

    ever_connected: frozenset[str] = frozenset()
    left_early: frozenset[str] = frozenset()
    #: Tokens given up on: left, their process ended, or not connected by the deadline.
    given_up: frozenset[str] = frozenset()
    tables_started: int = 0
    tables_running: int = 0
    done: bool = False
    #: Admitted sessions waiting for a seat (arrival seating).
    waiting: int = 0


class Seating(Protocol):
    """Every method is pure bookkeeping; each returns the tables that start now."""

    def start(self, now: float) -> list[SeatedTable]:
        """The server starts serving."""

    def admit(self, session: Hashable, name: str, token: str | None) -> Admission:
        """A session said hello: the name to show, or a refusal (the connection is closed)."""

    def ready(self, session: Hashable, now: float) -> list[SeatedTable]:
        """An admitted session is idle and waiting for a seat."""

    def gone(self, session: Hashable, now: float) -> list[SeatedTable]:
        """The session's connection ended (seated or not)."""

    def game_over(self, table: SeatedTable, now: float) -> list[SeatedTable]:
        """The game at ``table`` ended (finished or aborted); its sessions are not ready until
        :meth:`ready` says so."""

    def unstarted(self, table: SeatedTable, survivors: Sequence[Hashable],
                  now: float) -> list[SeatedTable]:
        """``table`` did not start (a session it needed was gone: ``needs_everyone``); the
        ``survivors`` are ready again, ahead of those that came after them."""

    def withdraw(self, token: str, now: float) -> list[SeatedTable]:
        """The bot with this token will not come (its process ended): stop waiting for it."""

    def expire(self, now: float) -> list[SeatedTable]:
        """Time passed: act on deadlines up to ``now``."""

    def next_deadline(self) -> float | None:
        """When :meth:`expire` should be called next, if ever."""

    def statistics(self) -> SeatingStatistics: ...


def game_over_then_ready(policy: Seating, table: SeatedTable, survivors: Sequence[Hashable],
                         now: float) -> list[SeatedTable]:
    """A table that did not start, for a policy without a queue to put anyone in front of."""
    tables = policy.game_over(table, now)
    for session in survivors:
        tables += policy.ready(session, now)
    return tables
