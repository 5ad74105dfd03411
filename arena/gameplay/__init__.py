"""Drives one game between seats, purely: the driver (requests, tries, timeouts,
defaults), the game log and its replay, and the record of a finished game."""
