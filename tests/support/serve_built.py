"""`reflex run --env prod --single-port` on a port whose frontend is already built, without building it again.

`python -m tests.support.serve_built PORT` runs Reflex's own `run` command with the same arguments as
`start_portal`, its two build steps (compiling the pages into the web directory, `npm run export`) left
out: the backend serves the build an earlier `reflex run` made in that web directory for the same port and
settings (the same files a rebuild would write again). Tests that restart the backend use it, so a restart
costs the backend's start, not a frontend build (about 15 s on an idle 2-core machine, 2 minutes on a busy one).
"""

from __future__ import annotations

import json
import sys

import reflex.reflex as reflex_cli
from reflex.utils import build, prerequisites


def main(port: str) -> None:
    env_json = prerequisites.get_web_dir() / "env.json"
    if f":{port}/" not in json.loads(env_json.read_text()).get("PING", ""):
        sys.exit(f"{env_json} is not a build for port {port}: start the app with `reflex run` first")
    reflex_cli._compile_app = lambda **_: None
    build.setup_frontend_prod = lambda root: None
    reflex_cli.cli(
        ["run", "--env", "prod", "--single-port", "--frontend-port", port, "--backend-port", port], prog_name="reflex"
    )


if __name__ == "__main__":
    main(sys.argv[1])
