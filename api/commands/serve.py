"""CLI command: ``lawgraph serve`` (the explorer over HTTP)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from lawgraph import store

from .options import DB_OPTION


@click.command()
@DB_OPTION
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option(
    "--workers",
    default=None,
    type=click.IntRange(min=1),
    help="Worker processes (default: the number of cores).",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    help="Host header to answer besides the bound host and localhost (repeatable).",
)
@click.option(
    "--max-in-flight",
    default=128,
    show_default=True,
    type=click.IntRange(min=1),
    help="Requests one worker handles at once; more get 503 with Retry-After.",
)
@click.option(
    "--cache-mb",
    default=32.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Memory per worker for whole answers kept while the store is the same.",
)
@click.option(
    "--request-timeout",
    default=10.0,
    show_default=True,
    type=click.FloatRange(min=0.1),
    help="Seconds a client has to send a whole request (headers and body); then 408.",
)
def serve(
    db: Path | None,
    host: str,
    port: int,
    workers: int | None,
    allowed_hosts: tuple[str, ...],
    max_in_flight: int,
    cache_mb: float,
    request_timeout: float,
) -> None:
    """Serve the explorer (JSON API and pages) from the store, read-only.

    Replacing the store file (``lawgraph ingest``) switches every worker to the new store.
    """
    import os

    import uvicorn

    path = store.resolve_db(db).resolve()
    t = time.perf_counter()
    try:  # verify once here, so a damaged store is one clear line, not a worker crash
        store.open_store(path, verify=True).close()
    except store.StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    workers = workers or os.cpu_count() or 1
    hosts = {host, "localhost", "127.0.0.1", "::1", "[::1]", *allowed_hosts}
    if host in ("0.0.0.0", "::"):
        click.echo("bound to every interface: pass --allowed-host NAME for each public name")
    os.environ.update(
        LAWGRAPH_DB=str(path),
        LAWGRAPH_ALLOWED_HOSTS=",".join(sorted(hosts)),
        LAWGRAPH_MAX_IN_FLIGHT=str(max_in_flight),
        LAWGRAPH_CACHE_MB=str(cache_mb),
        LAWGRAPH_REQUEST_TIMEOUT=str(request_timeout),
    )
    click.echo(
        f"serving {path} on http://{host}:{port} with {workers} worker(s) "
        f"(store checked in {time.perf_counter() - t:.2f} s)"
    )
    from .. import app, protocol
    from .. import workers as server_workers

    # named by import path: each worker process imports the app itself
    options: dict[str, Any] = {
        "app": f"{app.__name__}:app_from_env",
        "factory": True,
        "host": host,
        "port": port,
        "log_level": "warning",
        "access_log": False,
        "timeout_keep_alive": 5,
        "limit_concurrency": 4 * max_in_flight,
        "http": f"{protocol.__name__}:GuardedHTTPProtocol",
    }
    if workers == 1 or not server_workers.supported():
        uvicorn.run(**options, workers=workers)
        return
    try:  # a listening socket per worker: new connections are spread over the workers
        server_workers.run(workers, **options)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from exc


COMMANDS: list[click.Command] = [serve]
