"""Start and stop the portal as users get it (`reflex run --env prod --single-port`), for the
browser tests and the benchmarks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent


def start_portal(
    port: int,
    env: dict[str, str],
    log_path: Path,
    *,
    timeout: float,
    ready_paths: tuple[str, ...] = ("/api/health",),
    backend_only: bool = False,
    built: bool = False,
    cwd: Path = ROOT,
) -> subprocess.Popen:
    """The portal on `port` with `env`, its output in `log_path`; returns once every ready path
    answers 200 (RuntimeError with the log's end when it exits or does not come up in time).
    `backend_only`: the backend alone (events, API), no frontend build; `built`: the frontend an earlier
    start built for this port and settings is served as it is (tests.support.serve_built: a restart);
    `cwd`: another Reflex app."""
    log = log_path.open("w")
    ports = (
        ["--backend-only", "--backend-port", str(port)]
        if backend_only
        else ["--single-port", "--frontend-port", str(port), "--backend-port", str(port)]
    )
    command = (
        [sys.executable, "-m", "tests.support.serve_built", str(port)]
        if built
        else [str(VENV_BIN / "reflex"), "run", "--env", "prod", *ports]
    )
    proc = subprocess.Popen(command, env=env, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + timeout
    base = f"http://localhost:{port}"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the portal exited early:\n{log_path.read_text()[-4000:]}")
        try:
            if all(httpx.get(f"{base}{path}", timeout=2).status_code == 200 for path in ready_paths):
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(1)
    stop_portal(proc)
    raise RuntimeError(f"the portal did not start in {timeout:.0f} s:\n{log_path.read_text()[-4000:]}")


def stop_portal(proc: subprocess.Popen) -> None:
    """SIGTERM to the portal's process group (it writes what it holds, e.g. queued drafts), then SIGKILL."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
