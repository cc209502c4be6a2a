"""A file upload spoken by hand over a socket: the body sent chunk by chunk from any iterable (so the
sender need not hold it), stopping as soon as the server answers, as a browser does."""

from __future__ import annotations

import json
import select
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit


def raw_upload(
    base_url: str,
    path: str,
    body: Iterable[bytes],
    *,
    cookie: str = "",
    origin: str | None = None,
    content_length: int | None = None,
    content_type: str = "image/png",
    headers: dict[str, str] | None = None,
    early_answer: float = 0,
) -> tuple[int, dict, int]:
    """POST `body` to base_url+path (chunked unless `content_length` is given); returns (status, JSON
    answer, bytes of body sent). `origin` defaults to base_url's own; `headers` are sent as well.
    `early_answer`: before each chunk, wait up to this many seconds for the server's answer (one that
    answers from the headers stops the body at once; a wait ends as soon as the answer is there)."""
    parts = urlsplit(base_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    head = [
        f"POST {path} HTTP/1.1",
        f"Host: {parts.netloc}",
        f"Origin: {origin or base_url}",
        f"Content-Type: {content_type}",
        "Accept: application/json",
    ]
    if cookie:
        head.append(f"Cookie: {cookie}")
    head += [f"{name}: {value}" for name, value in (headers or {}).items()]
    head.append(f"Content-Length: {content_length}" if content_length is not None else "Transfer-Encoding: chunked")
    sock = socket.create_connection((host, port), timeout=60)
    sent = 0
    try:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        try:
            for chunk in body:
                if select.select([sock], [], [], early_answer)[0]:
                    break  # the server has answered: stop sending
                sock.sendall(chunk if content_length is not None else f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                sent += len(chunk)
            else:
                if content_length is None:
                    sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # it stopped reading and closed: its answer is waiting in our buffer
        answer = b""
        while not _complete(answer):
            try:
                piece = sock.recv(65536)
            except ConnectionResetError:
                break
            if not piece:
                break
            answer += piece
    finally:
        sock.close()
    header, _, payload = answer.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1])
    try:
        found = json.loads(payload or b"{}")
    except ValueError:  # not JSON: an answer from outside the portal's API (e.g. 405 of the pages)
        found = {"_text": payload.decode("utf-8", "replace")}
    return status, found, sent


def _complete(answer: bytes) -> bool:
    if b"\r\n\r\n" not in answer:
        return False
    header, _, payload = answer.partition(b"\r\n\r\n")
    for line in header.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(payload) >= int(line.split(b":", 1)[1])
    return False
