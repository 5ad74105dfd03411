"""What ``arena check-bot`` checks, and what it found: one outcome per check, with a reason.

A check *passes* when the situation it tests came up and the bot handled it every time; it
*fails* at the first time it did not (the reason names the request, the token, the limit);
it is *skipped* when the situation never came up (the bot left before the last game) or is
optional and the bot does not support it (reconnecting, SPEC.md §6); it is *not applicable*
(N/A) when it cannot come up at all (reaction windows in a game without any, reconnecting over
stdin/stdout).  Only failures make the exit status non-zero.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Protocol

import attrs


class Check(enum.Enum):
    """Every check, in the order they are reported; the value is its name in the report."""

    HANDSHAKE = "handshake"
    """``welcome`` answered by a valid ``hello`` in time, with the token it was given."""
    VALID_LINES = "valid lines"
    """Every line the bot sends is a well-formed message allowed at that moment."""
    REQUEST_IDS = "request ids"
    """Every ``action`` carries the id of the bot's open request."""
    LEGAL_ACTIONS = "legal actions"
    """Every ``action`` is one token of its request's ``legal`` list, character for character."""
    IN_TIME = "answers in time"
    """Every ordinary request is answered within ``time_left_ms``."""
    ERROR_RETRY = "error reply and retry"
    """After an ``illegal_action`` error (tries left, legal list again) the bot answers again."""
    SIMULTANEOUS = "simultaneous decisions"
    """A request while other seats decide too (their answers are held back) is answered."""
    REACTION_WINDOWS = "reaction windows"
    """Reaction-window requests are answered within the shorter reaction time limit."""
    GAME_END = "game end"
    """After ``game_end`` the bot stays connected for the next ``game_start``."""
    SEVERAL_GAMES = "several games in a row"
    """The bot plays every game of the series on one connection."""
    RECONNECT = "reconnect"
    """Its connection closed mid-game, the bot comes back with its token and answers the
    request sent again (optional: SPEC.md §6 "Reconnecting")."""
    BYE = "bye"
    """After ``bye`` the bot's process ends."""


class Outcome(enum.Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    SKIP = "SKIP"
    NA = "N/A"  # the situation cannot come up here


@attrs.frozen
class CheckResult:
    check: Check
    outcome: Outcome
    reason: str = ""

    def line(self, prefix: str = "") -> str:
        """``PASS  handshake``, ``FAIL  legal actions: answered ...``."""
        text = f"{self.outcome.value}  {prefix}{self.check.value}"
        return f"{text}: {self.reason}" if self.reason else text


class Findings:
    """What one series showed, check by check: failures (the first reason is kept, later
    ones counted), checks whose situation came up and was handled, and why others were
    skipped."""

    def __init__(self) -> None:
        self.failures: dict[Check, list[str]] = {}
        self.handled: set[Check] = set()
        self.skips: dict[Check, str] = {}
        self.inapplicable: dict[Check, str] = {}

    def fail(self, check: Check, reason: str) -> None:
        self.failures.setdefault(check, []).append(reason)

    def passed(self, check: Check) -> None:
        self.handled.add(check)

    def skip(self, check: Check, reason: str) -> None:
        """Why ``check`` could not be seen (kept only if it neither failed nor passed)."""
        self.skips.setdefault(check, reason)

    def not_applicable(self, check: Check, reason: str) -> None:
        """``check`` cannot come up here (the game has no such situation)."""
        self.inapplicable[check] = reason

    def decided(self, check: Check) -> bool:
        """Passed, failed or not applicable."""
        return (check in self.failures or check in self.handled
                or check in self.inapplicable)

    def failed(self, check: Check) -> bool:
        return check in self.failures

    def result(self, check: Check) -> CheckResult:
        reasons = self.failures.get(check)
        if reasons:
            more = f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else ""
            return CheckResult(check, Outcome.FAIL, reasons[0] + more)
        if check in self.handled:
            return CheckResult(check, Outcome.PASS)
        if check in self.inapplicable:
            return CheckResult(check, Outcome.NA, self.inapplicable[check])
        return CheckResult(check, Outcome.SKIP, self.skips.get(check, "not reached"))

    def results(self) -> list[CheckResult]:
        return [self.result(check) for check in Check]


class Reported(Protocol):
    """A check's result, of a bot or of a game (``arena check-game``)."""

    @property
    def outcome(self) -> Outcome: ...


def summary(results: Sequence[Reported]) -> str:
    """``12 checks: 10 passed, 1 failed, 1 skipped`` (``, 1 not applicable`` where some
    are)."""
    counts = {outcome: sum(r.outcome is outcome for r in results) for outcome in Outcome}
    return (f"{len(results)} checks: {counts[Outcome.PASS]} passed, "
            f"{counts[Outcome.FAIL]} failed, {counts[Outcome.SKIP]} skipped"
            + (f", {counts[Outcome.NA]} not applicable" if counts[Outcome.NA] else ""))
