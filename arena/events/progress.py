"""The live view of a running event: a progress bar (games done, rate, ETA) and the top of an
online Elo table.  Pure: games and times in, one line of text out; the CLI prints it (in place
on a terminal)."""

from __future__ import annotations

from collections.abc import Sequence

from arena.events.ratings import ANCHOR_ELO, TableResult, online_update

BAR_WIDTH = 24
TOP = 3


class LiveView:
    def __init__(self, names: Sequence[str], total: int, done: int, started: float,
                 earlier: Sequence[TableResult] = ()) -> None:
        """``done`` games were stored before this run (a resumed event); ``earlier`` are their
        results, replayed into the online ratings."""
        self.names = list(names)
        self.total = total
        self.done = done
        self.done_before = done
        self.started = started
        self.elo = [ANCHOR_ELO] * len(names)
        for result in earlier:
            online_update(self.elo, result)

    def game_over(self, result: TableResult | None) -> None:
        """One more game stored (``None``: it is left out of the ratings, aborted by a bug)."""
        self.done += 1
        if result is not None:
            online_update(self.elo, result)

    def line(self, now: float, leaders: Sequence[tuple[str, float]] | None = None) -> str:
        """The line at time ``now``; ``leaders`` (name, rating) shown instead of the online
        Elo's top (an event shows its live rating's: ``arena.launch.live_board``)."""
        elapsed = max(now - self.started, 1e-9)
        per_minute = (self.done - self.done_before) / elapsed * 60
        left = self.total - self.done
        eta = f"{left / per_minute:.1f} min" if per_minute > 0 else "?"
        filled = round(BAR_WIDTH * self.done / self.total) if self.total else BAR_WIDTH
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        if leaders is None:
            top = sorted(range(len(self.names)), key=lambda i: -self.elo[i])[:TOP]
            leaders = [(self.names[i], self.elo[i]) for i in top]
        shown = ", ".join(f"{name} {rating:.0f}" for name, rating in leaders[:TOP])
        return (f"[{bar}] {self.done}/{self.total}  {per_minute:.1f} games/min  ETA {eta}  "
                f"| {shown}")
