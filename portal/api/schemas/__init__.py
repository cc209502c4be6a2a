"""Pydantic models of the /api/v1 requests and answers (issue 39), one module per resource."""
