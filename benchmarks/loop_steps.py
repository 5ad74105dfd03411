"""What holds a server's trio loop: ``load_bots.py --server-steps`` runs ``arena serve`` under
:data:`BOOTSTRAP`, which adds a trio instrument and a watchdog thread to the server process and
logs (one line each, to a file):

- ``STEP t0 ms cpu task``: a task step (the code between two of a task's checkpoints) that
  took over :data:`STEP_MS`, and the CPU time the loop's thread had in it (on a busy machine a
  step's wall time is mostly other processes' turns: a step of 15 ms with 0.3 ms of CPU was
  not this code's doing);
- ``STACK t0 task`` ... ``END``: the main thread's stack, sampled by the watchdog once such a
  step has run :data:`STEP_MS` (what the step was doing then);
- ``PASS t0 ms cpu steps task=ms ...``: a scheduler pass (from the end of one wait for I/O to the
  start of the next: every task that was ready ran once) that took over :data:`PASS_MS`, with
  its steps and the five tasks that took longest in it.

A loop that holds on longer than 20 ms is a pause for every bot (issue 20 asks none);
:func:`summary` says which code those were.  The instrument costs the server a few
microseconds a step: compare figures only between runs that both have it, or neither.
"""

from __future__ import annotations

import collections
import re
from pathlib import Path

#: A step is logged, and its stack sampled, past this many milliseconds.
STEP_MS = 10.0
#: A scheduler pass is logged past this many milliseconds.
PASS_MS = 20.0

BOOTSTRAP = """
import collections, sys, threading, time, traceback
import trio
log = open(sys.argv.pop(1), "w", buffering=1)
main_thread = threading.get_ident()
now, cpu = time.perf_counter, time.thread_time
STEP_MS, PASS_MS = STEP_LIMIT, PASS_LIMIT
state = {"task": None, "t0": 0.0, "c0": 0.0, "sampled": True, "pass": None}

class Steps(trio.abc.Instrument):
    def before_task_step(self, task):
        state["task"], state["t0"], state["c0"], state["sampled"] = task.name, now(), cpu(), False
    def after_task_step(self, task):
        took = now() - state["t0"]
        state["task"] = None
        if took * 1000 >= STEP_MS:
            used = (cpu() - state["c0"]) * 1000
            log.write(f"STEP {state['t0']:.6f} {took * 1000:.1f} {used:.1f} {task.name}\\n")
        held = state["pass"]
        if held is not None:
            held[1] += 1
            held[2][task.name] += took
    def after_io_wait(self, timeout):
        state["pass"] = [now(), 0, collections.Counter(), cpu()]
    def before_io_wait(self, timeout):
        held, state["pass"] = state["pass"], None
        if held is not None and (now() - held[0]) * 1000 >= PASS_MS:
            took, used = (now() - held[0]) * 1000, (cpu() - held[3]) * 1000
            top = " ".join(f"{name}={1000 * t:.1f}" for name, t in held[2].most_common(5))
            log.write(f"PASS {held[0]:.6f} {took:.1f} {used:.1f} {held[1]} {top}\\n")

def watch():
    while True:
        time.sleep(0.002)
        task, t0 = state["task"], state["t0"]
        if task is not None and not state["sampled"] and (now() - t0) * 1000 >= STEP_MS:
            state["sampled"] = True
            frame = sys._current_frames().get(main_thread)
            stack = "".join(traceback.format_stack(frame, limit=14)) if frame else ""
            log.write(f"STACK {t0:.6f} {task}\\n{stack}END\\n")

threading.Thread(target=watch, daemon=True).start()
original = trio.run
def run(*args, **kwargs):
    kwargs["instruments"] = [*kwargs.get("instruments", ()), Steps()]
    return original(*args, **kwargs)
trio.run = run
from arena.cli import main
sys.argv[0] = "arena"
main()
""".replace("STEP_LIMIT", str(STEP_MS)).replace("PASS_LIMIT", str(PASS_MS))


def summary(path: Path, window: tuple[float, float] | None = None, top: int = 8) -> list[str]:
    """The log's long steps and passes (within ``window``, the server's perf_counter times),
    grouped: by task, and by the innermost line of arena's code in their sampled stacks."""
    steps: collections.Counter[str] = collections.Counter()
    step_ms: dict[str, list[tuple[float, float]]] = collections.defaultdict(list)
    places: collections.Counter[str] = collections.Counter()
    passes: list[tuple[float, str]] = []
    lines = path.read_text().splitlines() if path.exists() else []
    inside = lambda t0: window is None or window[0] <= t0 <= window[1]  # noqa: E731
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("STEP "):
            _, began, ms, used, task = line.split(" ", 4)
            if inside(float(began)):
                steps[task] += 1
                step_ms[task].append((float(ms), float(used)))
        elif line.startswith("PASS "):
            _, began, ms, rest = line.split(" ", 3)
            if inside(float(began)):
                passes.append((float(ms), rest))
        elif line.startswith("STACK "):
            t0 = float(line.split(" ", 2)[1])
            block = []
            i += 1
            while i < len(lines) and lines[i] != "END":
                block.append(lines[i])
                i += 1
            files = [b for b in block if re.search(r'File ".*/(arena|protocol)/', b)]
            if files and inside(t0):
                found = re.search(r'File ".*/((?:arena|protocol)/[^"]+)", line (\d+), in (\S+)',
                                  files[-1])
                if found:
                    places[f"{found.group(1)}:{found.group(2)} {found.group(3)}"] += 1
        i += 1
    said = [f"loop steps over {STEP_MS:g} ms: {sum(steps.values())} (wall / the loop's CPU)"]
    for task, count in steps.most_common(top):
        wall, its_cpu = max(step_ms[task])
        most = max(u for _, u in step_ms[task])
        said.append(f"  {count:5d} x  longest {wall:6.1f} / {its_cpu:5.1f} ms, most CPU "
                    f"{most:5.1f} ms  {task}")
    said.append("  their sampled stacks, innermost arena line:")
    for place, count in places.most_common(top):
        said.append(f"  {count:5d} x  {place}")
    passes.sort(reverse=True)
    said.append(f"scheduler passes over {PASS_MS:g} ms: {len(passes)}; the longest (wall, "
                "then CPU ms, steps, tasks):")
    for wall_ms, rest in passes[:top]:
        said.append(f"  {wall_ms:6.1f} ms  {rest}")
    return said
