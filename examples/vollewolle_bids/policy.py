"""A linear bid for vollewolle: ``bid = 14 + w . features``, rounded and clipped to the legal
bids; every other decision (dice, reaching, taking) is the reference heuristic's.  Used by the
trainer (``train.py``) and by the bot (``bot.py``), so that what is trained is what plays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reference_bots.vollewolle_heuristic import VolleWolleHeuristic

FEATURES = ("bias", "display cards", "black sheep shown", "my wool", "deck left / 10",
            "sheep points shown / 10")


def features(obs: dict[str, Any], info: dict[str, Any]) -> list[float]:
    kinds = {card["id"]: card for card in info["cards"]}
    shown = [kinds[card] for card in obs["display"]]
    return [1.0, float(len(shown)), float(sum(card["kind"] == "black" for card in shown)),
            float(obs["wool"][obs["seat"]]), obs["deck_left"] / 10,
            sum(max(card["points"] or 0, 0) for card in shown) / 10]


class LinearBidder:
    """A client-library policy: the linear bid, the heuristic for the rest."""

    wanted_events = VolleWolleHeuristic.wanted_events

    def __init__(self, weights: list[float], seed: int | str | None = None) -> None:
        self.weights = weights
        self.rest = VolleWolleHeuristic(0.0, seed)
        self.info: dict[str, Any] = {}

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("type") == "game_start":
            self.info = message["info"]
        self.rest.on_message(message)

    def choose(self, request: dict[str, Any]) -> str:
        obs, legal = request["observation"], request["legal"]
        if obs["decision"] != "bid":
            return self.rest.choose(request)
        value = 14 + sum(w * f for w, f in zip(self.weights, features(obs, self.info)))
        bids = [token for token in legal if token != "bid 26+"]
        wanted = min(max(round(value), 14), 26)
        if wanted >= 26 and "bid 26+" in legal:
            return "bid 26+"
        return min(bids, key=lambda token: abs(int(token.split()[1]) - wanted))

    @classmethod
    def load(cls, path: Path, seed: int | str | None = None) -> LinearBidder:
        return cls(json.loads(path.read_text())["weights"], seed)
