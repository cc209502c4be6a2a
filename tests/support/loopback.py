"""What every loopback stand-in of an external provider shares: an HTTP server on a free port of
127.0.0.1, served from a daemon thread, and its start and stop."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LoopbackServer:
    """Base of the stand-ins: a subclass builds its request handler and calls `_listen(handler)`."""

    server: ThreadingHTTPServer
    url: str
    port: int

    def _listen(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> Self:
        self.thread.start()
        return self

    def stop(self) -> None:
        """Close the socket: the host is down from now on (connections refused)."""
        self.server.shutdown()
        self.server.server_close()
