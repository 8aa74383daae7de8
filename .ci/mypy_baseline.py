#!/usr/bin/env python3
"""Type checking with a shrinking baseline.

Runs mypy (configured in pyproject.toml) and compares its errors with .ci/mypy-baseline.txt, the
errors known today. An error is its file, message and code, without the line number, so that
edits elsewhere in a file leave it matched. The check fails on any error the baseline does not
hold (so the count can only go down); errors fixed since are reported, and `--update` rewrites the
baseline without them.

    python .ci/mypy_baseline.py            # check (exit 1 on a new error)
    python .ci/mypy_baseline.py --update   # record today's errors (after fixing some)
"""
from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / ".ci" / "mypy-baseline.txt"
ERROR = re.compile(r"^(?P<path>[^:\s]+\.pyi?):(?P<line>\d+): error: (?P<message>.*)$")


def cache_dir() -> Path:
    """mypy's incremental cache, one per set of stub files: a cache written before a stub existed
    goes on reporting the module as untyped (seen with mypy 2.4), so a new stub starts afresh."""
    stubs = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "splendor_ai").rglob("*.pyi"))
    return ROOT / ".mypy_cache" / ("stubs-" + hashlib.sha1("\n".join(stubs).encode()).hexdigest()[:12])


def run_mypy() -> tuple[Counter, dict[str, list[str]]]:
    proc = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--no-pretty",
                           "--show-error-codes", "--hide-error-context", "--cache-dir", str(cache_dir())],
                          cwd=ROOT, capture_output=True, text=True)
    if proc.returncode not in (0, 1) or proc.stderr.strip():
        sys.exit(f"mypy did not run (exit {proc.returncode}):\n{proc.stderr or proc.stdout}")
    errors: Counter = Counter()
    where: dict[str, list[str]] = {}
    for line in proc.stdout.splitlines():
        m = ERROR.match(line)
        if m:
            key = f"{m['path']}: {m['message']}"
            errors[key] += 1
            where.setdefault(key, []).append(f"{m['path']}:{m['line']}")
    return errors, where


def read_baseline() -> Counter:
    if not BASELINE.exists():
        return Counter()
    return Counter(line for line in BASELINE.read_text(encoding="utf-8").splitlines()
                   if line and not line.startswith("#"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--update", action="store_true", help="write today's errors as the baseline")
    args = ap.parse_args()
    errors, where = run_mypy()
    total = sum(errors.values())
    if args.update:
        header = ("# mypy errors known today (file: message [code], no line numbers); .ci/mypy_baseline.py\n"
                  "# fails on any other. Fix some, then run it with --update: this list only shrinks.\n")
        BASELINE.write_text(header + "".join(f"{k}\n" for k in sorted(errors.elements())), encoding="utf-8")
        print(f"mypy baseline: {total} errors recorded in {BASELINE.relative_to(ROOT)}")
        return 0
    baseline = read_baseline()
    new = errors - baseline
    fixed = baseline - errors
    if new:
        print(f"mypy: {sum(new.values())} error(s) not in the baseline ({BASELINE.relative_to(ROOT)}):")
        for key in sorted(new):
            print(f"  {key}  (at {', '.join(where[key])})")
        print("Fix them (or, for an error that cannot be fixed yet, record it: python .ci/mypy_baseline.py --update).")
        return 1
    print(f"mypy: {total} errors, all in the baseline of {sum(baseline.values())}")
    if fixed:
        print(f"  {sum(fixed.values())} fixed since: run `python .ci/mypy_baseline.py --update` to lower the baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
