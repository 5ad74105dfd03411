"""Broken: answers every request first with a token that is never legal (then retries from
the legal list the error sends again)."""

from honest import HonestBot


class IllegalBot(HonestBot):
    def on_request(self, message):
        self.send_action(message["id"], "pass the salt")


IllegalBot().run()
