"""The author's page (issue 33 §3): a registered bot's author signs in with the bot's token and
sees what is the bot's alone: its hosted versions with their build and validation logs, the
upload of a new version, the choice of the version that plays, its games from its own seats,
its standard error, its errors and defaults.

Every route under ``/author`` reads the bot from the session (:mod:`arena.web.author_auth`),
never from the request: no URL names a bot, so none can name another's.  A version number or
a game number of another bot is "not found", as one that does not exist.  A game is shown from
the bot's own seat only (what that seat was sent), and only once its duplicate set is over (the
rule of the public replays: the set's other tables play the same cards).  Every POST is
refused unless it comes from this site (``Origin``) with its session's form token; a sign-in is
refused while its address failed too often (:data:`~arena.web.author_auth.SIGNIN_FAILURES`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

import trio
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.launch.hosted_build import MAX_SUBMISSION_BYTES
from arena.launch.languages import LANGUAGES
from arena.web import pages
from arena.web.author_auth import (
    COOKIE,
    SIGNIN_FAILURES,
    SIGNIN_FAILURES_ALL,
    SIGNIN_WINDOW,
    Session,
    Sessions,
    Window,
    cleared_cookie,
    cookie_header,
    form_token_ok,
    in_minutes,
    same_origin,
)
from arena.web.author_db import AuthorDb, Signed, entrants_of
from arena.web.author_form import FormError, multipart, read_body
from arena.web.author_jobs import AuthorSettings, Upload, Uploads
from arena.web.data import RECENT_GAMES, EventData

#: Bytes a sign-in, sign-out or activation form may be.
SMALL_FORM_BYTES = 4096
#: Bytes an upload's form may hold besides its file (its boundaries, headers, other fields).
FORM_OVERHEAD = 64 * 1024
#: Headers of every page of the author's: never kept by a cache, never framed by another site.
PRIVATE = {"Cache-Control": "no-store", "X-Frame-Options": "DENY",
           "Referrer-Policy": "same-origin"}


class AuthorSite:
    """The author's page of one event's database: its sessions, limits and uploads."""

    def __init__(self, settings: AuthorSettings, data: EventData,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.data = data
        self.db = AuthorDb(settings.db, settings.builds)
        self.sessions = Sessions(clock)
        self.failures = Window(SIGNIN_FAILURES, SIGNIN_WINDOW, clock)
        self.all_failures = Window(SIGNIN_FAILURES_ALL, SIGNIN_WINDOW, clock)
        self.uploads = Uploads(settings, clock)
        #: The bots (their identities) an upload of which is being received: one at a time
        #: each (an upload is held in memory while it arrives).
        self.receiving: set[str] = set()

    async def run(self) -> None:
        """The uploads' worker (a task of the app's lifespan)."""
        await self.uploads.run()


def page(template: str, status: int = 200, **values: Any) -> HTMLResponse:
    return HTMLResponse(pages.render(template, **values), status_code=status, headers=PRIVATE)


def message(title: str, text: str, status: int) -> HTMLResponse:
    return page("message.html", status, title=title, message=text)


def author_routes(site: AuthorSite | None) -> list[Route]:
    """The routes of the author's page (none when it is not open)."""
    if site is None:
        return []

    async def signed_in(request: Request) -> tuple[Session, Signed] | None:
        """The request's session and its bot as registered now (None: not signed in)."""
        session_id = request.cookies.get(COOKIE)
        session = site.sessions.get(session_id)
        if session is None:
            return None
        now = await trio.to_thread.run_sync(site.db.still, Signed(session.bot,
                                                                  session.identity))
        if now is None:  # removed, or registered anew: this session is over
            site.sessions.end(session_id)
            return None
        return session, now

    async def refused_post(request: Request) -> Response | None:
        if not same_origin(request.headers.get("origin"), request.headers.get("host")):
            return message("refused", "this form was sent from another site", 403)
        return None

    async def home(request: Request) -> Response:
        found = await signed_in(request)
        if found is None:
            return page("author_signin.html", title="author's page")
        session, signed = found
        versions = await trio.to_thread.run_sync(site.db.versions, signed)
        active = next((v for v in versions if v.state.value == "active"), None)
        output = None if active is None else await trio.to_thread.run_sync(
            site.db.output, active)
        games, troubled = await my_games(signed)
        folded = signed.identity
        return page("author.html", title=f"{signed.bot}: author's page", bot=signed.bot,
                    form_token=session.form_token, versions=versions, active=active,
                    output=output, games=games, troubled=troubled,
                    upload=site.uploads.pending.get(folded),
                    last=site.uploads.last.get(folded), languages=sorted(LANGUAGES),
                    limit_mb=MAX_SUBMISSION_BYTES // 2**20, utc=utc)

    async def my_games(signed: Signed) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        if site.data.storage is None:
            return [], []
        standings = await site.data.current()
        mine = entrants_of(await trio.to_thread.run_sync(site.data.entrants), signed)
        games: dict[int, Any] = {}
        troubled: dict[int, Any] = {}
        for entrant in mine:
            for index in standings.by_bot.get(entrant, [])[-RECENT_GAMES:]:
                games[index] = pages.game_line(standings, standings.games[index], entrant)
            for index in standings.troubled.get(entrant, []):
                troubled[index] = pages.game_line(standings, standings.games[index], entrant)
        return ([games[i] for i in sorted(games, reverse=True)],
                [troubled[i] for i in sorted(troubled, reverse=True)])

    async def sign_in(request: Request) -> Response:
        refused = await refused_post(request)
        if refused is not None:
            return refused
        address = request.client.host if request.client is not None else "?"
        wait = max(site.failures.wait(address), site.all_failures.wait(""))
        if wait > 0:
            return message("too many sign-ins", "too many failed sign-ins: try again in "
                           f"{in_minutes(wait)}", 429)
        fields = await small_form(request)
        name, token = fields.get("name", ""), fields.get("token", "")
        signed = await trio.to_thread.run_sync(site.db.sign_in, name, token) \
            if name and token else None
        if signed is None:
            site.failures.add(address)
            site.all_failures.add("")
            return page("author_signin.html", 403, title="author's page", name=name,
                        problem="that name and token do not match a registered bot")
        session_id, _ = site.sessions.start(signed.bot, signed.identity)
        response = RedirectResponse("/author", status_code=303, headers=PRIVATE)
        response.headers["set-cookie"] = cookie_header(session_id, secure=secure(request))
        return response

    async def checked(request: Request, fields: dict[str, str] | None = None
                      ) -> tuple[Session, Signed] | Response:
        """The signed-in session of a POST with its form token (else the refusal)."""
        found = await signed_in(request)
        if found is None:
            return message("not signed in", "sign in first (/author)", 403)
        fields = fields if fields is not None else await small_form(request)
        if not form_token_ok(found[0], fields.get("form_token")):
            return message("refused", "this form has no valid form token: open the author's "
                           "page again and send it from there", 403)
        return found

    async def sign_out(request: Request) -> Response:
        refused = await refused_post(request)
        found = refused or await checked(request)
        if isinstance(found, Response):
            return found
        site.sessions.end(request.cookies.get(COOKIE))
        response = RedirectResponse("/author", status_code=303, headers=PRIVATE)
        response.headers["set-cookie"] = cleared_cookie(secure=secure(request))
        return response

    async def activate(request: Request) -> Response:
        refused = await refused_post(request)
        fields = {} if refused else await small_form(request)
        found = refused or await checked(request, fields)
        if isinstance(found, Response):
            return found
        number = version_number(fields.get("number", ""))
        problem = "no such version" if number is None else await trio.to_thread.run_sync(
            site.db.activate, found[1], number)
        if problem is not None:
            return message("not made active", problem, 400)
        return RedirectResponse("/author", status_code=303, headers=PRIVATE)

    async def upload(request: Request) -> Response:
        refused = await refused_post(request)
        found = refused or await signed_in(request)
        if isinstance(found, Response):
            return found
        if found is None:
            return message("not signed in", "sign in first (/author)", 403)
        if found[1].identity in site.receiving:
            return message("upload refused", "an upload of yours is being received already: "
                           "wait for it to arrive", 429)
        site.receiving.add(found[1].identity)
        try:
            body = await read_body(request, MAX_SUBMISSION_BYTES + FORM_OVERHEAD)
            parts = multipart(request.headers.get("content-type", ""), body)
        except FormError as exc:
            return message("upload refused", str(exc), exc.status)
        finally:
            site.receiving.discard(found[1].identity)
        token = parts.get("form_token")
        checked_found = await checked(request, {"form_token": token[1].decode(
            errors="replace") if token else ""})
        if isinstance(checked_found, Response):
            return checked_found
        file = parts.get("file")
        if file is None or not file[1]:
            return message("upload refused", "choose a file to upload", 400)
        if len(file[1]) > MAX_SUBMISSION_BYTES:
            return message("upload refused", f"the file is more than {MAX_SUBMISSION_BYTES} "
                           "bytes", 413)
        language = parts.get("lang", (None, b""))[1].decode(errors="replace")
        if language and language not in LANGUAGES:
            return message("upload refused", f"no language {language!r}", 400)
        problem = site.uploads.offer(Upload(found[1].bot, found[1].identity, file[0] or "",
                                            file[1], language or None))
        if problem is not None:
            return message("upload refused", problem, 429)
        return RedirectResponse("/author", status_code=303, headers=PRIVATE)

    async def version(request: Request) -> Response:
        found = await signed_in(request)
        if found is None:
            return message("not signed in", "sign in first (/author)", 403)
        number = request.path_params["number"]
        shown = None if version_number(str(number)) is None else await trio.to_thread.run_sync(
            site.db.version, found[1], number)
        if shown is None:
            return message("not found", f"{found[1].bot} has no version {number}", 404)
        version_, build_log, check_log, output = shown
        return page("author_version.html", title=f"{found[1].bot} version {number}",
                    bot=found[1].bot, version=version_, build_log=build_log,
                    check_log=check_log, output=output)

    async def game(request: Request) -> Response:
        found = await signed_in(request)
        if found is None:
            return message("not signed in", "sign in first (/author)", 403)
        return await own_game(site, found[1], request.path_params["planned"])

    return [Route("/author", home), Route("/author/signin", sign_in, methods=["POST"]),
            Route("/author/signout", sign_out, methods=["POST"]),
            Route("/author/upload", upload, methods=["POST"]),
            Route("/author/activate", activate, methods=["POST"]),
            Route("/author/version/{number:int}", version),
            Route("/author/game/{planned:int}", game)]


#: The largest version number a database holds (a 64-bit integer).
MAX_NUMBER = 2**63 - 1


def version_number(text: str) -> int | None:
    """A version's number as a form or URL gives it: ASCII digits, within :data:`MAX_NUMBER`
    (None otherwise: "no such version", never an error of the database's)."""
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_NUMBER:
        return None
    return int(text)


def utc(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))


def secure(request: Request) -> bool:
    return request.url.scheme == "https"


async def small_form(request: Request) -> dict[str, str]:
    """A small urlencoded form's fields (the first value of each; empty when it is not one)."""
    try:
        body = await read_body(request, SMALL_FORM_BYTES)
    except FormError:
        return {}
    fields = parse_qs(body.decode(errors="replace"), keep_blank_values=True)
    return {key: values[0] for key, values in fields.items()}


async def own_game(site: AuthorSite, signed: Signed, planned: int) -> Response:
    """Game ``planned`` from the bot's own seat (the first, when it held several)."""
    from arena.web.frames import FramesError, replay_frames

    missing = message("not found", f"no game {planned} of {signed.bot}", 404)
    standings = await site.data.current()
    game = standings.game(planned)
    mine = entrants_of(await trio.to_thread.run_sync(site.data.entrants), signed)
    seats = [] if game is None else [s for s, e in enumerate(game.entrants) if e in mine]
    if game is None or not seats:
        return missing
    if not pages.set_complete(standings, game):
        return message("not yet", f"game {planned} cannot be shown yet: the other games of "
                       "its duplicate set are not all over (they play the same cards)", 404)
    path = site.data.log_path(game)
    if path is None or not path.is_file():
        return message("not found", f"game {planned}: its log is not kept here", 404)
    view = f"seat{seats[0]}"
    try:
        built = await trio.to_thread.run_sync(replay_frames, str(path), path.stat().st_mtime,
                                              view)
    except (FramesError, ValueError, OSError) as exc:
        return message("not found", f"game {planned}: {exc}", 404)
    replay = {**built, "views": [view], "planned": planned, "entrants": list(game.entrants)}
    return page("replay.html", title=f"game {planned} from {signed.bot}'s seat",
                replay=replay, live=False, author=True)
