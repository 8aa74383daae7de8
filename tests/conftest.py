import sys
from pathlib import Path

# the rules model lives beside the tests and is imported as a plain module
sys.path.insert(0, str(Path(__file__).parent))

import pytest


@pytest.fixture(autouse=True)
def _games_saved_in_a_temporary_folder(tmp_path_factory, monkeypatch):
    """`splendor play` saves the game when the player leaves (docs/CLI.md): in tests, and in the
    commands they run, that goes to a temporary folder, never the user's own."""
    monkeypatch.setenv("SPLENDOR_SAVE_DIR", str(tmp_path_factory.getbasetemp() / "saves"))
