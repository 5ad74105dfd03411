"""arena: a game host for bot-programming competitions."""

#: The project's version (pyproject.toml says the same; a test checks it).
__version__ = "0.1.0"
