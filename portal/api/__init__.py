"""The public REST API under /api/v1 (issue 39): routers, Pydantic schemas and key auth, calling the same services
as the pages. Described by OpenAPI 3.1 at /api/v1/openapi.json, with interactive docs at /api/docs."""
