"""Broken: thinks longer than the move timeout on its fourth request."""

import time

from honest import HonestBot


class SlowBot(HonestBot):
    def choose(self, request):
        if self.requests_seen == 4:
            time.sleep(1.5 * self.limits["move_timeout_ms"] / 1000)
        return super().choose(request)


SlowBot().run()
