"""What the game-authors test runs in a process of its own, where only the installed game's
package (not the test session's toy game) is known: ``parse WORDS...`` checks that an ``arena``
command line parses (for commands that run until stopped: ``serve``, ``web``); ``page DB
PATH`` prints the status and text of one competition page of the event in DB."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from pathlib import Path

import click
import trio

from arena.cli import main
from arena.events.export import open_event
from arena.web.serve import serve_pages


def parse(words: list[str]) -> None:
    with click.Context(main) as parent:
        command = main.get_command(parent, words[0])
        assert command is not None, words
        command.make_context(words[0], words[1:], parent=parent)
    print("parses")


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def page(db: str, path: str) -> None:
    storage = open_event(Path(db))
    async with trio.open_nursery() as nursery:
        base = await nursery.start(lambda task_status: serve_pages(storage, port=0,
                                                                   task_status=task_status))
        status, text = await trio.to_thread.run_sync(fetch, base + path)
        print(status)
        print(text)
        nursery.cancel_scope.cancel()
    storage.close()


if __name__ == "__main__":
    if sys.argv[1] == "parse":
        parse(sys.argv[2:])
    else:
        trio.run(page, sys.argv[2], sys.argv[3])
