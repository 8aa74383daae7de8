"""Ship a trained network with the package: its file in `splendor_ai/nets/`, its entry in
`index.json` (SHA-256, the games it was trained for and those it is the default for) and a check
value (the network's value of a fixed position, which the tests recompute: the file loaded
and evaluated as shipped). The model card `<name>.md` beside it is written by hand: data, games,
commands and figures with their results folders."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..players.network import _nets_dir, read_network, save_network
from ..state import Config, State

INDEX_FORMAT = "splendor-nets/1"


def check_position(players: int, module: str | None) -> State:
    """The fixed position a shipped network's check value is taken on: the deal of seed 1 after
    two rounds of token takes (a position every kind of game reaches the same way)."""
    st = State.new(players, seed=1, config=Config(players=players, modules=(module,) if module else ()))
    takes = ["+wbg", "+grk", "+wbr", "+bgk"]
    for i in range(2 * players):
        st.push(takes[i % 4])
    return st


def check_value(net, players: int, module: str | None) -> list[float]:
    """The value head's win probability of each seat on `check_position`, to 6 digits."""
    st = check_position(players, module)
    value, _ = net.evaluate(st._core, [])
    return [round(float(v), 6) for v in value[:players]]


def ship(src, name: str, default_for: dict[str, list[int]], data: list[str] | None = None,
         nets_dir: Path | None = None) -> dict:
    """Copy network file `src` into the package as `name` (its meta's name and, when given, its
    data description replaced), and write its index entry, making it the only default of the games
    in `default_for`; returns the entry."""
    from .. import _net
    nets = Path(nets_dir or _nets_dir())
    nets.mkdir(parents=True, exist_ok=True)
    arrays, read_meta = read_network(src)
    meta: dict[str, Any] = dict(read_meta, name=name)
    if data is not None:
        meta["data"] = list(data)
    digest = save_network(nets / f"{name}.npz", arrays, meta)
    net = _net.Network(arrays)
    # a check value on every kind of game it is the default for; a network that is no default yet
    # still gets one (2-player base game), so every shipped file is tested as it is evaluated
    kinds = sorted(default_for.items()) or [("base", [2])]
    checks = {f"{p}p {m}": check_value(net, p, None if m == "base" else m) for m, ps in kinds for p in ps}
    entry = {"file": f"{name}.npz", "sha256": digest, "default_for": default_for, "check": checks}
    index_path = nets / "index.json"
    index: dict[str, Any] = json.loads(index_path.read_text()) if index_path.exists() else {"format": INDEX_FORMAT, "networks": {}}
    # a game has one default network: the new one takes it over from any other (whose check
    # values stay, still true of its file)
    for other_name, other in index["networks"].items():
        if other_name == name:
            continue
        kept = {m: [p for p in ps if p not in default_for.get(m, [])] for m, ps in other["default_for"].items()}
        other["default_for"] = {m: ps for m, ps in kept.items() if ps}
    index["networks"][name] = entry
    tmp = index_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, index_path)
    return entry
