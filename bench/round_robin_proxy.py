"""A reverse proxy for the bench: each TCP connection goes to the next backend in turn.

It forwards bytes (HTTP and websockets alike: a websocket is one connection), keeps no
affinity, so a client's consecutive connections land on different backends. Each connection
is logged as '<client port> <backend index>' to --log, so the bench can tell which process
served which of its connections.

    .venv/bin/python bench/round_robin_proxy.py --port 8080 --backend 127.0.0.1:3001 --backend 127.0.0.1:3002
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import signal
import sys


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        try:
            writer.close()
        except Exception:  # noqa: BLE001 - already gone
            pass


def make_handler(backends: list[tuple[str, int]], log):
    turn = itertools.cycle(range(len(backends)))

    async def handle(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        index = next(turn)
        host, port = backends[index]
        peer = client_writer.get_extra_info("peername")
        if log is not None:
            log.write(f"{peer[1]} {index}\n")
            log.flush()
        try:
            backend_reader, backend_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, backend_writer), pipe(backend_reader, client_writer))

    return handle


async def serve(port: int, backends: list[tuple[str, int]], log_path: str | None) -> None:
    log = open(log_path, "a") if log_path else None
    server = await asyncio.start_server(make_handler(backends, log), "127.0.0.1", port, backlog=4096)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"proxy on 127.0.0.1:{port} -> {backends}", flush=True)
    async with server:
        await stop.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--backend", action="append", required=True, help="host:port, repeat for each backend")
    parser.add_argument("--log", help="append '<client port> <backend index>' per connection here")
    args = parser.parse_args()
    backends = [(b.rsplit(":", 1)[0], int(b.rsplit(":", 1)[1])) for b in args.backend]
    asyncio.run(serve(args.port, backends, args.log))


if __name__ == "__main__":
    sys.exit(main())
