"""Images made for the tests (Pillow), and a body larger than any image the portal keeps."""

from __future__ import annotations

import io
from collections.abc import Iterator

from PIL import Image, ImageDraw


def image_bytes(
    width: int, height: int, fmt: str = "PNG", color: tuple[int, int, int] = (70, 90, 200), label: str = ""
) -> bytes:
    """A real image of this size (a coloured page with a band and a label, so it is recognisable)."""
    image = Image.new("RGB", (width, height), (245, 246, 250))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, max(1, height // 6)), fill=color)
    draw.rectangle(
        (width // 10, height // 3, width - width // 10, height // 3 + max(1, height // 8)), fill=(200, 205, 220)
    )
    if label:
        draw.text((max(1, width // 20), max(1, height // 20)), label, fill=(255, 255, 255))
    out = io.BytesIO()
    image.save(out, format=fmt)
    return out.getvalue()


def png(width: int, height: int = 900, **kwargs) -> bytes:
    return image_bytes(width, height, "PNG", **kwargs)


def chunks_of(total: int, start: bytes = b"", chunk: int = 1024 * 1024) -> Iterator[bytes]:
    """`total` bytes made as they are sent (the sender never holds them): `start`, then zeros."""
    sent = 0
    if start:
        yield start
        sent = len(start)
    block = bytes(chunk)
    while sent < total:
        piece = block[: min(chunk, total - sent)]
        sent += len(piece)
        yield piece
