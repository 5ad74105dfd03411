"""Hopeless: answers every request with the id after its own and ignores the error replies,
so no request is ever answered (each one waits for its whole move timeout)."""

from honest import HonestBot


class AlwaysWrongIdBot(HonestBot):
    def on_request(self, message):
        self.send_action(message["id"] + 1, self.choose(message))

    def on_error(self, message):
        if message.get("fatal"):
            raise SystemExit(1)


AlwaysWrongIdBot().run()
