"""The pages' HTML from the standings (pure: standings in, text out; the app caches it per
standings).  Jinja2 escapes every value it writes (``autoescape``); the SVG comes from
:mod:`arena.web.svg`, which escapes the names it draws; JSON goes into pages through ``tojson``
(which escapes ``<``, ``>``, ``&`` and ``'``)."""

from __future__ import annotations

import time
from typing import Any

from jinja2 import Environment, PackageLoader

from arena.events.deals import set_over
from arena.events.groups import group_heading
from arena.gameplay.records import GameRecord
from arena.web import svg
from arena.web.data import RECENT_GAMES, GameRef, Standings, recent

ENV = Environment(loader=PackageLoader("arena.web", "templates"), autoescape=True,
                  trim_blocks=True, lstrip_blocks=True)


def render(template: str, **values: Any) -> str:
    return ENV.get_template(template).render(**values)


def pairwise_totals(standings: Standings) -> dict[int, tuple[int, int, int]]:
    """Each bot's pairwise wins, ties and losses (the comparisons the ratings are fitted on)."""
    totals: dict[int, list[int]] = {}
    for e in standings.versus:
        a, b = e.entrants
        for entrant, (w, t, lost) in ((a, (e.wins, e.ties, e.losses)),
                                      (b, (e.losses, e.ties, e.wins))):
            mine = totals.setdefault(entrant, [0, 0, 0])
            mine[0] += w
            mine[1] += t
            mine[2] += lost
    return {entrant: (w, t, lost) for entrant, (w, t, lost) in totals.items()}


def leaderboard_groups(standings: Standings) -> list[dict[str, Any]]:
    """The rows of the bots that played, group by group, each row with its error bar (the
    bots with no game yet: :func:`newcomers`)."""
    shown = [r for r in standings.rows if r.games or standings.provisional is not None]
    axis = svg.axis_of([(r.elo, r.low, r.high) for r in shown])
    totals = pairwise_totals(standings)
    groups: dict[int, list[dict[str, Any]]] = {}
    for row in shown:
        groups.setdefault(row.group, []).append({
            "row": row, "bar": svg.error_bar(row.elo, row.low, row.high, axis),
            "wtl": totals.get(row.entrant, (0, 0, 0))})
    count = len(groups)
    return [{"number": number,
             "heading": group_heading(number, count, len(rows),
                                      played=any(r["row"].games for r in rows))
             if count > 1 else None,
             "rows": rows} for number, rows in groups.items()]


def newcomers(standings: Standings) -> list[Any]:
    """The bots of a fit with no game yet: provisional, listed apart (not as groups)."""
    return [] if standings.provisional is not None else [r for r in standings.rows
                                                          if not r.games]


def computed_at(standings: Standings) -> str | None:
    """``10:02:03 UTC``: when the standings were fitted (None: not fitted)."""
    if standings.computed_at is None:
        return None
    return time.strftime("%H:%M:%S UTC", time.gmtime(standings.computed_at))


def leaderboard_json(standings: Standings) -> dict[str, Any]:
    totals = pairwise_totals(standings)
    return {"version": standings.version, "groups": standings.groups,
            "caveat": standings.caveat, "empty": standings.empty,
            "provisional": standings.provisional, "computed_at": standings.computed_at,
            "rows": [{"place": r.place, "entrant": r.entrant, "name": r.name, "elo": r.elo,
                      "low": r.low, "high": r.high, "rank_confidence": r.rank_confidence,
                      "games": r.games, "wins": totals.get(r.entrant, (0, 0, 0))[0],
                      "ties": totals.get(r.entrant, (0, 0, 0))[1],
                      "losses": totals.get(r.entrant, (0, 0, 0))[2], "defaults": r.defaults,
                      "group": r.group} for r in standings.rows]}


def title_of(standings: Standings) -> str:
    meta = standings.meta
    game = meta.get("game") or "event"
    return f"{game}: {len(standings.names)} bots, {standings.version} games" \
        if standings.empty is None else "arena"


def leaderboard_page(standings: Standings, *, fragment: bool = False,
                     refresh: float = 5.0) -> str:
    return render("leaderboard_table.html" if fragment else "leaderboard.html",
                  standings=standings, groups=leaderboard_groups(standings),
                  newcomers=newcomers(standings), computed=computed_at(standings),
                  title=title_of(standings), refresh_ms=round(1000 * refresh))


def game_line(standings: Standings, game: GameRecord, entrant: int | None) -> dict[str, Any]:
    """A game as a bot's page lists it (``entrant``: whose page)."""
    seats = [seat for seat, e in enumerate(game.table.entrants) if e == entrant]
    names = standings.names
    return {"planned": game.planned, "game_id": game.game_id, "aborted": game.aborted,
            "shown": set_over(standings.meta, standings.set_games.get(game.set_index, 0),
                              len(game.table.entrants)),
            "players": [names[e] if 0 <= e < len(names) else str(e)
                        for e in game.table.entrants],
            "entrants": list(game.table.entrants),
            "rank": [game.ranks[s] for s in seats if s < len(game.ranks)],
            "score": [game.scores[s] for s in seats if s < len(game.scores)],
            "defaults": sum(game.defaults[s] for s in seats if s < len(game.defaults)),
            "errors": sum(game.errors[s] for s in seats if s < len(game.errors))}


def bot_page(standings: Standings, entrant: int) -> str:
    row = standings.row_of(entrant)
    versus = standings.versus_of(entrant)
    games = [game_line(standings, g, entrant) for g in recent(standings, entrant, RECENT_GAMES)]
    troubled = [game_line(standings, standings.games[i], entrant)
                for i in reversed(standings.troubled.get(entrant, []))]
    return render("bot.html", standings=standings, entrant=entrant,
                  name=standings.names[entrant], row=row, versus=versus, games=games,
                  troubled=troubled,
                  history=svg.history_plot(standings.history.by_bot.get(entrant, [])),
                  history_source=standings.history.source,
                  title=standings.names[entrant])


def versus_page(standings: Standings) -> str:
    order = [row.entrant for row in standings.rows if row.games]  # (no newcomer: no result)
    return render("versus.html", standings=standings, title="head to head",
                  matrix=svg.matrix(standings.names, order, standings.versus))


def set_complete(standings: Standings, game: GameRef) -> bool:
    """Whether a finished game may be replayed: its cards are those of every game of its
    duplicate set, and even its public view shows most of them (the cards played), so only
    once no game of the set is unplayed or in play (:mod:`arena.events.deals`: a tournament's
    or an SPRT run's set once all its seatings are stored, any game a ladder stored), as the
    spectators may not watch a table of a duplicate set."""
    return set_over(standings.meta, standings.set_games.get(game.set_index, 0),
                    len(game.entrants))
