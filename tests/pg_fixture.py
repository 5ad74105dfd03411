"""A real PostgreSQL server for the tests: ``initdb`` into a temporary folder, ``pg_ctl start``
listening on a Unix socket in that folder only (``listen_addresses=''``), stopped at the end.

As root (initdb refuses root) the folder is given to the ``postgres`` user and the server runs
as that user (``runuser``).  In CI (``CI=true``) a missing PostgreSQL fails the tests that need
it; elsewhere they are skipped with the reason.  Each test gets a database of its own
(:meth:`PgServer.new_database`), so tests share one server per pytest-xdist worker.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import quote

#: Where Debian's postgresql package puts the server's programs (the newest version first).
BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
#: The unprivileged user the server runs as when the tests run as root.
SERVER_USER = "postgres"


class PgUnavailable(Exception):
    """No PostgreSQL server can be started here (why)."""


def find_bin() -> Path:
    for folder in BIN_DIRS:
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    raise PgUnavailable("no PostgreSQL server programs (initdb, pg_ctl): install Debian's "
                        "postgresql package")


class PgServer:
    """A throwaway server: :meth:`start`, :meth:`url`, :meth:`stop` (and :meth:`restart`)."""

    _names = itertools.count()

    def __init__(self, listen: str = "", port: int = 5432) -> None:
        self.bin = find_bin()
        self.listen, self.port = listen, port
        self.folder = Path(tempfile.mkdtemp(prefix="arena-pg-"))
        self.data = self.folder / "data"
        self.as_root = os.geteuid() == 0

    def _run(self, command: Sequence[str], **kwargs: object) -> subprocess.CompletedProcess:
        prefix = ["runuser", "-u", SERVER_USER, "--"] if self.as_root else []
        return subprocess.run([*prefix, *command], check=True, capture_output=True,
                              text=True, timeout=60, **kwargs)  # type: ignore[call-overload]

    def start(self) -> PgServer:
        if self.as_root:
            shutil.chown(self.folder, SERVER_USER, SERVER_USER)
        try:
            self._run([str(self.bin / "initdb"), "-D", str(self.data), "-U", "arena",
                       "--auth=trust", "-E", "UTF8", "--no-sync"])
        except (subprocess.CalledProcessError, OSError) as exc:
            raise PgUnavailable(f"initdb failed: {getattr(exc, 'stderr', exc)}") from None
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(f"listen_addresses = '{self.listen}'\nport = {self.port}\n"
                       f"unix_socket_directories = '{self.folder}'\n"
                       "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                       "max_connections = 300\nshared_buffers = 32MB\n")
        if self.listen:
            with (self.data / "pg_hba.conf").open("a") as hba:
                hba.write("host all all 0.0.0.0/0 trust\n")
        self._ctl("start")
        return self

    def _ctl(self, action: str) -> None:
        try:
            self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-t", "30",
                       "-l", str(self.folder / "server.log"), action, "-m", "fast"]
                      if action != "start" else
                      [str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-t", "30",
                       "-l", str(self.folder / "server.log"), "start"])
        except subprocess.CalledProcessError as exc:
            log = (self.folder / "server.log")
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise PgUnavailable(f"pg_ctl {action} failed: {exc.stderr}\n{tail}") from None

    def stop(self) -> None:
        with contextlib.suppress(PgUnavailable):
            self._ctl("stop")

    def restart(self) -> None:
        self._ctl("restart")

    def url(self, database: str = "postgres", host: str | None = None) -> str:
        """A libpq URL of ``database``: over the Unix socket, or TCP to ``host``."""
        if host is not None:
            return f"postgresql://arena@{host}:{self.port}/{database}"
        return f"postgresql://arena@/{database}?host={quote(str(self.folder), safe='')}" \
               f"&port={self.port}"

    def new_database(self) -> str:
        """A fresh, empty database's URL."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def pg_server(listen: str = "", port: int = 5432) -> Iterator[PgServer]:
    server = PgServer(listen, port)
    try:
        yield server.start()
    finally:
        server.cleanup()
