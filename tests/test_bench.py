"""Smoke test of the engine benchmark script (no timing assertions)."""
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "experiments" / "bench_engine.py"


def test_bench_engine_quick(tmp_path):
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--players", "2", "--modules", "base", "orient",
                           "--json", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    for heading in ("== 2 players ==", "measurement", "engine", "model", "engine/model",
                    "legal-move generations/s", "move applications/s", "random playouts/s",
                    "plies/s (whole turns)", "actions/s (engine actions)"):
        assert heading in proc.stdout, heading
    assert "== 3 players ==" not in proc.stdout
    assert "== 2 players, orient ==" in proc.stdout and "module/base" in proc.stdout
    data = json.loads(out.read_text())
    res, orient = data["results"]
    assert res["players"] == 2 and (res["module"], orient["module"]) == ("base", "orient")
    assert orient["model"] is None and orient["engine"]["plies_per_s"] > 0
    for key in ("legal_per_s", "apply_per_s", "games_per_s", "plies_per_s"):
        assert res["engine"][key] > 0 and res["model"][key] > 0
    assert res["engine"]["actions_per_s"] >= res["engine"]["plies_per_s"]
    # every rate has its 95% interval around it (the mean of the timed batches), printed as +-x%
    for fig in (res["engine"], res["model"], orient["engine"]):
        for key in ("legal_per_s", "apply_per_s", "games_per_s", "plies_per_s"):
            lo, hi = fig[key + "_95"]
            assert 0 <= lo <= fig[key] <= hi, key
        assert fig["batches"] >= 2
    assert "95% interval" in proc.stdout and "\u00b1" in proc.stdout
