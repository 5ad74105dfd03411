"""How a run ended, for whoever reports it: the exit status of a run stopped by Ctrl-C, and the
one kind of exception a nursery's group holds (``only``)."""

from __future__ import annotations

from collections.abc import Iterator

#: The exit status of a command stopped by Ctrl-C (the shells' 128 + SIGINT).
INTERRUPTED = 130


def leaves(error: BaseException) -> Iterator[BaseException]:
    """The exceptions in ``error``, groups (a nursery's) opened."""
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from leaves(inner)
    else:
        yield error


def only(error: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first exception of ``kind`` in ``error`` when there is one and all the others are
    of ``kind`` too (a group of one bug and one OSError is not an OSError: it is raised)."""
    found = list(leaves(error))
    return found[0] if found and all(isinstance(e, kind) for e in found) else None
