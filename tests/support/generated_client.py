"""A Python client generated from the portal's own /api/v1/openapi.json by openapi-python-client (issue 39): what an
integrator would do. Generated into a temporary directory under a unique package name and imported from there."""

from __future__ import annotations

import importlib
import subprocess
import sys
import uuid
from pathlib import Path
from types import ModuleType

import httpx

BIN = Path(sys.executable).parent


def generate(schema_url: str, where: Path) -> ModuleType:
    """Fetch the schema, generate the client package and import it (its `api`, `models` and `AuthenticatedClient`)."""
    where.mkdir(parents=True, exist_ok=True)
    schema = where / "openapi.json"
    schema.write_bytes(httpx.get(schema_url, timeout=30).raise_for_status().content)
    package = f"portal_api_client_{uuid.uuid4().hex[:8]}"
    config = where / "config.yaml"
    config.write_text(f"package_name_override: {package}\nproject_name_override: {package}\n")
    done = subprocess.run(
        [
            str(BIN / "openapi-python-client"),
            "generate",
            "--path",
            str(schema),
            "--config",
            str(config),
            "--output-path",
            str(where / package),
            "--meta",
            "none",
        ],
        capture_output=True,
        text=True,
        env={"PATH": f"{BIN}:/usr/bin:/bin"},
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"openapi-python-client failed:\n{done.stdout}\n{done.stderr}")
    sys.path.insert(0, str(where))
    try:
        return importlib.import_module(package)
    finally:
        sys.path.remove(str(where))


def submodule(client: ModuleType, name: str) -> ModuleType:
    """`client.api.tests.list_tests` and the like, by dotted name under the generated package."""
    return importlib.import_module(f"{client.__name__}.{name}")
