"""The interactive docs at /api/docs: Swagger UI 5 (it reads OpenAPI 3.1), its assets served by the portal from the
swagger-ui-py package (no CDN; the page's CSP allows only the portal's own scripts)."""

from __future__ import annotations

from pathlib import Path

import swagger_ui
from fastapi import APIRouter, FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from starlette.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

DOCS = "/api/docs"
ASSETS = f"{DOCS}/assets"
SCHEMA = "/api/v1/openapi.json"
_STATIC = Path(swagger_ui.__file__).parent / "static"


def install(api: FastAPI) -> None:
    router = APIRouter(include_in_schema=False)

    @router.get(DOCS, response_class=HTMLResponse)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=SCHEMA,
            title="Participant portal API",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon-32x32.png",
            swagger_ui_parameters={"persistAuthorization": False, "tryItOutEnabled": True},
        )

    api.include_router(router)
    api.mount(ASSETS, StaticFiles(directory=_STATIC), name="api-docs-assets")
