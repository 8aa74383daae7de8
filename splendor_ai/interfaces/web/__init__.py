"""The browser UI of `splendor serve`: play against the AI, hints, analysis, records and replays.

`create_app()` (in `app`) builds the FastAPI app; `serve()` runs it with uvicorn. The game logic
(`games`) does not depend on the web framework. See docs/WEB.md.
"""
from __future__ import annotations


def create_app(*args, **kwargs):
    from .app import create_app as _create
    return _create(*args, **kwargs)


def serve(host: str = "127.0.0.1", port: int = 8000, log_level: str = "info") -> None:
    """Run the web app until interrupted."""
    import uvicorn
    from .app import create_app as _create
    uvicorn.run(_create(), host=host, port=port, log_level=log_level)
