"""How ``arena check-bot`` judges what the bot does: the series' state, the bot's open request
(:class:`RequestNote`), and the checks each answer, bad line, cancel or timeout decides.

:class:`AnswerJudge` holds the state of one scripted series and the judging;
:class:`~arena.kit.check_series.ScriptedSeries` adds the server side (the connection, the
games, the checker's own seats, the bot leaving and coming back) and provides
:meth:`AnswerJudge.deliver` and :meth:`AnswerJudge.bot_left`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import attrs
import trio

from arena.edge.peer_process import ProcessBinding
from arena.gameplay.driver import MatchDriver, Outgoing
from arena.kit.check_findings import Check, Findings
from arena.kit.check_link import Link, Received
from arena.kit.check_setup import SeriesSettings
from protocol.connection import ENDED
from protocol.errors import ErrorCode, PeerError, quote
from protocol.messages import Action, Bye, Cancel, Error
from protocol.requests import RequestCounter

#: Legal tokens quoted in a failure reason, at most.
SHOWN_LEGAL = 8
#: Requests in a row that get no valid answer (a wrong one, or none in time) after which the
#: bot is hopeless: the series stops, and every check not decided yet fails saying why (else
#: a bot that never answers right waits out every move timeout, for minutes).
HOPELESS_REQUESTS = 3


@attrs.define
class RequestNote:
    """What the checker knows about the bot's open request."""

    id: int
    legal: list[str]
    time_left_ms: int
    decision: str | None
    simultaneous: bool  # other seats had requests open when it was sent
    reaction: bool  # a reaction-window decision (the shorter limit)
    probe: bool = False  # the first request after coming back (reconnect check)
    botched: bool = False  # already failed another check (a wrong id, an illegal token)

    @property
    def label(self) -> str:
        return f"request {self.id}" + (f" ({self.decision})" if self.decision else "")


def _legal_text(legal: list[str]) -> str:
    shown = json.dumps(legal[:SHOWN_LEGAL], ensure_ascii=False)
    return shown if len(legal) <= SHOWN_LEGAL else shown[:-1] + ", ...]"


class AnswerJudge:
    """The state of a scripted series and how the bot's answers are judged into
    :attr:`findings`; the server side (:meth:`deliver`, :meth:`bot_left`) is the subclass's."""

    def __init__(self, settings: SeriesSettings, inbox: trio.MemoryReceiveChannel[Any],
                 output_tail: Callable[[], str], binding: ProcessBinding | None = None,
                 progress: Callable[[str], None] = lambda line: None) -> None:
        """``progress`` is told, in a line, each game as it starts and a stop."""
        self.settings = settings
        self.progress = progress
        self.binding = binding  # the bot's token bound to its process, as arena match binds it
        self.inbox = inbox
        self.output_tail = output_tail
        self.findings = Findings()
        self.players: int = settings.options.players
        self.rng = random.Random(f"{settings.seed}:checker")
        self.counter = RequestCounter()  # the bot's connection numbers its requests
        self.link: Link | None = None
        self.exit_code: int | None = None
        self.driver: MatchDriver | None = None
        self.game = 0
        self.seat = 0
        self.note: RequestNote | None = None  # the bot's open request
        self.answered: set[int] = set()
        self.cancelled: set[int] = set()
        self.retry_invited: set[int] = set()  # requests named by an error reply with tries
        self.requests_in_game = 0
        self.refused: tuple[int, str] | None = None  # (request id, token) refused on purpose
        self.refused_once = False
        self.after_game_end = False
        self.left = False  # the bot left (bye or a closed connection) before the series ended
        self.dropped = False  # the reconnect scenario has run
        self.back_by: float | None = None  # while the bot is away: the end of its grace
        self.probe_next = False
        self.abandon = False  # stop asking the bot: its seat is played by defaults
        self.unanswered: list[int] = []  # the latest requests in a row with no valid answer
        self.stopped: str | None = None  # why the series stopped early (a hopeless bot)
        self._set_skip_reasons()

    def _set_skip_reasons(self) -> None:
        skip = self.findings.skip
        if self.settings.disguise is None:
            skip(Check.ERROR_RETRY, "no request with two or more legal actions in game 1")
        else:
            self.findings.not_applicable(
                Check.ERROR_RETRY, "not scripted in a hosted validation (a server never "
                "refuses a legal action: the bot would know it is being checked)")
        skip(Check.SIMULTANEOUS, "no request came while other seats were deciding too")
        spec = self.settings.spec
        if spec.reaction_windows:
            skip(Check.REACTION_WINDOWS, "no reaction-window request came to the bot's seat")
        else:
            self.findings.not_applicable(Check.REACTION_WINDOWS,
                                         f"{spec.name} has no reaction windows")
        if self.settings.games < 2:
            for check in (Check.GAME_END, Check.SEVERAL_GAMES):
                skip(check, "needs --games 2 or more")
        if self.settings.token is None:
            self.findings.not_applicable(Check.RECONNECT,
                                         "over stdin/stdout a pipe cannot be reopened")


    def no_valid_answer(self, note: RequestNote, why: str) -> None:
        """``note``'s request got a wrong answer or none in time; after
        :data:`HOPELESS_REQUESTS` such requests in a row the series stops."""
        if note.id in self.unanswered or note.probe or self.back_by is not None:
            return  # counted already; or the reconnect check's business
        self.unanswered.append(note.id)
        if len(self.unanswered) >= HOPELESS_REQUESTS and self.stopped is None:
            self.stopped = f"{len(self.unanswered)} requests in a row got no valid answer"
            self.progress(f"{self.settings.spec.name}: stopping: {self.stopped} (the last, "
                          f"{note.label}: {why}); the checks not decided yet fail")

    async def on_message(self, received: Received) -> None:
        driver = self.driver
        assert driver is not None
        now = trio.current_time()
        message = received.item
        if isinstance(message, Action):
            self.findings.passed(Check.VALID_LINES)
            await self.on_action(message)
        elif isinstance(message, PeerError):
            line = "" if received.line is None else (
                f" (the line: {quote(received.line.decode('utf-8', 'replace'))})")
            self.findings.fail(Check.VALID_LINES,
                               f"{message.code.value}: {message.detail}{line}")
            if self.note is not None:
                self.note.botched = True
                self.no_valid_answer(self.note, f"{message.code.value}: {message.detail}")
            await self.deliver(driver.bad_input(self.seat, message, now,
                                                newest_sent=self.counter.newest))
            if message.fatal:
                await self.bot_left("was disconnected for too many bad lines", said_bye=False)
        elif isinstance(message, Bye):
            await self.bot_left("said bye", said_bye=True)
        elif message is ENDED:
            await self.bot_left("closed its connection without bye", said_bye=False)

    async def on_action(self, action: Action) -> None:
        driver, note = self.driver, self.note
        assert driver is not None
        now = trio.current_time()
        if note is None or action.id != note.id:
            # a late answer to a cancelled request is fine, and so is a second answer to one
            # an error reply named (the bot may have answered before it read the error)
            if action.id not in self.cancelled and action.id not in self.retry_invited:
                open_now = f"request {note.id} is open" if note else "no request is open"
                again = " (already answered)" if action.id in self.answered else ""
                self.findings.fail(Check.REQUEST_IDS, f"answered {quote(action.action)} with id "
                                   f"{action.id}{again}, but {open_now}")
                if note is not None:
                    note.botched = True
                    self.no_valid_answer(note, f"answered with id {action.id}")
            await self.deliver(driver.answer(self.seat, action.id, action.action, now))
            return
        self.findings.passed(Check.REQUEST_IDS)
        if self.after_game_end:
            self.findings.passed(Check.GAME_END)
            self.after_game_end = False
        if self.refused is not None:
            if action.action == self.refused[1]:
                self.findings.fail(Check.ERROR_RETRY, f"answered {quote(action.action)} again "
                                   f"to {note.label} after the error reply refused it")
            else:
                self.findings.passed(Check.ERROR_RETRY)
            self.refused = None
        if action.action not in note.legal:
            self.findings.fail(Check.LEGAL_ACTIONS, f"answered {quote(action.action)} to "
                               f"{note.label}, not in its legal list {_legal_text(note.legal)}")
            note.botched = True
            self.no_valid_answer(note, f"answered {quote(action.action)}, not legal")
            await self.deliver(driver.answer(self.seat, action.id, action.action, now))
            return
        self.findings.passed(Check.LEGAL_ACTIONS)
        if self.should_refuse(note):
            await self.refuse(note, action.action, now)
            return
        self.credit(note)
        self.unanswered.clear()
        self.note = None
        self.answered.add(note.id)
        await self.deliver(driver.answer(self.seat, action.id, action.action, now))

    def should_refuse(self, note: RequestNote) -> bool:
        return (not self.refused_once and self.game == 0 and not note.reaction
                and len(note.legal) >= 2 and self.settings.disguise is None)

    async def refuse(self, note: RequestNote, token: str, now: float) -> None:
        """The scripted error reply: ``illegal_action`` for a token that was legal, costing a
        try, with the legal list less that token."""
        assert self.driver is not None and self.link is not None
        request = self.driver.open[self.seat]
        request.tries_left -= 1
        self.refused, self.refused_once = (note.id, token), True
        await self.link.send(Error(
            code=ErrorCode.ILLEGAL_ACTION.value, id=note.id,
            message=f"check-bot refuses {quote(token)} on purpose (a scripted error reply): "
                    "answer again with another token of legal",
            legal=[t for t in note.legal if t != token], tries_left=request.tries_left,
            time_left_ms=max(0, round((request.deadline - now) * 1000))))

    def credit(self, note: RequestNote) -> None:
        """A good answer in time (after wrong ones, maybe: those failed their own checks): it
        counts for the checks its request was about, and for answering in time whatever the
        request was (a game whose decisions are all simultaneous has no other kind: there the
        check was always skipped); a late answer fails only the check it was about."""
        if note.probe:
            self.findings.passed(Check.RECONNECT)
        if note.reaction:
            self.findings.passed(Check.REACTION_WINDOWS)
        if note.simultaneous:
            self.findings.passed(Check.SIMULTANEOUS)
        self.findings.passed(Check.IN_TIME)

    def on_cancel(self, cancel: Cancel) -> None:
        note = self.note
        if note is None or cancel.id != note.id:
            return
        self.note = None
        self.cancelled.add(note.id)
        if cancel.reason == ErrorCode.TIMEOUT.value:
            self.timed_out(note)
            self.no_valid_answer(note, f"no answer within {note.time_left_ms} ms")
        elif cancel.reason == ErrorCode.TOO_MANY_TRIES.value:
            self.no_valid_answer(note, "every try was wrong")

    def timed_out(self, note: RequestNote) -> None:
        """Which check a request that ran out of time fails: the one it was about."""
        fail = self.findings.fail
        limit = f"{note.time_left_ms} ms"
        if self.refused is not None:
            self.refused = None
            fail(Check.ERROR_RETRY, f"no new answer to {note.label} within its {limit} after "
                 "the error reply")
        elif self.back_by is not None:
            return  # away: the reconnect check decides
        elif note.probe:
            fail(Check.RECONNECT, f"came back but did not answer {note.label}, sent again "
                 f"after the resync, within its {limit}")
            self.abandon = True
        elif note.botched:
            return
        elif note.reaction:
            fail(Check.REACTION_WINDOWS, f"no answer to {note.label} within its reaction "
                 f"time limit of {limit}")
        elif note.simultaneous:
            fail(Check.SIMULTANEOUS, f"no answer to {note.label} within {limit} while other "
                 "seats were deciding too (their answers wait for yours)")
        else:
            fail(Check.IN_TIME, f"no answer to {note.label} within {limit}")

    # -- provided by the server side (ScriptedSeries) --

    async def deliver(self, out: list[Outgoing]) -> None:
        raise NotImplementedError

    async def bot_left(self, how: str, *, said_bye: bool) -> None:
        raise NotImplementedError
