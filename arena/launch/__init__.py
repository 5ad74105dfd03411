"""Launching bots: the match runner, tournaments' bot instances and worker
processes, the sandbox."""
