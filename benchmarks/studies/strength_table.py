"""The table the strength benchmarks print: per bot, win share (ties shared), mean score, mean
rank and the moves the server played for it; then how long a game takes."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any


def print_strength(bots: Sequence[Any], records: Sequence[Any], round_name: str) -> None:
    print(f"{'bot':<22} {'wins':>6} {'win%':>6} {'mean score':>11} {'mean rank':>10} "
          f"{'defaults':>9}")
    for index, bot in enumerate(bots):
        wins = 0.0
        scores, ranks, defaults = [], [], 0
        for record in records:
            seat = record.bots.index(index)
            scores.append(record.scores[seat])
            ranks.append(record.ranks[seat])
            defaults += record.defaults[seat]
            if seat in record.winners:
                wins += 1 / len(record.winners)
        print(f"{bot.name:<22} {wins:>6.1f} {100 * wins / len(records):>6.1f} "
              f"{statistics.mean(scores):>11.1f} {statistics.mean(ranks):>10.2f} {defaults:>9}")
    seconds = [r.seconds for r in records]
    print(f"a game takes {statistics.mean(seconds):.2f} s on average "
          f"(median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s), "
          f"{statistics.mean(r.rounds or 0 for r in records):.1f} {round_name}s")
