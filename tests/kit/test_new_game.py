"""``arena new-game NAME``: what it refuses, and that it never overwrites (the package it writes
is built, installed and run by tests/kit/test_game_authors.py)."""

from __future__ import annotations

from click.testing import CliRunner

from arena.cli import main
from arena.games import GAMES


def new_game(*words: str):
    return CliRunner().invoke(main, ["new-game", *words])


def test_it_writes_the_package_with_its_entry_point(tmp_path):
    result = new_game("gizmo", "--dir", str(tmp_path / "pkg"))
    assert result.exit_code == 0, result.output
    written = sorted(p.relative_to(tmp_path / "pkg").as_posix()
                     for p in (tmp_path / "pkg").rglob("*") if p.is_file())
    assert written == ["README.md", "gizmo/__init__.py", "gizmo/bot.py", "gizmo/encoding.py",
                       "gizmo/rules.py", "gizmo/spec.md", "pyproject.toml",
                       "tests/test_gizmo.py"]
    pyproject = (tmp_path / "pkg" / "pyproject.toml").read_text()
    assert '[project.entry-points."arena.games"]\ngizmo = "gizmo:SPEC"' in pyproject
    assert "$" not in "".join((tmp_path / "pkg" / name).read_text() for name in written)
    assert f"next: pip install -e {tmp_path / 'pkg'}, then arena check-game gizmo" in (
        result.output)


def test_it_refuses_a_bad_name_a_taken_one_or_a_folder_that_exists(tmp_path):
    for name, reason in [("Bad-Name", "is not a game name"), ("class", "is not a game name"),
                         (sorted(GAMES)[0], "is installed already"),
                         ("json", "can be imported here already")]:
        result = new_game(name, "--dir", str(tmp_path / "x"))
        assert result.exit_code == 2 and reason in result.output, (name, result.output)
    (tmp_path / "there").mkdir()
    result = new_game("gizmo", "--dir", str(tmp_path / "there"))
    assert result.exit_code == 2 and "exists already: nothing is overwritten" in result.output
    assert list((tmp_path / "there").iterdir()) == []
