"""The shipped value and policy networks: loading, checking, and which one a game uses.

A network is a versioned `.npz` file (format `splendor-net/1`): the weight arrays the compiled forward
pass reads (ext/splendor_ai/_net.pxd: w1, b1, w2, b2, wv, bv, wp, bp, float32) and a JSON `meta`
string (format, the features version it was trained on, hidden sizes, the player counts and modules
it is for, its training run). Shipped networks live in `splendor_ai/nets/`, listed in
`splendor_ai/nets/index.json` with their SHA-256 and the games they are the default for; each has a
model card (`<name>.md`: data, games, commands, figures). `load_network` takes a shipped name or a
path to any such file.
"""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .. import _features, _net
from ..errors import ConfigError

NET_FORMAT = "splendor-net/1"
ARRAYS = ("w1", "b1", "w2", "b2", "wv", "bv", "wp", "bp")
#: largest network file accepted (a shipped one is a few MB)
MAX_BYTES = 64 * 2 ** 20


def _nets_dir() -> Path:
    return Path(str(resources.files("splendor_ai") / "nets"))


def shipped() -> dict[str, dict]:
    """The shipped networks: name -> its index entry (file, sha256, players, modules, default)."""
    path = _nets_dir() / "index.json"
    if not path.exists():
        return {}
    return json.loads(path.read_text())["networks"]


def default_network(players: int, module: str | None) -> str | None:
    """The shipped network that is the default for this kind of game, or None (the classic evaluation
    stays the default there)."""
    for name, entry in shipped().items():
        if players in entry.get("default_for", {}).get(module or "base", []):
            return name
    return None


def network_for(eval: str, net: str | None, players: int, module: str | None) -> str | None:
    """The network a search player with `eval` ("classic", "net" or "auto") and `net` uses in a
    game of `players` and `module`: None for the classic evaluation; `net`, else the game's
    shipped default; with eval="net" and neither, a ConfigError."""
    if eval == "classic":
        return None
    name = net or default_network(players, module)
    if name is None and eval == "net":
        raise ConfigError(f"no shipped network for {players}-player {module or 'base'} games: "
                          f"give net=PATH or eval='classic'")
    return name


def save_network(path, arrays: dict, meta: dict) -> str:
    """Write a network file; returns its SHA-256."""
    meta = dict(meta, format=NET_FORMAT, features=_features.FEATURES["version"])
    out: dict[str, Any] = {k: np.ascontiguousarray(arrays[k], dtype=np.float32) for k in ARRAYS}
    out["meta"] = np.array(json.dumps(meta, sort_keys=True))
    with open(path, "wb") as f:
        np.savez_compressed(f, **out)
    return sha256(path)


def sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_network(path) -> tuple[dict, dict]:
    """(arrays, meta) of a network file, checked: format, features version, array names and dtypes.
    Raises ConfigError naming what is wrong."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as e:
        raise ConfigError(f"network {str(path)[:200]!r}: {e.strerror}") from None
    if size > MAX_BYTES:
        raise ConfigError(f"network {path.name}: {size} bytes, more than the {MAX_BYTES} accepted")
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            arrays = {k: np.ascontiguousarray(z[k], dtype=np.float32) for k in ARRAYS}
    except (OSError, ValueError, KeyError, EOFError) as e:
        raise ConfigError(f"network {path.name}: not a network file ({type(e).__name__}: {str(e)[:200]})") from None
    if not isinstance(meta, dict) or meta.get("format") != NET_FORMAT:
        raise ConfigError(f"network {path.name}: format {meta.get('format') if isinstance(meta, dict) else meta!r}, "
                          f"expected {NET_FORMAT!r}")
    if meta.get("features") != _features.FEATURES["version"]:
        raise ConfigError(f"network {path.name}: trained on features version {meta.get('features')}, this build "
                          f"encodes version {_features.FEATURES['version']}")
    return arrays, meta


def network_file(name: str) -> Path:
    """The file of a shipped network by name (its checksum verified), or a network file by path."""
    entries = shipped()
    if name in entries:
        path = _nets_dir() / entries[name]["file"]
        digest = sha256(path)
        if digest != entries[name]["sha256"]:
            raise ConfigError(f"network {name}: checksum {digest[:12]}... does not match the index "
                              f"({entries[name]['sha256'][:12]}...): the file is damaged")
        return path
    if name.endswith(".npz") and Path(name).exists():
        return Path(name)
    known = ", ".join(sorted(entries)) or "none shipped"
    raise ConfigError(f"unknown network {name[:100]!r}: give a shipped name ({known}) or a path to a .npz file")


@lru_cache(maxsize=16)
def load_network(name: str) -> "_net.Network":
    """A shipped network by name (its checksum verified), or a network file by path."""
    arrays, meta = read_network(network_file(name))
    try:
        net = _net.Network(arrays)
    except ValueError as e:
        raise ConfigError(f"network {name}: {e}") from None
    net_meta[id(net)] = meta
    return net


#: the meta of each loaded network (by id: the compiled class has no room for Python attributes)
net_meta: dict[int, dict] = {}
