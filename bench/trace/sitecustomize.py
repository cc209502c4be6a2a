"""Timing logs for bench/survey_load.py --trace, loaded into the portal's processes via PYTHONPATH.

Nothing in portal/ changes: this wraps, from outside, where an event's time goes on the server:
- `execute`: the whole event under its state lock (lock wait, state load, handler, delta, state save);
- `handler`: the handler itself with its delta (reflex's process_event);
- `db`: each `portal.db.run` call, total (thread hop, connection, transaction, commit) and `inside`
  (the service function alone), attributed to the event that made it.
One line per measurement is appended to $BENCH_TRACE_FILE: kind, event, label, ms, inside ms, the
wall-clock time it ended (s) and the process id; kind `gc` is a garbage collection's pause (label its
generation, inside the objects it collected).
With $BENCH_PROFILE_EVENT (a handler's qualified name, e.g. SurveyState.set_answer) that handler
also runs under cProfile, its stats written to $BENCH_TRACE_FILE.prof (use with one participant:
the profiler sees whatever runs on the event loop while it is on). $BENCH_SWITCH_INTERVAL sets
sys.setswitchinterval in the portal (an experiment on the GIL hand-over to the database threads).
"""

from __future__ import annotations

import contextvars
import os
import sys
import threading
import time

_PATH = os.environ.get("BENCH_TRACE_FILE")
_current = contextvars.ContextVar("bench_event", default="-")
_PROFILE_EVENT = os.environ.get("BENCH_PROFILE_EVENT")
_lock = threading.Lock()
_out = None


def _log(kind: str, event: str, label: str, ms: float, inside: float = 0.0) -> None:
    global _out
    line = f"{kind}\t{event}\t{label}\t{ms:.3f}\t{inside:.3f}\t{time.time():.3f}\t{os.getpid()}\n"
    with _lock:
        if _out is None:
            _out = open(_PATH, "a", buffering=1)  # noqa: PTH123, SIM115 - line-buffered, kept open
        _out.write(line)


def _install() -> None:
    from reflex_base.event.processor import base_state_processor as bsp

    from portal import db

    original_run = db.run

    async def run(fn, /, *args, **kwargs):
        inside = [0.0]

        def timed(session, *a, **kw):
            started = time.perf_counter()
            try:
                return fn(session, *a, **kw)
            finally:
                inside[0] = (time.perf_counter() - started) * 1000

        started = time.perf_counter()
        try:
            return await original_run(timed, *args, **kwargs)
        finally:
            _log(
                "db",
                _current.get(),
                getattr(fn, "__qualname__", str(fn)),
                (time.perf_counter() - started) * 1000,
                inside[0],
            )

    db.run = run

    original_process = bsp.process_event
    profiler = None
    if _PROFILE_EVENT:
        import cProfile

        profiler = cProfile.Profile()

    async def process_event(*args, **kwargs):
        handler = kwargs.get("handler")
        name = getattr(getattr(handler, "fn", None), "__qualname__", "?")
        token = _current.set(name)
        profiling = profiler is not None and name == _PROFILE_EVENT
        if profiling:
            profiler.enable()
        started = time.perf_counter()
        try:
            return await original_process(*args, **kwargs)
        finally:
            _log("handler", name, "", (time.perf_counter() - started) * 1000)
            _current.reset(token)
            if profiling:
                profiler.disable()
                profiler.dump_stats(f"{_PATH}.prof")

    bsp.process_event = process_event

    cls = bsp.BaseStateEventProcessor
    original_execute = cls._execute_event

    async def _execute_event(self, *, entry, registered_handler):
        name = getattr(registered_handler.handler.fn, "__qualname__", "?")
        started = time.perf_counter()
        try:
            return await original_execute(self, entry=entry, registered_handler=registered_handler)
        finally:
            _log("execute", name, "", (time.perf_counter() - started) * 1000)

    cls._execute_event = _execute_event


def _install_gc_timing() -> None:
    """Each garbage collection's pause: kind `gc`, label the generation, ms (it stops every coroutine)."""
    import gc

    started = [0.0]

    def callback(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            _log(
                "gc",
                "-",
                f"gen{info.get('generation')}",
                (time.perf_counter() - started[0]) * 1000,
                float(info.get("collected", 0)),
            )

    gc.callbacks.append(callback)


def _install_gc_census(every: float) -> None:
    """BENCH_GC_CENSUS=<seconds>: every so often, what the cyclic garbage is made of (kind `garbage`,
    label the type, ms the count): a full collection with DEBUG_SAVEALL keeps the unreachable objects in
    gc.garbage to be counted by type, then lets them go (the next collection frees them)."""
    import collections
    import gc

    def census() -> None:
        while True:
            time.sleep(every)
            gc.set_debug(gc.DEBUG_SAVEALL)
            try:
                gc.collect()
                kinds = collections.Counter(type(o).__qualname__ for o in gc.garbage)
            finally:
                gc.set_debug(0)
                gc.garbage.clear()
            for kind, count in kinds.most_common(25):
                _log("garbage", "-", kind, float(count))

    def start() -> None:
        threading.Thread(target=census, name="bench-gc-census", daemon=True).start()

    os.register_at_fork(after_in_child=start)  # the workers are forked; a thread does not survive a fork


if os.environ.get("BENCH_SWITCH_INTERVAL"):  # an experiment: how long a thread waits for the GIL
    sys.setswitchinterval(float(os.environ["BENCH_SWITCH_INTERVAL"]))

if _PATH:
    try:
        _install()
        _install_gc_timing()
        if os.environ.get("BENCH_GC_CENSUS"):
            _install_gc_census(float(os.environ["BENCH_GC_CENSUS"]))
    except Exception as exc:  # noqa: BLE001 - never stop the portal for a benchmark hook
        print(f"bench trace not installed: {exc!r}", file=sys.stderr)
