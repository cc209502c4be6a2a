"""A Reflex web directory of its own for an app that runs beside another, its npm packages copied, not installed.

`reflex run` builds the frontend in the web directory (REFLEX_WEB_WORKDIR, `.web` by default) for the app's
port, and the app serves it from there: two apps at once need a directory each. A new directory starts as a
copy of `.web` once `.web` has its packages installed (node_modules and Reflex's record of them), so
`npm install` runs once per checkout; the copy is taken under Reflex's own lock on `.web`, which `reflex run`
holds while it installs, compiles and builds there. Without an installed `.web`, Reflex sets up the new
directory itself, as it does `.web`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from reflex.utils.path_ops import file_lock

INSTALLED = "reflex.install_frontend_packages.cached"  # Reflex's record of the packages it installed
BUILT = {"build", ".react-router"}  # the last build's output: every start writes its own


def prepare_web_dir(web_dir: Path, source: Path) -> None:
    """Make `web_dir` a copy of `source` without its build output, unless it is `source` or exists."""
    if web_dir.exists() or web_dir.resolve() == source.resolve() or not (source / INSTALLED).exists():
        return
    partial = web_dir.with_name(f"{web_dir.name}.partial")
    with file_lock(source):
        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(
            source,
            partial,
            symlinks=True,
            ignore=lambda folder, names: BUILT.intersection(names) if Path(folder) == source else (),
        )
    partial.rename(web_dir)
