"""The Python examples of README.md and docs/*.md run as written.

Every ```python block of a file runs in order in one namespace (a later block may use the names of
an earlier one), in a temporary working directory, so an example that drifts from the API fails
here. A block that must not run (it starts a server, waits for input, ...) begins with the line
`# not run: <why>`; it is still compiled, so its syntax is checked.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "experiments" / "README.md"]
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
NOT_RUN = "# not run:"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """(first line number, code) of each ```python block of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in FENCE.finditer(text)]


def test_blocks_are_found():
    # the extraction itself: a fenced block, its line number, and other languages left out
    md = "intro\n```python\nx = 1\n```\n```bash\nls\n```\n```python\n# not run: a server\nserve()\n```\n"
    p = ROOT / "build" / "test_docs_sample.md"
    p.parent.mkdir(exist_ok=True)
    p.write_text(md, encoding="utf-8")
    try:
        assert python_blocks(p) == [(3, "x = 1\n"), (9, "# not run: a server\nserve()\n")]
    finally:
        p.unlink()


FILES_WITH_CODE = [p for p in DOCS if p.exists() and python_blocks(p)]


def test_readme_has_python_examples():
    assert ROOT / "README.md" in FILES_WITH_CODE


@pytest.mark.parametrize("path", FILES_WITH_CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_python_examples_run(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"docs_{path.stem}"}
    for line, code in python_blocks(path):
        where = f"{path.relative_to(ROOT)}:{line}"
        compiled = compile(code, where, "exec")
        if code.lstrip().startswith(NOT_RUN):
            continue
        try:
            exec(compiled, namespace)
        except Exception as e:  # name the block, not just this file
            raise AssertionError(f"the example at {where} raised {type(e).__name__}: {e}") from e


def markdown_files() -> list[Path]:
    """Every Markdown file of the documentation: the top level, docs/, experiments/ and the results
    folders' reports."""
    files = [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), ROOT / "experiments" / "README.md",
             *(ROOT / "experiments" / "results").glob("**/report.md")]
    return sorted(p for p in files if p.exists())


def test_relative_links_resolve():
    # a link to a file or folder of the repository names one that exists (web links and anchors aside)
    broken = []
    for path in markdown_files():
        text = path.read_text(encoding="utf-8")
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (path.parent / target.split("#", 1)[0]).exists():
                broken.append(f"{path.relative_to(ROOT)}: {target}")
    assert len(markdown_files()) > 100 and not broken, broken
