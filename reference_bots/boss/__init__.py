"""The boss bots: determinized Monte Carlo search over each game's own pure engine.

:mod:`~reference_bots.boss.search` is the shared core; each game has a module with its sampler
(worlds consistent with one seat's observation) and its policy for the client library."""
