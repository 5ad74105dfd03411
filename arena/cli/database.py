"""The ``--db`` option's type: an SQLite file or a PostgreSQL URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click


class Database(click.ParamType):
    """``--db``: a ``postgresql://`` (or ``postgres://``) URL, given as text, or an SQLite
    file (a Path; ``exists``: it must be there)."""

    name = "FILE|URL"

    def __init__(self, exists: bool = False) -> None:
        self.exists = exists

    def convert(self, value: Any, param: Any, ctx: Any) -> Path | str:
        if isinstance(value, Path) or not str(value).startswith(("postgresql://",
                                                                 "postgres://")):
            return Path(str(click.Path(exists=self.exists, dir_okay=False).convert(
                str(value), param, ctx)))
        return str(value)
