"""Events: schedules, settings, storage, ratings, leaderboards, SPRT, live progress."""
