"""``arena new-game NAME``: a package to start a game from, in a folder of its own.

What it writes (from :data:`TEMPLATE`, each ``$name`` replaced): ``pyproject.toml`` with the
``arena.games`` entry point, the game's folder (a minimal working game: high card with a
secret stake, every seat deciding at once; its SPEC section, its encoding for ``arena.envs``
and a bot of its own), a README and tests that run arena's game batteries on it.  Nothing of
arena changes: ``pip install -e`` the folder and every command knows the game.

Edges: NAME is a lowercase Python identifier (it is the package's name too) that is no
installed game's and no importable module's; the folder must not exist yet (nothing is ever
overwritten)."""

from __future__ import annotations

import importlib.resources
import importlib.util
import keyword
import re
import string
from pathlib import Path

import click

from arena.games import GAMES

#: The template's files, under arena/kit/game_template/, each ending in ``.tmpl``.
TEMPLATE = "game_template"
#: A game's name: the package's name as well, so a lowercase identifier, short enough for a
#: column of ``arena games``.
NAME = re.compile(r"^[a-z][a-z0-9_]{1,23}$")


class NewGameError(ValueError):
    """The name or the folder cannot be used; the message says why."""


def check_name(name: str) -> None:
    if not NAME.match(name) or keyword.iskeyword(name):
        raise NewGameError(f"{name!r} is not a game name: 2 to 24 lowercase letters, digits "
                           "or _, starting with a letter (it names the Python package too)")
    if name in GAMES:
        raise NewGameError(f"a game named {name!r} is installed already")
    if importlib.util.find_spec(name) is not None:
        raise NewGameError(f"a module named {name!r} can be imported here already: the game's "
                           "package would hide it or be hidden by it")


def files(name: str) -> dict[str, str]:
    """The package's files, by path relative to its folder, with ``$name`` and ``$title``
    filled in."""
    values = {"name": name, "title": f"{name.capitalize()} (high card with a secret stake)"}
    root = importlib.resources.files("arena.kit").joinpath(TEMPLATE)
    found: dict[str, str] = {}
    for folder, target in (("", ""), ("package", f"{name}/"), ("tests", "tests/")):
        source = root.joinpath(folder) if folder else root
        for item in sorted(source.iterdir(), key=lambda item: item.name):
            if not item.name.endswith(".tmpl"):
                continue
            path = target + item.name.removesuffix(".tmpl").replace("test_game", f"test_{name}")
            found[path] = string.Template(item.read_text(encoding="utf-8")).substitute(values)
    return found


def write_package(name: str, folder: Path) -> list[Path]:
    """Write the package of the game ``name`` into ``folder`` (which must not exist); the
    files written."""
    check_name(name)
    if folder.exists():
        raise NewGameError(f"{folder} exists already: nothing is overwritten")
    written = []
    for relative, text in files(name).items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


@click.command("new-game")
@click.argument("name")
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write the package (default: ./arena-NAME).")
def new_game(name: str, folder: Path | None) -> None:
    """Write a package to start the game NAME from: pyproject.toml with its entry point, the
    game's folder with a minimal working game, its SPEC section, and tests."""
    folder = folder if folder is not None else Path(f"arena-{name}")
    try:
        written = write_package(name, folder)
    except NewGameError as exc:
        raise click.UsageError(str(exc)) from None
    for path in written:
        click.echo(f"wrote {path}")
    where = folder.as_posix() if folder.is_absolute() else f"./{folder.as_posix()}"
    click.echo(f"next: pip install -e {where}, then arena check-game {name}")
