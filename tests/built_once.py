"""Something costly built once per test run and shared by the pytest-xdist workers."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str,
               build: Callable[[Path], None]) -> Path:
    """A folder ``build`` fills once per test run, shared by the pytest-xdist workers (the
    first builds it under a lock, the others wait for it and use it): for fixtures that build
    something costly (sandboxed builds, a compiled bot) that the tests only read."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:  # one process: its own temporary folder
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    shared = tmp_path_factory.getbasetemp().parent / f"{name}-{run}"
    with open(f"{shared}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = shared / ".built"
        if not done.exists():
            shutil.rmtree(shared, ignore_errors=True)  # a worker that failed building it
            shared.mkdir()
            build(shared)
            done.touch()
    return shared
