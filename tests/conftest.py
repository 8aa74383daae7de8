import os
import sys
from pathlib import Path

import pytest

# the rules model lives beside the tests and is imported as a plain module
sys.path.insert(0, str(Path(__file__).parent))

#: under CI a skipped test is a failure: what the tests need is installed by .ci/run, so a skip there
#: (a missing package, browser or data file) is a hole in the run, not a pass
STRICT = os.environ.get("CI", "").lower() == "true"


def _strict(report, what: str) -> None:
    reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = f"{what} skipped under CI=true (a skip is a gap there): {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if STRICT and report.skipped and not hasattr(report, "wasxfail") and not item.get_closest_marker("opt_in"):
        _strict(report, item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if STRICT and report.skipped:
        _strict(report, collector.nodeid)


@pytest.fixture(autouse=True)
def _games_saved_in_a_temporary_folder(tmp_path_factory, monkeypatch):
    """`splendor play` saves the game when the player leaves (docs/CLI.md): in tests, and in the
    commands they run, that goes to a temporary folder, never the user's own."""
    monkeypatch.setenv("SPLENDOR_SAVE_DIR", str(tmp_path_factory.getbasetemp() / "saves"))
