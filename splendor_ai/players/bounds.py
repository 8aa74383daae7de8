"""The bounds of every budget and size parameter a player or a search limit accepts: one table,
checked where a spec or a limit is parsed, by every entry point (`make_player`, `Limit`,
analysis, the engine protocol, the web API, the command line).

Each player kind has a pydantic model below (`MCTSBounds`, `ExpectimaxBounds`, ...) and so does a
search limit (`LimitBounds`); a field's description says what it accepts and why. Types are
strict: an integer parameter refuses a bool or a float, a number refuses a bool, a string or
nan/inf. Parameters the table does not list are left to the player's constructor (an unknown
keyword is refused there).

The caps, and why:

| cap | value | why |
|---|---|---|
| `seconds` | 3600 | an hour for one move or analysis; longer runs are experiments with their own scripts |
| `iterations` | 100,000,000 | about ten minutes of the fastest measured search (172,000 iterations/s on one core) |
| `workers` | the machine's cores (at least 2) | root-parallel searches are threads: more threads than cores only slow each other down, and each holds a tree |
| `dets` | 64 | `MAXDETS` of `_mcts.pyx` and `_expectimax.pyx` (the worlds are fixed-size arrays) |
| `max_nodes` x trees | 40,000,000 nodes | the tree memory of a search: a node is 48 bytes, and growth by doubling plus the children lists bring the worst case to about 130 bytes a node, so 5.2 GB; the default per tree shrinks with `workers` to stay within it. A search with a network also keeps each evaluated node's priors, at most 134 million of them (6 bytes each, 0.8 GB a tree: `PRI_MAX` of `_mcts.pyx`), then re-evaluates instead |
| `depth` (fixed) | 6 | each expectimax depth multiplies the time by 10-30 (depth 4 takes 0.5 s on average, up to 4 s: experiments/README.md), so depth 6 is minutes to an hour a move; deeper searches need `seconds` |
| `depth` (with `seconds`) | 40 | `MAXDEPTH` of `_expectimax.pyx`; the clock bounds the time |
| `chance_samples`, `exact_root` | 64 | `MAXCHANCE` / `MAXTOP` of `_expectimax.pyx` |
| `tt_bits` | 26 | a transposition table of 2^26 entries of 16 bytes is 1 GB |
| `cutoff` | 1000 | playout turns before the evaluation: longer than any game, so 0 (to the end) says the same |
| `halving` | 256 | root candidates of sequential halving: more than any position's legal turns |
| `net` | 500 characters | a shipped network's name or a path to a network file |
| spec length | 4000 characters | the longest spec in use (three weight vectors of 16 numbers) is under 1000 |

A front end may set tighter caps of its own (`caps=`, e.g. the web server's 30 s a search): they
are checked after the table, with the same kind of message.

Errors are `BoundsError` (a `ConfigError`): one line naming the field (`workers`,
`limit.seconds`), what it accepts and the value given, shortened so that a huge input is never
echoed.
"""
from __future__ import annotations

import os
from typing import Annotated, Any, Literal, Mapping, Optional, Union

from pydantic import AllowInfNan, BaseModel, ConfigDict, Field, Strict, ValidationError, model_validator

from ..errors import ConfigError
from .spec import MAX_SPEC_CHARS, short  # noqa: F401  (the spec length cap is in the table above)

#: the machine's cores (at least 2, so a spec written for root parallelism stays valid on one core)
CPUS = max(2, os.cpu_count() or 1)
MAX_SECONDS = 3600.0
MAX_ITERATIONS = 100_000_000
MAX_DETS = 64                  # MAXDETS in _mcts.pyx and _expectimax.pyx
MAX_TREE_NODES = 40_000_000    # nodes of all the trees of one search
DEFAULT_MAX_NODES = 20_000_000  # nodes of one tree when max_nodes is not given (fewer with many workers)
MAX_FIXED_DEPTH = 6
MAX_DEPTH = 40                 # MAXDEPTH in _expectimax.pyx
MAX_CHANCE = 64                # MAXCHANCE in _expectimax.pyx
MAX_TOP = 64                   # MAXTOP in _expectimax.pyx
MAX_TT_BITS = 26
MAX_CUTOFF = 1000
MAX_HALVING = 256
MAX_NET_NAME = 500             # a network's name or path
MIN_MAX_NODES = 1024


class BoundsError(ConfigError):
    """A parameter outside the table. `field` names it (`workers`, `limit.seconds`)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


# -- field types ------------------------------------------------------------------------------------

def _num(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() and abs(x) >= 10_000 else f"{x:g}"


def _int(lo: int, hi: int, why: str = "") -> Any:
    """An optional strict integer field in [lo, hi]."""
    expect = f"an integer in {_num(lo)}-{_num(hi)}" + (f" ({why})" if why else "")
    return Field(None, ge=lo, le=hi, strict=True, description=expect)


def _float(lo: float | None = None, hi: float | None = None, *, lo_open: bool = False, hi_open: bool = False,
           why: str = "") -> Any:
    """An optional strict finite number field (an int is a number, a bool is not) within bounds."""
    bounds: dict[str, float] = {}
    parts = []
    if lo is not None:
        bounds["gt" if lo_open else "ge"] = lo
    if hi is not None:
        bounds["lt" if hi_open else "le"] = hi
    if lo is not None and hi is not None:
        expect = f"a number in {'(' if lo_open else '['}{_num(lo)}, {_num(hi)}{')' if hi_open else ']'}"
    else:
        if lo is not None:
            parts.append(f"{'>' if lo_open else '>='} {_num(lo)}")
        if hi is not None:
            parts.append(f"{'<' if hi_open else '<='} {_num(hi)}")
        expect = "a number " + parts[0] if parts else "a finite number"
    if why:
        expect += f" ({why})"
    return Field(None, strict=True, allow_inf_nan=False, description=expect, gt=bounds.get("gt"),
                 ge=bounds.get("ge"), lt=bounds.get("lt"), le=bounds.get("le"))


def _described(expect: str, strict: bool = True) -> Any:
    return Field(None, strict=strict, description=expect)


def _choice(*names: str) -> Any:
    return Field(None, description="one of " + ", ".join(map(repr, names)))


#: a finite number, strictly (not a bool, not a string)
Finite = Annotated[float, Strict(), AllowInfNan(False)]
Numbers = Optional[tuple[Finite, ...]]
WEIGHTS_WHY = "a tuple of finite numbers (evaluation weights, see splendor_ai/players/evaluation.py)"
_SECONDS_WHY, _ITER_WHY, _DETS_WHY = "at most an hour", "about ten minutes of the fastest search", \
    "the search's most worlds"


class _Table(BaseModel):
    """A player's or a limit's parameters: the listed ones checked, the others passed through."""

    model_config = ConfigDict(extra="allow", frozen=True)


class LimitBounds(_Table):
    """A search limit (`players.Limit`): unset fields fall back to the player's own budget."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    iterations: Optional[int] = _int(1, MAX_ITERATIONS, _ITER_WHY)
    seconds: Optional[float] = _float(0, MAX_SECONDS, lo_open=True, why=_SECONDS_WHY)
    dets: Optional[int] = _int(1, MAX_DETS, _DETS_WHY)
    depth: Optional[int] = _int(1, MAX_DEPTH, f"at most {MAX_FIXED_DEPTH} without seconds")

    @model_validator(mode="after")
    def _fixed_depth(self):
        _check_fixed_depth(self.depth, self.seconds)
        return self


def _check_fixed_depth(depth, seconds) -> None:
    if depth is not None and seconds is None and depth > MAX_FIXED_DEPTH:
        raise BoundsError(f"depth: expected at most {MAX_FIXED_DEPTH} for a fixed-depth search (each depth "
                          f"multiplies the time by 10-30; give seconds to search deeper), got {depth}", "depth")


class MCTSBounds(_Table):
    """`mcts(...)`: see MCTSPlayer for what each parameter does."""

    iterations: Optional[int] = _int(1, MAX_ITERATIONS, _ITER_WHY)
    seconds: Optional[float] = _float(0, MAX_SECONDS, lo_open=True, why=_SECONDS_WHY)
    c: Optional[float] = _float(0, lo_open=True, why="the exploration constant")
    c_base: Optional[float] = _float(0)
    puct: Optional[bool] = _described("True or False")
    prior_temp: Optional[float] = _float(0, lo_open=True)
    fpu: Optional[float] = _float()
    eps: Optional[float] = _float(0, 1, why="a probability")
    cutoff: Optional[int] = _int(0, MAX_CUTOFF, "0 plays to the end")
    rollout: Optional[Literal["policy", "random"]] = _choice("policy", "random")
    eval_scale: Optional[float] = _float(0, lo_open=True)
    weights: Numbers = _described(WEIGHTS_WHY, strict=False)
    phase_weights: Numbers = _described(WEIGHTS_WHY, strict=False)
    module_weights: Numbers = _described(WEIGHTS_WHY, strict=False)
    mode: Optional[Literal["ismcts", "pimc", "perfect"]] = _choice("ismcts", "pimc", "perfect")
    dets: Optional[int] = _int(1, MAX_DETS, _DETS_WHY)
    reuse: Optional[bool] = _described("True or False")
    workers: Optional[int] = _int(1, CPUS, "the machine's cores")
    max_nodes: Optional[int] = _int(MIN_MAX_NODES, MAX_TREE_NODES, "the tree memory of a search")
    halving: Optional[int] = _int(0, MAX_HALVING, "0 is off, else at least 2 root candidates")
    halving_warm: Optional[float] = _float(0, 1, lo_open=True, hi_open=True, why="a share of the budget")
    eval: Optional[Literal["classic", "net", "auto"]] = _choice("classic", "net", "auto")
    net: Optional[str] = Field(None, strict=True, max_length=MAX_NET_NAME,
                               description=f"a shipped network's name or a path, at most {MAX_NET_NAME} characters")
    priors: Optional[Literal["net", "classic"]] = _choice("net", "classic")
    values: Optional[Literal["net", "classic"]] = _choice("net", "classic")
    net_temp: Optional[float] = _float(0, 100, lo_open=True, why="the policy's softmax temperature")
    net_mix: Optional[float] = _float(0, 1, lo_open=True, why="the network's share of a leaf's value")
    net_prior_share: Optional[float] = _float(0, 1, why="the policy head's share of a prior, the rest the heuristic one's")

    @model_validator(mode="after")
    def _together(self):
        if self.halving == 1:
            raise BoundsError("halving: expected 0 (off) or a number of root candidates >= 2, got 1", "halving")
        workers = self.workers or 1
        if self.max_nodes is not None and workers * self.max_nodes > MAX_TREE_NODES:
            raise BoundsError(f"max_nodes: expected at most {_num(MAX_TREE_NODES // workers)} with {workers} workers "
                              f"(their trees together hold at most {_num(MAX_TREE_NODES)} nodes: the tree memory "
                              f"of a search), got {self.max_nodes}", "max_nodes")
        return self


class ExpectimaxBounds(_Table):
    """`expectimax(...)`: see ExpectimaxPlayer for what each parameter does."""

    depth: Optional[int] = _int(1, MAX_DEPTH, f"at most {MAX_FIXED_DEPTH} without seconds")
    seconds: Optional[float] = _float(0, MAX_SECONDS, lo_open=True, why=_SECONDS_WHY)
    dets: Optional[int] = _int(1, MAX_DETS, _DETS_WHY)
    chance_samples: Optional[int] = _int(1, MAX_CHANCE, "outcomes per card reveal")
    algo: Optional[Literal["paranoid", "maxn"]] = _choice("paranoid", "maxn")
    eval_bound: Optional[float] = _float(0, lo_open=True)
    exact_root: Optional[Union[Annotated[bool, Strict()], Annotated[int, Strict(), Field(ge=1, le=MAX_TOP)]]] = \
        Field(None, description=f"True, False or a number of root moves in 1-{MAX_TOP}")
    tt_bits: Optional[int] = _int(0, MAX_TT_BITS, "2^26 entries of 16 bytes are 1 GB")
    eval_scale: Optional[float] = _float(0, lo_open=True)
    weights: Numbers = _described(WEIGHTS_WHY, strict=False)
    phase_weights: Numbers = _described(WEIGHTS_WHY, strict=False)
    module_weights: Numbers = _described(WEIGHTS_WHY, strict=False)
    eval: Optional[Literal["classic", "net", "auto"]] = _choice("classic", "net", "auto")
    net: Optional[str] = Field(None, strict=True, max_length=MAX_NET_NAME,
                               description=f"a shipped network's name or a path, at most {MAX_NET_NAME} characters")

    @model_validator(mode="after")
    def _fixed_depth(self):
        _check_fixed_depth(self.depth, self.seconds)
        return self


class GreedyBounds(_Table):
    """`greedy(...)`."""

    weights: Numbers = _described(WEIGHTS_WHY, strict=False)
    module_weights: Numbers = _described(WEIGHTS_WHY, strict=False)


class RandomBounds(_Table):
    """`random`: no parameters besides the seed."""


#: the table: what each player kind (and a search limit) accepts
TABLE: dict[str, type[_Table]] = {"limit": LimitBounds, "mcts": MCTSBounds, "expectimax": ExpectimaxBounds,
                                  "greedy": GreedyBounds, "random": RandomBounds}


def default_max_nodes(workers: int = 1) -> int:
    """The node cap of one tree when `max_nodes` is not given: 20 million, less when `workers`
    trees would together pass the search's cap."""
    return min(DEFAULT_MAX_NODES, MAX_TREE_NODES // max(1, workers))


def check(kind: str, params: Mapping[str, Any], caps: Mapping[str, float] | None = None,
          where: str = "") -> None:
    """Check `params` (keyword arguments of player kind `kind`, or of "limit") against the table,
    then against a front end's tighter `caps` (field -> highest value). Parameters the table does
    not list are not checked here. Raises BoundsError naming the field (prefixed by `where`, e.g.
    "limit.") with a short message."""
    model = TABLE.get(kind)
    if model is None:
        raise ConfigError(f"unknown player {short(kind)}; known players: "
                          f"{', '.join(k for k in TABLE if k != 'limit')}")
    # the limit's fields are all in the table; a player's other parameters are its constructor's
    values = dict(params) if kind == "limit" else {k: v for k, v in params.items() if k in model.model_fields}
    try:
        model.model_validate(values)
    except ValidationError as e:
        err = e.errors()[0]
        inner = (err.get("ctx") or {}).get("error")
        if isinstance(inner, BoundsError):     # a rule over several fields (a model validator)
            raise BoundsError(f"{where}{inner}", f"{where}{inner.field}") from None
        name = str(err["loc"][0]) if err["loc"] else ""
        if err["type"] == "extra_forbidden":
            raise BoundsError(f"{where.rstrip('.') or kind}: unknown field {short(name, 30)} (known: "
                              f"{', '.join(model.model_fields)})",
                              where + name[:30]) from None
        expect = model.model_fields[name].description if name in model.model_fields else err["msg"]
        raise BoundsError(f"{where}{name}: expected {expect}, got {short(values.get(name))}", where + name) from None
    for name, cap in (caps or {}).items():
        v = values.get(name)
        if v is not None and not isinstance(v, bool) and v > cap:
            raise BoundsError(f"{where}{name}: expected at most {_num(cap)} (the cap here), got {short(v)}",
                              where + name)


def table_json() -> dict:
    """The table as data: for each kind, each field's expectation (for documentation and front
    ends that show the bounds)."""
    return {kind: {name: f.description for name, f in model.model_fields.items()} for kind, model in TABLE.items()}
