"""Broken: answers a request only once something happened since its last answer (an event),
as if every decision followed another player's move: it hangs on simultaneous decisions."""

from honest import HonestBot


class WaitsForNewsBot(HonestBot):
    news = True
    waiting = None

    def on_event(self, message):
        self.news = True
        if self.waiting is not None:
            request, self.waiting = self.waiting, None
            self.on_request(request)

    def on_game_start(self, message):
        self.news = True

    def on_request(self, message):
        if not self.news:
            self.waiting = message
            return
        self.news = False
        super().on_request(message)


WaitsForNewsBot().run()
