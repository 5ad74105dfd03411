"""Broken: takes its time in its first reaction window, as if it had the move timeout there
too (it waits 1.5 reaction timeouts, less than the move timeout)."""

import time

from honest import HonestBot

REACTIONS = ("window", "target", "response")


class SlowInWindowsBot(HonestBot):
    slowed = False

    def choose(self, request):
        if request["observation"].get("decision") in REACTIONS and not self.slowed:
            self.slowed = True
            time.sleep(1.5 * self.limits["reaction_timeout_ms"] / 1000)
        return super().choose(request)


SlowInWindowsBot().run()
