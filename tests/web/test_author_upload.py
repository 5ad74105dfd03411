"""The author's page's uploads (issue 33 §3): a new version uploaded through the page is built
and checked as ``arena bots submit`` does (by that command, off the request, one at a time)
and becomes the one that plays; an upload too big, or one too many in an hour, is refused
with a clear message and nothing stored."""

from __future__ import annotations

import http.client
import signal
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import trio

from arena.events.hosted_store import SqliteHosted
from arena.launch.sandbox import Sandbox, SandboxUnavailable
from arena.web import author, author_jobs
from arena.web.author_jobs import UPLOADS_PER_HOUR, Uploads
from tests.games.toy import SPEC as TOY
from tests.web.authors import Answer, Client, ladder, served

HONEST = Path(__file__).resolve().parent.parent / "check_bots" / "honest.py"
#: Seconds an upload may take to be built and checked here (a busy machine's).
PATIENCE = 300


async def settled(client: Client) -> Answer:
    """The author's page once no upload of hers waits or runs (polled: a process builds it)."""
    with trio.fail_after(PATIENCE):
        while True:
            page = await client.get("/author")
            if 'id="upload-state"' not in page.text:
                return page
            await trio.sleep(0.2)


async def test_an_uploaded_version_is_built_checked_and_made_active(tmp_path):
    try:
        Sandbox().check()
    except SandboxUnavailable as exc:
        pytest.skip(f"builds need the sandbox: {exc}")
    db, tokens = ladder(tmp_path)
    async with served(db, TOY.name) as base:
        alice = Client(base)
        await alice.sign_in("alice", tokens["alice"])
        token = (await alice.get("/author")).form_token()
        sent = await alice.upload(HONEST.read_bytes(), "honest.py", token)
        assert sent.status == 303, sent.text
        page = await settled(alice)
        assert 'data-number="1" data-state="active"' in page.text, page.text
        assert "active" in page.text and "validated:" in page.text  # what the command said
        version = await alice.get("/author/version/1")
        assert version.status == 200 and "passed" in version.text
        assert "no output yet" in version.text  # the ladder has not run it yet

        sent = await alice.upload(b"no language here\n", "notes.txt", token)
        assert sent.status == 303
        page = await settled(alice)
        assert 'id="last-upload"' in page.text and 'data-number="2"' not in page.text
    with SqliteHosted(db) as store:
        assert [v.state.value for v in store.versions("alice")] == ["active"]
        assert store.versions("bob") == []


def send_chunked(client: Client, token: str, kilobytes: int) -> tuple[int, str]:
    """An upload sent in chunks, with no length said: its status and text."""
    where = urlsplit(client.base)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=60)
    boundary = "b0undary"
    head = (f'--{boundary}\r\nContent-Disposition: form-data; name="form_token"\r\n\r\n'
            f'{token}\r\n--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            'filename="main.py"\r\n\r\n').encode()
    chunks = [head, *(b"#" * 1024 for _ in range(kilobytes)), f"\r\n--{boundary}--\r\n".encode()]
    try:
        connection.request("POST", "/author/upload", body=iter(chunks), headers={
            "Cookie": client.cookie or "", "Origin": client.base,
            "Content-Type": f"multipart/form-data; boundary={boundary}"})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


async def test_an_upload_too_big_or_one_too_many_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(author, "MAX_SUBMISSION_BYTES", 1000)
    gate = tmp_path / "gate"

    def command(self, upload, path):  # the build, held until the gate opens
        return [sys.executable, "-c", "import pathlib, time\n"
                f"while not pathlib.Path({str(gate)!r}).exists(): time.sleep(0.01)\n"
                f"print({upload.bot!r} + ' version: built and checked (a stand-in)')"]

    monkeypatch.setattr(Uploads, "submit_command", command)
    db, tokens = ladder(tmp_path)
    async with served(db) as base:
        alice = Client(base)
        await alice.sign_in("alice", tokens["alice"])
        token = (await alice.get("/author")).form_token()
        big = await alice.upload(b"#" * 1001, "main.py", token)
        assert big.status == 413 and "more than 1000 bytes" in big.text
        huge = await alice.upload(b"#" * (70 * 1024), "main.py", token)
        assert huge.status == 413 and "the upload is more than" in huge.text
        status, text = await trio.to_thread.run_sync(send_chunked, alice, token, 70)
        assert status == 413 and "the upload is more than" in text  # no length said: counted
        assert 'id="upload-state"' not in (await alice.get("/author")).text

        assert (await alice.upload(b"print(1)\n", "main.py", token)).status == 303
        waiting = await alice.upload(b"print(2)\n", "main.py", token)
        assert waiting.status == 429 and "not built and checked yet" in waiting.text
        gate.touch()
        page = await settled(alice)
        assert "built and checked (a stand-in)" in page.text
        for _ in range(UPLOADS_PER_HOUR - 1):
            assert (await alice.upload(b"print(1)\n", "main.py", token)).status == 303
            await settled(alice)
        again = await alice.upload(b"print(1)\n", "main.py", token)
        assert again.status == 429
        assert (f"{UPLOADS_PER_HOUR} uploads an hour at most: upload again in 60 minutes"
                in again.text)

        bob = Client(base)  # a limit of alice's bot, not of bob's
        await bob.sign_in("bob", tokens["bob"])
        bob_token = (await bob.get("/author")).form_token()
        assert (await bob.upload(b"print(1)\n", "main.py", bob_token)).status == 303
        await settled(bob)


def test_an_upload_past_its_time_is_stopped_and_its_version_refused(tmp_path, monkeypatch):
    """Run as in the pages' process of ``arena serve --web``, which ignores Ctrl-C (so would the
    command it starts, unless it sets Ctrl-C's handler again)."""
    try:
        Sandbox().check()
    except SandboxUnavailable as exc:
        pytest.skip(f"builds need the sandbox: {exc}")
    monkeypatch.setattr(author_jobs, "JOB_SECONDS", 3.0)
    db, tokens = ladder(tmp_path)

    async def main() -> None:
        async with served(db, TOY.name) as base:
            alice = Client(base)
            await alice.sign_in("alice", tokens["alice"])
            token = (await alice.get("/author")).form_token()
            never = b"import time\ntime.sleep(600)\n"  # no hello: the series waits for it
            assert (await alice.upload(never, "main.py", token)).status == 303
            page = await settled(alice)
            assert "stopped after 3 s" in page.text

    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        trio.run(main)
    finally:
        signal.signal(signal.SIGINT, before)
    with SqliteHosted(db) as store:
        [version] = store.versions("alice")
    assert version.state.value == "refused"
    assert version.reason.startswith("arena stopped while "), version.reason


def test_a_database_named_relative_to_the_pages_is_the_one_an_upload_writes(tmp_path,
                                                                            monkeypatch):
    """An upload's command runs in a folder of its own: a relative ``--db`` given to the
    pages must still name the ladder's file there, never a new empty database."""
    monkeypatch.chdir(tmp_path)
    settings = author_jobs.AuthorSettings("ladder.db", TOY.name, Path("ladder.db.builds"))
    assert settings.db == str(tmp_path / "ladder.db")
    assert settings.builds == tmp_path / "ladder.db.builds"
    monkeypatch.chdir("/")
    again = author_jobs.AuthorSettings.from_json(settings.to_json())
    assert again.db == str(tmp_path / "ladder.db")
    url = "postgresql://arena@localhost/ladder"
    assert author_jobs.AuthorSettings(url, TOY.name, tmp_path).db == url


async def test_an_author_sends_one_upload_at_a_time(tmp_path, monkeypatch):
    """Each upload being received is held in the pages' memory (16 MB at most): one author
    sending many at once, never finishing them, would fill it. While one of hers is being
    received, another of hers is refused before its body is read; bob's is not."""
    import threading

    monkeypatch.setattr(Uploads, "submit_command", lambda self, upload, path: [
        sys.executable, "-c", "print('built and checked (a stand-in)')"])
    sites: list[author.AuthorSite] = []
    made = author.AuthorSite.__init__

    def keep(self, *args, **kwargs):
        made(self, *args, **kwargs)
        sites.append(self)

    monkeypatch.setattr(author.AuthorSite, "__init__", keep)
    db, tokens = ladder(tmp_path)
    async with served(db) as base:
        alice = Client(base)
        await alice.sign_in("alice", tokens["alice"])
        token = (await alice.get("/author")).form_token()
        half_sent, go_on = threading.Event(), threading.Event()

        def stalled() -> tuple[int, str]:
            where = urlsplit(base)
            connection = http.client.HTTPConnection(where.hostname or "", where.port,
                                                    timeout=60)
            boundary = "b0undary"
            head = (f'--{boundary}\r\nContent-Disposition: form-data; name="form_token"'
                    f'\r\n\r\n{token}\r\n--{boundary}\r\nContent-Disposition: form-data; '
                    'name="file"; filename="main.py"\r\n\r\nprint(1)\n').encode()

            def chunks():
                yield head
                half_sent.set()
                go_on.wait(60)
                yield f"\r\n--{boundary}--\r\n".encode()

            try:
                connection.request("POST", "/author/upload", body=chunks(), headers={
                    "Cookie": alice.cookie or "", "Origin": base,
                    "Content-Type": f"multipart/form-data; boundary={boundary}"})
                response = connection.getresponse()
                return response.status, response.read().decode()
            finally:
                connection.close()

        async with trio.open_nursery() as nursery:
            first: list[tuple[int, str]] = []

            async def send_first() -> None:
                first.append(await trio.to_thread.run_sync(stalled))

            nursery.start_soon(send_first)
            try:
                await trio.to_thread.run_sync(half_sent.wait)
                with trio.fail_after(60):  # the server has begun to read it (a thread sends)
                    while True:
                        if sites[0].receiving:
                            break
                        await trio.sleep(0.01)
                second = await alice.upload(b"print(2)\n", "main.py", token)
                assert second.status == 429 and "being received" in second.text, second.text
                bob = Client(base)
                await bob.sign_in("bob", tokens["bob"])
                bob_token = (await bob.get("/author")).form_token()
                assert (await bob.upload(b"print(3)\n", "main.py", bob_token)).status == 303
            finally:
                go_on.set()
        assert first[0][0] == 303, first
