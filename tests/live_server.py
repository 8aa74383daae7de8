"""`splendor serve`'s app on a free loopback port, in a thread, for the tests that drive it over
HTTP (tests/test_web_browser.py, tests/test_web_load.py)."""
import socket
import threading
import time
from contextlib import contextmanager

import uvicorn

from splendor_ai.interfaces.web.app import create_app
from splendor_ai.interfaces.web.games import GameManager


@contextmanager
def live_server(workers: int):
    """Yield (base URL, GameManager) of a server on 127.0.0.1 with `workers` search workers; stop
    it on exit."""
    manager = GameManager(workers=workers)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(manager), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    end = time.monotonic() + 30
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < end, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", manager
    finally:
        srv.should_exit = True
        thread.join(10)
