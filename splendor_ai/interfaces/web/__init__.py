"""The browser UI of `splendor serve`: play against the AI, hints, analysis, records and replays.

`create_app()` (in `app`) builds the FastAPI app; `serve()` runs it with uvicorn. The game logic
(`games`) does not depend on the web framework. See docs/WEB.md.
"""
from __future__ import annotations


def create_app(*args, **kwargs):
    from .app import create_app as _create
    return _create(*args, **kwargs)


def serve(host: str = "127.0.0.1", port: int = 8000, log_level: str = "info",
          allow_hosts: list[str] | None = None) -> None:
    """Run the web app until interrupted. The Host header must name the loopback (127.0.0.1,
    localhost, ::1), the address bound (unless it is a wildcard such as 0.0.0.0) or one of
    `allow_hosts` ("*": any), so that a page of another site cannot reach the server through
    DNS rebinding."""
    import uvicorn
    from .app import LOOPBACK_HOSTS, create_app as _create
    hosts = list(LOOPBACK_HOSTS) + list(allow_hosts or [])
    if host not in ("0.0.0.0", "::", ""):
        hosts.append(host)
    uvicorn.run(_create(allowed_hosts=hosts), host=host, port=port, log_level=log_level)
