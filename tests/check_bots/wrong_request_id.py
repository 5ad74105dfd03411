"""Broken: answers every request with the id after its own (then retries with the id the
error names)."""

from honest import HonestBot


class WrongIdBot(HonestBot):
    def on_request(self, message):
        self.send_action(message["id"] + 1, self.choose(message))


WrongIdBot().run()
