"""What a ladder's seating knows of each bot's strength: a :class:`RatingView` gives a mean on
the Elo scale and its uncertainty, and the uncertainty of a bot with no games (so the seating
can tell a newcomer by how little is known of it).  ``arena serve --db`` gives the seating the
ladder's live rating (:class:`arena.events.live_rating.LiveRating`, openskill's
Plackett-Luce), learnt from the games stored before and fed each game as it ends.

(Before, the view was an Elo updated game by game with a fixed K, and a bot was provisional
for its first five games.  The openskill rating costs more per game, about 50 microseconds in
duels and 90 at tables of four against 3 to 5 for that Elo, 12 to 21 times as much (measured
side by side over 5,000 games among 1,000 bots, 3 runs each), but a seating decision reads
only estimates, which cost the same (under a microsecond): no reason to keep two ratings.)
"""

from __future__ import annotations

from typing import Protocol


class RatingView(Protocol):
    def estimate(self, name: str) -> tuple[float, float]:
        """(mean on the Elo scale, uncertainty in Elo points; large: little is known)."""

    @property
    def newcomer_uncertainty(self) -> float:
        """The uncertainty of a bot with no games, in Elo points."""
