"""mypy finds no error beyond the recorded baseline (.ci/mypy-baseline.txt, which only shrinks;
.ci/mypy_baseline.py explains it). mypy is part of the `test` extra."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_type_error_beyond_the_baseline():
    proc = subprocess.run([sys.executable, str(ROOT / ".ci" / "mypy_baseline.py")], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "all in the baseline" in proc.stdout
