"""The result table of a series (``arena match``, ``arena play``): one row per bot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from arena.gameplay.records import GameRecord, timed_out_note
from arena.launch.bots import BotRun
from protocol.errors import ErrorCode

#: Under the result table, when a tie was shared or a bot's seat was played by defaults.
SEAT_NOTE = ("wins: a game won by k bots together (a tie) counts 1/k for each; the seat of a "
             "bot played by defaults is credited to that bot (see defaults and status)")


@attrs.define
class MatchReport:
    game: str
    round_name: str
    bots: list[BotRun]
    records: list[GameRecord]
    seconds: float
    log_dir: Path
    unwritten_logs: int = 0  # finished games whose log could not be written (a full disk)
    refusals: dict[str, int] = attrs.Factory(dict)  # refused hellos by reason (a token thief)
    games: int = 0  # games asked for
    interrupted: bool = False  # stopped by Ctrl-C before they were all played

    @property
    def ok(self) -> bool:
        return not any(b.failed for b in self.bots) and not any(
            r.aborted for r in self.records) and not self.unwritten_logs and not (
            self.refusals) and not self.stuck()

    def stuck(self) -> list[tuple[BotRun, dict[str, Any]]]:
        """The bots whose decisions mostly timed out (see :func:`timed_out_note`): stuck,
        stopped, or too slow; each with its row."""
        return [(bot, row) for bot, row in zip(self.bots, self.rows())
                if row["status"].startswith("timed out")]

    def rows(self) -> list[dict[str, Any]]:
        rows = []
        for index, bot in enumerate(self.bots):
            games = scores = ranks = defaults = errors = timeouts = decisions = 0
            wins = 0.0
            for record in self.records:
                if record.aborted or index not in record.bots:
                    continue
                seat = record.bots.index(index)
                games += 1
                scores += record.scores[seat]
                ranks += record.ranks[seat]
                defaults += record.defaults[seat]
                errors += record.errors[seat]
                if record.decisions:
                    timeouts += record.timeouts[seat]
                    decisions += record.decisions[seat]
                if seat in record.winners:  # the seat's result, whoever played it
                    wins += 1 / len(record.winners)
            rows.append({
                "bot": bot.spec.name, "games": games, "wins": wins,
                "win%": 100 * wins / games if games else 0.0,
                "avg score": scores / games if games else 0.0,
                "avg rank": ranks / games if games else 0.0,
                "defaults": defaults, "errors": errors,
                "status": (bot.status == "ok" and timed_out_note(timeouts, decisions)
                           or bot.status),
                "timeouts": timeouts, "decisions": decisions,
            })
        return rows

    def table(self) -> str:
        rows = self.rows()
        width = max([len("bot")] + [len(r["bot"]) for r in rows])
        lines = [f"{'bot':<{width}}  games   wins   win%  avg score  avg rank  defaults  errors"
                 "  status"]
        for r in rows:
            lines.append(
                f"{r['bot']:<{width}}  {r['games']:>5}  {r['wins']:>5.1f}  {r['win%']:>5.1f}"
                f"  {r['avg score']:>9.1f}  {r['avg rank']:>8.2f}  {r['defaults']:>8}"
                f"  {r['errors']:>6}  {r['status']}")
        finished = [r for r in self.records if not r.aborted]
        rounds = sum(r.rounds or 0 for r in finished)
        lines.append(f"{len(finished)} game(s), {rounds} {self.round_name}(s) in "
                     f"{self.seconds:.1f} s; "
                     f"logs in {self.log_dir}")
        if (any(len(r.winners) > 1 for r in finished) or any(r.failed for r in self.bots)
                or self.stuck()):
            lines.append(SEAT_NOTE)
        if self.interrupted:
            aborted = sum(1 for r in self.records if r.aborted)
            lines.append(f"interrupted after {len(finished)} of {self.games} games"
                         + (" (the game under way is logged as aborted)" if aborted else ""))
        if self.unwritten_logs:
            lines.append(f"ERROR: {self.unwritten_logs} game log(s) could not be written to "
                         f"{self.log_dir} (is the disk full?)")
        for code, count in sorted(self.refusals.items()):
            lines.append(f"ERROR: {count} connection(s) refused with {code}"
                         + (" (a process used a token given to another bot)"
                            if code == ErrorCode.TOKEN_NOT_YOURS else "")
                         + ("; or a bot detached itself from the process the runner started "
                            "(setsid): run it in the foreground"
                            if code == ErrorCode.TOKEN_NOT_YOURS else ""))
        return "\n".join(lines)
