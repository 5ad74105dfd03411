"""MkDocs hook: the site's home page is README.md, with its links made relative to docs/ (one
text for the repository's front page and the site's)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parents[2] / "README.md"


def home_text() -> str:
    text = README.read_text(encoding="utf-8")
    text = re.sub(r"\]\(docs/\)", "](index.md)", text)
    return re.sub(r"\]\(docs/", "](", text)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    return home_text() if page.file.src_uri == "index.md" else markdown
