"""The layering README's "How it is built" describes, checked on the source: which package may
import which, no import circle between modules, no module too long, no CLI function too long.

Every rule is a function of a source tree that returns what breaks it (an empty list: nothing),
so that the same functions are tried on small made-up trees, where each rule must complain."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The packages, each allowed to import only those before it (and itself).
LAYERS = ("protocol", "games", "gameplay", "envs", "seating", "events", "edge", "launch", "web",
          "kit", "cli")
#: Imports allowed besides the layering: the kit plays against the reference bots; the boss
#: bots search with the games' pure engines (as any Python bot may after pip install), never
#: with the server's packages.
ALSO_ALLOWED = {("kit", "reference_bots"), ("reference_bots", "games")}
#: The source trees the rules cover (tests and benchmarks are scripts around them).
SOURCES = ("arena", "protocol", "reference_bots")

MAX_MODULE_LINES = 450
#: Modules allowed to be longer, and why.  Declarative tables may stay long; the others leave
#: this list when they are split.
LONG_MODULES: dict[str, str] = {
    # not split yet (issue 19 left them): remove each as it shrinks under the limit
}

MAX_CLI_FUNCTION_LINES = 60
#: CLI functions allowed to be longer ("path:function"), and why (none: the CLI only parses and
#: calls).
LONG_CLI_FUNCTIONS: dict[str, str] = {}


# -- reading a tree --------------------------------------------------------------------------


def modules(root: Path) -> dict[str, Path]:
    """Every module of the source trees under ``root``: dotted name -> file."""
    found = {}
    for top in SOURCES:
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[int, str]]:
    """(line, module) for every import in the module: at the top, in functions, and under
    ``if TYPE_CHECKING:`` alike.  ``from package import name`` is the module package.name
    when there is one, else the package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's package, up level - 1
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield node.lineno, full if full in known else base


def layer(module: str) -> str | None:
    """The package a module belongs to: a layer, "reference_bots", "arena" (the root package
    and ``python -m arena``), or None for a module outside the project."""
    parts = module.split(".")
    if parts[0] in ("protocol", "reference_bots"):
        return parts[0]
    if parts[0] != "arena":
        return None
    if len(parts) == 1 or parts[1] not in LAYERS:
        return "arena"
    return parts[1]


# -- the rules -------------------------------------------------------------------------------


def layering_problems(root: Path) -> list[str]:
    """Imports against the layering."""
    known = modules(root)
    problems = []
    for name, path in known.items():
        mine = layer(name)
        for line, target in sorted(set(imported(name, path, known))):
            theirs = layer(target)
            if theirs is None or theirs == mine or allowed(mine, theirs, name, target):
                continue
            problems.append(f"{path.relative_to(root)}:{line}: {mine} imports {target}")
    return problems


def allowed(mine: str | None, theirs: str, name: str, target: str) -> bool:
    if theirs == "arena":  # the root package holds only the version; __main__ is the command
        return target == "arena" and mine in LAYERS
    if mine == "arena":  # arena/__init__.py imports nothing; python -m arena runs the CLI
        return name == "arena.__main__"
    if mine in ("protocol", "reference_bots"):  # neither imports arena (but the games)
        return (mine == "reference_bots" and theirs == "protocol") or (
            (mine, theirs) in ALSO_ALLOWED)
    if (mine, theirs) in ALSO_ALLOWED:
        return True
    return theirs in LAYERS and mine in LAYERS and LAYERS.index(theirs) < LAYERS.index(mine)


def import_circles(root: Path) -> list[str]:
    """Circles of imports between modules (each strongly connected group once)."""
    known = modules(root)
    graph = {name: sorted({t for _, t in imported(name, path, known) if t in known} - {name})
             for name, path in known.items()}
    return [" -> ".join([*group, group[0]]) for group in strongly_connected(graph)
            if len(group) > 1]


def strongly_connected(graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for child in edges:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    groups.append(sorted(group))
    return groups


def long_modules(root: Path, allowed: dict[str, str]) -> list[str]:
    """Modules over :data:`MAX_MODULE_LINES` lines that the allowlist does not name."""
    problems = []
    for path in modules(root).values():
        relative = path.relative_to(root).as_posix()
        lines = len(path.read_text().splitlines())
        if lines > MAX_MODULE_LINES and relative not in allowed:
            problems.append(f"{relative}: {lines} lines (at most {MAX_MODULE_LINES})")
    return problems


def long_cli_functions(root: Path, allowed: dict[str, str]) -> list[str]:
    """Functions in arena/cli/ over :data:`MAX_CLI_FUNCTION_LINES` lines (from ``def`` to the
    last line, decorators not counted) that the allowlist does not name."""
    problems = []
    for path in sorted((root / "arena" / "cli").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1
                where = f"{relative}:{node.name}"
                if lines > MAX_CLI_FUNCTION_LINES and where not in allowed:
                    problems.append(f"{where}: {lines} lines (at most "
                                    f"{MAX_CLI_FUNCTION_LINES})")
    return problems


def game_packages(root: Path) -> list[str]:
    """The games' own packages: the folders of arena/games/ (its files are what games share)."""
    return sorted(path.parent.name for path in (root / "arena" / "games").glob("*/__init__.py"))


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def games_named_above_games(root: Path) -> list[str]:
    """Code outside arena/games/ that knows a game by name: an import of a game's own package,
    or a string (not a docstring) that is a game's name or a name made from it (``chochlik``,
    ``wypas-heuristic``, ``arena.games.wypas.board``): a table keyed by game, a test of one
    game.  A game's package is the only place that knows the game (README "A new game");
    everything else asks the registry.  Sentences that mention a game (a help text's example)
    are fine."""
    games = game_packages(root)
    if not games:
        return []
    named = re.compile(rf"^(?:arena\.games\.)?(?:{'|'.join(games)})(?:[-_.][\w.-]*)?$")
    inside = re.compile(rf"arena\.games\.(?:{'|'.join(games)})\b")
    known = modules(root)
    problems = []
    for name, path in known.items():
        if name.startswith("arena.games") or layer(name) not in (*LAYERS, "protocol", "arena"):
            continue
        where = path.relative_to(root)
        for line, target in sorted(set(imported(name, path, known))):
            if named.match(target) and target.startswith("arena.games."):
                problems.append(f"{where}:{line}: imports {target}, a game's own package")
        tree = ast.parse(path.read_text(), str(path))
        skip = _docstrings(tree)
        strings = sorted((node.lineno, node.value) for node in ast.walk(tree)
                         if isinstance(node, ast.Constant) and isinstance(node.value, str)
                         and id(node) not in skip)
        problems += [f"{where}:{line}: names the game {text!r}" for line, text in strings
                     if named.match(text) or inside.search(text)]
    return problems


# -- the project keeps them ------------------------------------------------------------------


def test_every_package_imports_only_the_packages_below_it():
    assert layering_problems(ROOT) == []


def test_no_modules_import_each_other_in_a_circle():
    assert import_circles(ROOT) == []


def test_no_module_is_over_450_lines_unless_allowed():
    assert long_modules(ROOT, LONG_MODULES) == []


def test_no_cli_function_is_over_60_lines_unless_allowed():
    assert long_cli_functions(ROOT, LONG_CLI_FUNCTIONS) == []


def test_only_a_games_own_package_names_it():
    assert games_named_above_games(ROOT) == []


def test_every_test_folder_is_a_package():
    """Test modules of the same name in two folders (tests/edge/test_server.py, ...) need
    their folders to be packages, or pytest's workers cannot tell them apart."""
    folders = {path.parent for path in (ROOT / "tests").rglob("test_*.py")}
    assert folders and [f for f in folders if not (f / "__init__.py").is_file()] == []


def test_the_allowlists_name_only_what_still_needs_them():
    """An entry whose module shrank (or went) must leave the list, so it cannot hide a
    new long module later."""
    stale = [path for path in LONG_MODULES if not (ROOT / path).exists()
             or len((ROOT / path).read_text().splitlines()) <= MAX_MODULE_LINES]
    assert stale == []
    found = long_cli_functions(ROOT, {})
    assert [w for w in LONG_CLI_FUNCTIONS if not any(p.startswith(w + ":") for p in found)] == []


def test_the_rules_see_the_real_tree():
    """Not vacuous: the real tree has modules in every layer, and imports between them."""
    known = modules(ROOT)
    assert {layer(name) for name in known} >= {*LAYERS, "reference_bots", "arena"}
    gamelog = known["arena.gameplay.gamelog"]
    assert "protocol.codec" in {t for _, t in imported("arena.gameplay.gamelog", gamelog, known)}


# -- each rule complains on a tree that breaks it --------------------------------------------


def tree(root: Path, files: dict[str, str]) -> Path:
    for top in SOURCES:
        (root / top).mkdir(parents=True, exist_ok=True)
        (root / top / "__init__.py").touch()
    for package in LAYERS[1:]:
        (root / "arena" / package).mkdir(exist_ok=True)
        (root / "arena" / package / "__init__.py").touch()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize("files,broken", [
    ({"arena/games/g.py": "from arena.edge import server\n"}, "games imports arena.edge"),
    ({"arena/gameplay/d.py": "if TYPE_CHECKING:\n    import arena.launch.runner\n"},
     "gameplay imports arena.launch.runner"),
    ({"arena/games/g.py": "def f():\n    from ..kit import render\n"},
     "games imports arena.kit"),
    ({"protocol/codec.py": "from arena.games import base\n"}, "protocol imports arena.games"),
    ({"reference_bots/bot.py": "import arena.edge.server\n"},
     "reference_bots imports arena.edge.server"),
    ({"reference_bots/bot.py": "from arena.launch import runner\n"},
     "reference_bots imports arena.launch"),
    ({"arena/launch/r.py": "import reference_bots.random\n"},
     "launch imports reference_bots.random"),
    ({"arena/__init__.py": "from arena.cli import main\n"}, "arena imports arena.cli"),
])
def test_an_import_against_the_layers_is_found(tmp_path, files, broken):
    problems = layering_problems(tree(tmp_path, files))
    assert len(problems) == 1 and problems[0].endswith(broken), problems


def test_imports_along_the_layers_are_allowed(tmp_path):
    assert layering_problems(tree(tmp_path, {
        "arena/cli/c.py": "from arena import __version__\nfrom arena.kit import k\n"
                          "from protocol import codec\n",
        "arena/kit/k.py": "from reference_bots import random\nfrom arena.games import g\n",
        "arena/games/g.py": "from . import h\nfrom protocol.codec import x\nimport os\n",
        "reference_bots/random.py": "from protocol.errors import ErrorCode\n",
        "arena/__main__.py": "from arena.cli import main\n",
    })) == []


def test_an_import_circle_is_found_even_through_type_checking(tmp_path):
    root = tree(tmp_path, {
        "arena/games/a.py": "from arena.games.b import x\n",
        "arena/games/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                            "    from arena.games import c\n",
        "arena/games/c.py": "from . import a\n",
        "arena/games/d.py": "from arena.games import a\n",
    })
    assert import_circles(root) == ["arena.games.a -> arena.games.b -> arena.games.c -> "
                                    "arena.games.a"]
    (root / "arena/games/c.py").write_text("import os\n")
    assert import_circles(root) == []


def test_a_long_module_or_cli_function_is_found_unless_allowed(tmp_path):
    body = "".join(f"    x = {n}\n" for n in range(MAX_CLI_FUNCTION_LINES))
    root = tree(tmp_path, {
        "arena/games/long.py": "x = 1\n" * (MAX_MODULE_LINES + 1),
        "arena/games/fits.py": "x = 1\n" * MAX_MODULE_LINES,
        "arena/cli/c.py": f"def long():\n{body}\n\ndef short():\n{body[:-len('    x = 59')-1]}",
    })
    assert long_modules(root, {}) == [f"arena/games/long.py: {MAX_MODULE_LINES + 1} lines "
                                      f"(at most {MAX_MODULE_LINES})"]
    assert long_modules(root, {"arena/games/long.py": "a table"}) == []
    assert long_cli_functions(root, {}) == [f"arena/cli/c.py:long: "
                                            f"{MAX_CLI_FUNCTION_LINES + 1} lines (at most "
                                            f"{MAX_CLI_FUNCTION_LINES})"]
    assert long_cli_functions(root, {"arena/cli/c.py:long": "why"}) == []


def test_a_game_named_above_the_games_is_found(tmp_path):
    root = tree(tmp_path, {
        "arena/web/w.py": '"""As in chochlik."""\nfrom arena.games.chochlik.board import B\n'
                          'BOARDS = {"chochlik": B}\nBOT = "chochlik-heuristic"\n'
                          'HELP = "as chochlik-heuristic --random-rate 0.25 does"\n'
                          'MODULE = "reference_bots.x:y"\nENC = "arena.games.chochlik.encoding"\n',
        "arena/games/board.py": "SHARED = 1\n",
        "arena/games/chochlik/__init__.py": 'NAME = "chochlik"\n',
    })
    assert games_named_above_games(root) == [
        "arena/web/w.py:2: imports arena.games.chochlik.board, a game's own package",
        "arena/web/w.py:3: names the game 'chochlik'",
        "arena/web/w.py:4: names the game 'chochlik-heuristic'",
        "arena/web/w.py:7: names the game 'arena.games.chochlik.encoding'",
    ]
    (root / "arena/web/w.py").write_text("from arena.games import GAMES\nfrom arena.games.board "
                                         "import B\n")
    assert games_named_above_games(root) == []
