"""An answer given before the request's body was read to its end says `Connection: close`.

A route may answer without reading the body (a refused origin, a wrong method, a body over the size
limit): the server then cannot find the next request on that connection and closes it. Saying so
in the answer lets every client open a new connection instead of sending its next request into a
closed one (the HTTP fuzz in tests/security found that race).
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def _declares_body(scope: Scope) -> bool:
    headers = Headers(scope=scope)
    length = headers.get("content-length", "").strip()
    return (length.isdigit() and int(length) > 0) or "chunked" in headers.get("transfer-encoding", "").lower()


class CloseAfterUnreadBody:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _declares_body(scope):
            await self.app(scope, receive, send)
            return
        read_to_end = False

        async def tracking_receive() -> Message:
            nonlocal read_to_end
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body", False):
                read_to_end = True
            return message

        async def closing_send(message: Message) -> None:
            if message["type"] == "http.response.start" and not read_to_end:
                MutableHeaders(scope=message)["connection"] = "close"
            await send(message)

        await self.app(scope, tracking_receive, closing_send)


def wrap(app: ASGIApp) -> ASGIApp:
    """The api_transformer step (outermost): see the module's docstring."""
    return CloseAfterUnreadBody(app)
