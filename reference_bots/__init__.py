"""Reference bots: standalone programs that connect over TCP and speak the protocol like any
outside bot.  ``client`` is a small blocking-socket client library they share."""
