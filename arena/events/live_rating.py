"""The live rating: an online multiplayer rating updated game by game while an event or a ladder
runs (openskill's Plackett-Luce, Weng and Lin 2011), for the live view and for seating; the
published leaderboard stays the batch fit of ``arena.events.leaderboard``.  Pure and
deterministic: records in, numbers out, no clock, no I/O.

**The model.** Each bot has a rating mu with an uncertainty sigma (a standard deviation), both
in openskill's units (a newcomer starts at mu 25, sigma 25/3).  A finished table is one
Plackett-Luce observation: every seat is its own "team" and its rank the game's rank, so a
shared rank is a tie (openskill gives the tied seats the average of their changes).  Every
update also adds openskill's ``tau`` (25/300) to sigma, so the rating keeps following a bot
that changes (a ladder's bots are replaced by new versions).  A bot that holds two seats of one
table (a field bot filling seats) is updated once, by the mean of its seats' changes.

**Which games.** As ``arena.events.leaderboard`` rates them: every finished game, aborted ones
(a server bug) left out; a seat played by default (its bot too slow, stuck or gone) counts as
that bot's result, as in the batch fit, whose ``defaults`` column shows it.

**The Elo scale.** At a table of n seats, Plackett-Luce puts i ahead of j with probability
1 / (1 + exp(-(mu_i - mu_j) / c)), c = sqrt(n (beta^2 + sigma^2)), beta = 25/6; Elo puts it at
1 / (1 + 10^(-(E_i - E_j) / 400)).  With settled sigmas (small next to beta), the two agree for
E = 1500 + (mu - 25) * 400 / (ln 10 * beta * sqrt(n)): about 29.5 Elo per unit of mu in duels,
20.8 at tables of 4 (checked by simulation in the tests: bots 100 Elo apart come out about 100
apart).  So 1500 is a newcomer's rating (not the pool's average, as in the batch fit: the
updates keep the average close to it), and the uncertainty is sigma on the same scale, one
standard deviation (a newcomer: 246 Elo in duels, 174 at tables of 4).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from openskill.models import PlackettLuce, PlackettLuceRating

from arena.gameplay.records import GameRecord

#: A newcomer's rating on the Elo scale (openskill's initial mu, 25).
START_ELO = 1500.0


@attrs.frozen
class LiveRow:
    """One bot in the live ranking: its place (1 = best), the mean and uncertainty on the Elo
    scale, and the finished games it was rated on."""

    place: int
    name: str
    mean: float
    uncertainty: float
    games: int


class LiveRating:
    """The live ratings of an event or a ladder, keyed by bot name.  ``players`` is the table
    size (it sets the Elo scale, see the module's doc); ``names`` are the bots by entrant
    number, for records that do not carry the names of their seats."""

    def __init__(self, players: int, names: Sequence[str] = ()) -> None:
        if players < 2:
            raise ValueError(f"a table has at least 2 seats, not {players}")
        self.model = PlackettLuce()
        self.players = players
        self.elo_per_mu = 400.0 / (math.log(10) * self.model.beta * math.sqrt(players))
        self.names = list(names)
        self.ratings: dict[str, PlackettLuceRating] = {}
        self.played: dict[str, int] = {}
        #: Games taken into the ratings (finished ones) and games seen (aborted ones too).
        self.rated = 0
        self.seen = 0

    def seat_names(self, game: GameRecord) -> list[str]:
        """Who sat at each seat: ``names`` by entrant (as the batch fit counts them), else the
        record's names (the connected players')."""
        entrants = game.entrants
        if len(entrants) == len(game.ranks) and all(
                entrant is not None and 0 <= entrant < len(self.names) for entrant in entrants):
            return [self.names[entrant] for entrant in entrants if entrant is not None]
        if len(game.names) == len(game.ranks):
            return list(game.names)
        raise ValueError(f"game {game.game_id}: its seats have no names")

    def add(self, game: GameRecord) -> bool:
        """Take one game in; False if it is not rated (aborted, or a single bot)."""
        self.seen += 1
        if game.aborted is not None:
            return False
        names = self.seat_names(game)
        if len(set(names)) < 2:
            return False
        before = {name: self.rating(name) for name in names}
        teams = [[self.model.rating(mu=before[name].mu, sigma=before[name].sigma)]
                 for name in names]
        after = self.model.rate(teams, ranks=[float(rank) for rank in game.ranks])
        changes: dict[str, list[tuple[float, float]]] = {}
        for name, (rating,) in zip(names, after):
            changes.setdefault(name, []).append((rating.mu, rating.sigma))
        for name, new in changes.items():
            mu = sum(m for m, _ in new) / len(new)
            sigma = math.sqrt(sum(s * s for _, s in new) / len(new))
            self.ratings[name] = self.model.rating(mu=mu, sigma=sigma)
            self.played[name] = self.played.get(name, 0) + 1
        self.rated += 1
        return True

    def rating(self, name: str) -> PlackettLuceRating:
        """The openskill rating (mu, sigma); a newcomer's for a name never rated."""
        found = self.ratings.get(name)
        return found if found is not None else self.model.rating()

    def estimate(self, name: str) -> tuple[float, float]:
        """(mean, uncertainty) on the Elo scale, the uncertainty one standard deviation; a
        name never rated gets a newcomer's (1500 and the prior's width)."""
        rating = self.rating(name)
        return (START_ELO + (rating.mu - self.model.mu) * self.elo_per_mu,
                rating.sigma * self.elo_per_mu)

    @property
    def newcomer_uncertainty(self) -> float:
        """A bot's uncertainty before its first game, on the Elo scale (the prior's width)."""
        return self.model.sigma * self.elo_per_mu

    def rename(self, old: str, new: str) -> None:
        """A bot renamed (a ladder's ``arena bots rename``) keeps its rating; games it played
        under the new name before this was known add their moves (mu) and their information
        (1 / sigma^2 beyond the prior's) to it."""
        moved = self.ratings.pop(old, None)
        if moved is None or old == new:
            if moved is not None:
                self.ratings[old] = moved
            return
        later = self.ratings.pop(new, None)
        if later is not None:
            prior = 1.0 / self.model.sigma ** 2
            information = max(prior, 1.0 / moved.sigma ** 2 + 1.0 / later.sigma ** 2 - prior)
            moved = self.model.rating(mu=moved.mu + later.mu - self.model.mu,
                                      sigma=information ** -0.5)
        self.ratings[new] = moved
        self.played[new] = self.played.pop(old, 0) + self.played.pop(new, 0)

    def state(self) -> dict[str, Any]:
        """Everything it learnt, as plain values (JSON keeps them exact): a ladder's stored
        games are rated in another process (``arena.edge.stored_rating``)."""
        return {"ratings": {name: [r.mu, r.sigma] for name, r in self.ratings.items()},
                "played": dict(self.played), "rated": self.rated, "seen": self.seen}

    def restore(self, state: Mapping[str, Any]) -> None:
        """Take what :meth:`state` gave (replacing what it knew)."""
        self.ratings = {name: self.model.rating(mu=mu, sigma=sigma)
                        for name, (mu, sigma) in state["ratings"].items()}
        self.played = {name: int(count) for name, count in state["played"].items()}
        self.rated, self.seen = int(state["rated"]), int(state["seen"])

    def copy(self) -> LiveRating:
        """A copy to read elsewhere (another thread) while this one learns on: only its
        dicts are copied (their ratings are replaced, never changed in place)."""
        other = object.__new__(LiveRating)
        other.__dict__.update(self.__dict__)
        other.ratings, other.played = dict(self.ratings), dict(self.played)
        other.names = list(self.names)
        return other

    def take(self, other: LiveRating) -> None:
        """Become ``other`` (what it learnt), in place: who holds this one (a seating) reads
        the new ratings."""
        self.ratings, self.played = other.ratings, other.played
        self.rated, self.seen = other.rated, other.seen

    def ranking(self, names: Sequence[str] = ()) -> list[LiveRow]:
        """The rated bots and ``names`` (rated or not), best mean first (equal means by
        name)."""
        everyone = sorted(set(self.ratings) | set(names))
        estimates = {name: self.estimate(name) for name in everyone}
        order = sorted(everyone, key=lambda name: (-estimates[name][0], name))
        return [LiveRow(place, name, *estimates[name], self.played.get(name, 0))
                for place, name in enumerate(order, start=1)]


def format_ranking(rows: Sequence[LiveRow], top: int | None = None) -> str:
    """The live ranking as a small table (the first ``top`` rows)."""
    shown = list(rows)[:top] if top is not None else list(rows)
    width = max([len("bot")] + [len(row.name) for row in shown])
    lines = [f"{'#':>3}  {'bot':<{width}}  {'live':>6}  {'+-':>5}  {'games':>6}"]
    lines += [f"{row.place:>3}  {row.name:<{width}}  {row.mean:>6.0f}  {row.uncertainty:>5.0f}"
              f"  {row.games:>6}" for row in shown]
    if len(shown) < len(rows):
        lines.append(f"     ... and {len(rows) - len(shown)} more")
    return "\n".join(lines)
