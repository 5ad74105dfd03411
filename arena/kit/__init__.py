"""The bot author's kit: check-bot and play (a person's seat), and drawings for people."""
