"""Tables of text with a column per field and a row per seat, for people: names never push the
other columns out of line (a name longer than :data:`NAME_WIDTH` is cut in the middle)."""

from __future__ import annotations

from collections.abc import Sequence

#: The widest a column of names gets; a longer name is cut and ends in "…".
NAME_WIDTH = 20
#: What a table's lines start with.
INDENT = "  "


#: Characters a cut name keeps from its end (``random-…bot-12``: numbered names stay apart).
KEEP_END = 6


def fit(name: str, width: int) -> str:
    """``name`` in exactly ``width`` characters: padded, or cut in the middle with an
    ellipsis, keeping its start and its last :data:`KEEP_END` characters."""
    if len(name) <= width:
        return name.ljust(width)
    end = min(KEEP_END, max(0, (width - 1) // 2))
    return name[:width - 1 - end] + "…" + (name[-end:] if end else "")


def name_width(names: Sequence[str], *, least: int = 4) -> int:
    """The width of a column of ``names``: the longest, at least ``least`` and at most
    :data:`NAME_WIDTH`."""
    return min(NAME_WIDTH, max([least, *(len(name) for name in names)]))


def grid(header: Sequence[str], rows: Sequence[Sequence[str]], *,
         left: int = 1) -> str:
    """A table: the first column (names) fitted to :func:`name_width`, the next ``left - 1``
    columns left-aligned and the others right-aligned, each as wide as its widest cell; the
    last column, if left-aligned, is not padded (a long list of cards may follow)."""
    columns = len(header)
    cells = [[str(cell) for cell in row] + [""] * (columns - len(row)) for row in rows]
    widths = [name_width([header[0], *(row[0] for row in cells)])]
    widths += [max(len(str(header[i])), *(len(row[i]) for row in cells)) if cells
               else len(str(header[i])) for i in range(1, columns)]

    def line(row: Sequence[str]) -> str:
        parts = [fit(str(row[0]), widths[0])]
        for i in range(1, columns):
            cell = str(row[i])
            parts.append(cell.ljust(widths[i]) if i < left else cell.rjust(widths[i]))
        return (INDENT + "  ".join(parts)).rstrip()
    return "\n".join([line(header), *(line(row) for row in cells)])
