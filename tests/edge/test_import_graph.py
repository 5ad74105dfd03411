"""The edge and the protocol import no module that imports them back (TYPE_CHECKING imports
count too): read from each module's ast, not from what happens to be imported at run time."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("protocol", "arena/edge", "arena/gameplay")


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for package in PACKAGES for p in (ROOT / package).glob("*.py")}
    return {name: {m for m in imports(path) if m in modules and m != name}
            for name, path in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    found, state = [], dict.fromkeys(edges, 0)  # 0 new, 1 on the path, 2 done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(edges[name]):
            if state[target] == 1:
                found.append(path[path.index(target):] + [target])
            elif state[target] == 0:
                visit(target, path + [target])
        state[name] = 2

    for name in sorted(edges):
        if state[name] == 0:
            visit(name, [name])
    return found


def test_the_checker_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b", "a"]]


def test_no_import_circles_in_the_edge_the_protocol_and_gameplay():
    edges = graph()
    assert "arena.edge.server" in edges and "arena.edge.session" in edges["arena.edge.table"]
    assert cycles(edges) == []


def test_the_protocol_imports_nothing_from_arena():
    edges = graph()
    assert not [(m, t) for m, ts in edges.items() if m.startswith("protocol")
                for t in ts if t.startswith("arena")]
