"""Not broken: it does not come back after a lost connection (reconnecting is optional) and
ends there, as the complete bot of SPEC.md §8 does."""

from honest import HonestBot


class NeverReconnectsBot(HonestBot):
    def on_lost(self):
        return False


NeverReconnectsBot().run()
