"""What ``arena replay`` checks of a log's claims beyond the game itself (SPEC §7).

The game's events and result follow from the seed and the actions; the rest of a log is the
server's word: the players' names, who chose each action (``by``: the bot or the server's
default) and how long the seat took (``ms``).  Part of that the log binds and this checks:

- ``names``: one non-empty printable name per seat;
- ``by`` is ``bot`` or ``default``; ``ms`` a whole number of milliseconds, not negative;
- a default's action is the one the server's default policy gives there: the game's own
  default, else the next draw of the default generator (seeded from the game's seed), so a
  bot's choice relabelled as a default, or a default replaced, shows unless they coincide;
- a default's ``reason``: ``timeout`` names the limit of that decision (the reaction or the
  move time limit, or the time bank when the game has one) and took at least that limit's
  milliseconds; ``too_many_tries`` follows that many logged errors for the request (unless
  the seat's errors went past what a log keeps); ``disconnected`` follows the seat's
  ``disconnected`` note;
- a seat whose bot was logged as ``disconnected`` answers nothing after (``by: bot``), and a
  bot's answer names its request.

A ``ms`` below the limit, and which program sat behind a name, are the server's claims: the
log holds nothing that proves them.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from arena.games.chance import derive_seed
from protocol.limits import MAX_TRIES

REASONS = ("timeout", "too_many_tries", "disconnected")
LIMITS = ("move_timeout", "reaction_timeout", "time_bank")


class ClaimError(Exception):
    """A claim the log contradicts (the message says which; the caller adds the line)."""


class Claims:
    """Checks one log's claims as the replay goes (see the module)."""

    def __init__(self, header: dict[str, Any], players: int, records: list[dict[str, Any]]):
        self.header = header
        self.players = players
        self._rng = random.Random(derive_seed(header["seed"], "default"))
        self._gone: set[Any] = set()  # seats logged as disconnected (as the log wrote them)
        self._errors: Counter[tuple[Any, Any]] = Counter()  # (seat, request id) -> errors
        #: Seats whose errors went past what a log keeps: their error count proves nothing.
        self._capped = {r.get("seat") for r in records
                        if r.get("type") == "note" and "not logged" in str(r.get("what"))}

    def check_header(self) -> None:
        names = self.header.get("names")
        if not isinstance(names, list) or len(names) != self.players:
            raise ClaimError(f"the header names {names!r}: the game has {self.players} seats")
        for name in names:
            if not isinstance(name, str) or not name.strip() or not name.isprintable():
                raise ClaimError(f"the header names {name!r}: a name is printable text")

    def seen(self, record: dict[str, Any]) -> None:
        """An ``error`` or ``note`` line."""
        if record.get("type") == "error":
            self._errors[record.get("seat"), record.get("id")] += 1
        elif record.get("what") == "disconnected":
            self._gone.add(record.get("seat"))

    def check_action(self, record: dict[str, Any], state: Any) -> None:
        """Before the action is applied to ``state``."""
        seat, by, ms = record["seat"], record["by"], record["ms"]
        if type(ms) is not int or ms < 0:
            raise ClaimError(f"ms {ms!r}: a time is a whole number of milliseconds")
        if by == "bot":
            if seat in self._gone:
                raise ClaimError(f"seat {seat} is logged as disconnected, yet its bot answered")
            if record["id"] is None:
                raise ClaimError(f"seat {seat}'s bot answered no request (id null)")
            return
        if by != "default":
            raise ClaimError(f"by {by!r}: an action is chosen by 'bot' or 'default'")
        self._check_reason(record, state)
        expected = state.default_action(seat)
        if expected is None:
            expected = self._rng.choice(tuple(state.legal_actions(seat)))
        if record["action"] != expected:
            raise ClaimError(f"seat {seat}'s default is {expected!r} here, the log has "
                             f"{record['action']!r}")

    def _check_reason(self, record: dict[str, Any], state: Any) -> None:
        seat, reason, request_id = record["seat"], record.get("reason"), record["id"]
        if reason not in REASONS:
            raise ClaimError(f"a default for reason {reason!r}; the reasons are "
                             f"{', '.join(REASONS)}")
        if reason == "disconnected":
            if seat not in self._gone:
                raise ClaimError(f"a default for seat {seat} 'disconnected', but the log does "
                                 "not show it disconnected")
            return
        if request_id is None:
            raise ClaimError(f"a default for {reason} names no request")
        if reason == "too_many_tries":
            errors = self._errors[seat, request_id]
            if errors < MAX_TRIES and seat not in self._capped:
                raise ClaimError(f"a default for too many tries after {errors} logged error(s) "
                                 f"for request {request_id} (it takes {MAX_TRIES})")
            return
        limit = record.get("limit")
        decision = "reaction_timeout" if state.is_reaction(seat) else "move_timeout"
        if limit == "time_bank" and not self.header.get("time_bank_ms"):
            raise ClaimError("a timeout of the time bank, in a game without one")
        if limit not in (decision, "time_bank"):
            raise ClaimError(f"a timeout of {limit!r}, but this decision's limit is {decision}")
        limit_ms = self.header.get(f"{decision}_ms")
        if isinstance(limit_ms, int) and record["ms"] < limit_ms:
            raise ClaimError(f"a timeout after {record['ms']} ms, within the {decision} of "
                             f"{limit_ms} ms")
