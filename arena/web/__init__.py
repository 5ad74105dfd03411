"""The competition pages in a browser (``arena web``, ``arena serve --web``): an ASGI
application (Starlette, Jinja2 templates, static files shipped with the package) served by
hypercorn's trio worker, never in a game server's process.  Read-only: it reads an event's
storage through the ``Storage`` protocol and the leaderboard, head-to-head and group functions
of ``arena.events``, game logs through ``arena.gameplay``, and running tables through the
spectators' public view (``arena.edge``).

- :mod:`arena.web.data`: an event's standings, fitted in a process of their own
  (:mod:`arena.web.fitproc`, :mod:`arena.web.fitjob`) and cached until the games count changes;
- :mod:`arena.web.history`: each bot's rating over time;
- :mod:`arena.web.frames`: a finished game's log as the steps of one view (public, a seat's,
  full);
- :mod:`arena.web.live`: running tables as a spectator sees them, read from the game server's
  feed (:mod:`arena.edge.page_feed`);
- :mod:`arena.web.boards`: each game's public view drawn as a board, and each step as a
  sentence;
- :mod:`arena.web.svg`: the plots, drawn on the server; :mod:`arena.web.pages`: the pages'
  HTML from the standings (Jinja2 templates in ``templates/``, script and style in
  ``static/``);
- :mod:`arena.web.app`: the pages; :mod:`arena.web.serve`: serving them;
  :mod:`arena.web.pagesproc` and :mod:`arena.web.pagesjob`: ``arena serve --web``'s pages in a
  process of their own, started and watched by the game server.
"""
