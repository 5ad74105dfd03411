"""What ``arena serve``'s names and operator notes cost per connection and per table (they run
once per hello, departure and table start; nothing runs per decision).

    python benchmarks/serve_bookkeeping.py [--connections 10000] [--repeats 5]

Prints microseconds per connection (a name taken and given back, the notes of its connection,
first seat and departure) for bots with different names and for bots that all say one name,
and the time of one status tick after a burst: the median of the repeats with the min-max.
No network, no server: the pure bookkeeping alone, on one core.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from arena.edge.serve_report import Notes, status_line
from arena.seating.names import NameBook


def per_connection(connections: int, same_name: bool) -> float:
    """Microseconds per connection: name taken, noted, seated (tables of 4), left, released."""
    book, notes = NameBook(), Notes()
    start = time.perf_counter()
    for number in range(connections):
        name = book.take_numbered(number, "random" if same_name else f"bot{number}")
        notes.connected(number, name)
    for first in range(0, connections - 3, 4):
        keys = range(first, first + 4)
        notes.seated(first // 4, keys, [book.held[key] for key in keys])
    notes.take()
    for number in range(connections):
        notes.left(number, book.held[number])
        book.release(number)
    notes.take()
    return (time.perf_counter() - start) / connections * 1e6


def tick(connections: int) -> float:
    """Microseconds of one status line after ``connections`` connected at once."""
    notes = Notes()
    for number in range(connections):
        notes.connected(number, f"bot{number}")
    start = time.perf_counter()
    status_line(notes.take(), 0, connections, 4, connections, 0)
    return (time.perf_counter() - start) * 1e6


def spread(run: Callable[[], float], repeats: int) -> str:
    values = sorted(run() for _ in range(repeats))
    return f"{statistics.median(values):8.2f}  ({values[0]:.2f}-{values[-1]:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n, repeats = args.connections, args.repeats
    print(f"serve bookkeeping, {n} connections, median (min-max) of {repeats} runs")
    rows = [("us per connection, different names", lambda: per_connection(n, False)),
            ("us per connection, one name", lambda: per_connection(n, True)),
            (f"us per status line after {n} hellos", lambda: tick(n))]
    for label, run in rows:
        print(f"  {label:<38}{spread(run, repeats)}")


if __name__ == "__main__":
    main()
