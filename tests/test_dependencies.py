"""The dependency split of pyproject.toml: the core (`pip install splendor_ai`) plays, analyses and
records games without the `web`, `experiments` and `ray` extras, and what needs an extra says which
one to install. Each check runs in a fresh interpreter where the extras' packages cannot be imported."""
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTRAS_ONLY = ("fastapi", "uvicorn", "starlette", "matplotlib", "openskill", "ray")


def run_without_extras(code: str) -> subprocess.CompletedProcess:
    """Run `code` with the extras' packages blocked (importing one raises ImportError)."""
    block = "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in EXTRAS_ONLY)
    return subprocess.run([sys.executable, "-c", block + textwrap.dedent(code)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_the_core_plays_and_analyses_without_the_extras():
    proc = run_without_extras("""
        import io, json
        from contextlib import redirect_stdout
        from splendor_ai import State
        from splendor_ai.interfaces.cli import main
        from splendor_ai.match import play_game
        from splendor_ai.players import make_player
        from splendor_ai.records import GameRecord
        out = play_game([make_player("greedy", seed=1), make_player("mcts(iterations=20)", seed=2)], seed=3)
        assert out.result is not None
        rec = GameRecord.from_state(out.final, seed=3, players=["greedy", "mcts"])
        assert GameRecord.from_json(json.loads(json.dumps(rec.to_json()))).result == out.result
        st = State.new(2, seed=4)
        buf = io.StringIO()
        with redirect_stdout(buf):
            assert main(["hint", "--position", st.position(), "--iterations", "50"]) == 0
        first = buf.getvalue().splitlines()[0]
        assert first.startswith("Best move: ") and first.split()[-1] in st.legal_moves, first
        print("ok")
    """)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr


def test_splendor_serve_without_the_web_extra_names_it():
    proc = run_without_extras("""
        from splendor_ai.interfaces.cli import main
        raise SystemExit(main(["serve"]))
    """)
    assert proc.returncode == 2
    assert "pip install 'splendor_ai[web]'" in proc.stderr and "Traceback" not in proc.stderr


def test_plots_and_ratings_without_the_experiments_extra_name_it():
    proc = run_without_extras("""
        from splendor_ai.tournament.errors import ExperimentError
        from splendor_ai.tournament import report, summary
        for call in (report._plt, lambda: summary.plackett_luce([])):
            try:
                call()
            except ExperimentError as e:
                print(e)
            else:
                raise AssertionError("no error")
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "plotting needs matplotlib, which is not installed: pip install 'splendor_ai[experiments]'",
        "rating players (Plackett-Luce) needs openskill, which is not installed: pip install 'splendor_ai[experiments]'"]
