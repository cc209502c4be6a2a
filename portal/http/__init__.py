"""HTTP endpoints (FastAPI) mounted beside the Reflex app: sign-in cookie, sign-out, health."""
