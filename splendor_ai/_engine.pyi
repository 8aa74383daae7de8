"""Type stub of the compiled engine (ext/splendor_ai/_engine.pyx; the constants are the `cpdef enum`
of ext/splendor_ai/_engine.pxd: action ids, tree keys, sizes, phases, module flags, end reasons)."""
from typing import Any, Final

NCOL: Final[int]
NTOK: Final[int]
GOLD: Final[int]
MAXP: Final[int]
NLEV: Final[int]
NDECK: Final[int]
NSLOT: Final[int]
NREG: Final[int]
DECKCAP: Final[int]
NCARDS: Final[int]
NBASE: Final[int]
NNOBLES: Final[int]
NCITIES: Final[int]
NCITY_UP: Final[int]
NPOSTS: Final[int]
NJOKER: Final[int]
NSTRONG: Final[int]
MAXTODO: Final[int]
MAXRES: Final[int]
TOKEN_LIMIT: Final[int]
WIN_POINTS: Final[int]
MOD_CITIES: Final[int]
MOD_ORIENT: Final[int]
MOD_POSTS: Final[int]
MOD_STRONGHOLDS: Final[int]
AB_GOLD2: Final[int]
AB_JOKER: Final[int]
AB_DOUBLE: Final[int]
AB_HOLD: Final[int]
AB_TAKE1: Final[int]
AB_TAKE2: Final[int]
AB_SACRIFICE: Final[int]
POST_GEM_AFTER_BUY: Final[int]
POST_EXTRA_ON_TAKE2: Final[int]
POST_GOLD_TWO: Final[int]
POST_FIVE: Final[int]
POST_PER_ARMS: Final[int]
PH_MAIN: Final[int]
PH_RETURN: Final[int]
PH_NOBLE: Final[int]
PH_JOKER: Final[int]
PH_HOLD: Final[int]
PH_FREE: Final[int]
PH_SACRIFICE: Final[int]
PH_SH: Final[int]
PH_SH_TO: Final[int]
PH_CONQUER: Final[int]
PH_GEM: Final[int]
PH_CITY: Final[int]
TASK_GAIN: Final[int]
TASK_REFILL: Final[int]
A_TAKE3: Final[int]
A_TAKE2D: Final[int]
A_TAKE1: Final[int]
A_TAKE2S: Final[int]
A_RES_SLOT: Final[int]
A_RES_DECK: Final[int]
A_BUY_SLOT: Final[int]
A_BUY_HAND: Final[int]
A_PASS: Final[int]
A_RETURN: Final[int]
A_NOBLE: Final[int]
A_BASE_END: Final[int]
A_JOKER: Final[int]
A_HOLD: Final[int]
A_FREE: Final[int]
A_SACRIFICE: Final[int]
A_SH_PLACE: Final[int]
A_SH_FROM: Final[int]
A_SH_TO: Final[int]
A_SH_REMOVE: Final[int]
A_CONQUER: Final[int]
A_DECLINE: Final[int]
A_GEM: Final[int]
A_CITY: Final[int]
NUM_ACTIONS: Final[int]
MAXLEGAL: Final[int]
KEY_RESERVE: Final[int]
KEY_BUY: Final[int]
KEY_FREE: Final[int]
KEY_SH_PLACE: Final[int]
KEY_SH_FROM: Final[int]
KEY_SH_TO: Final[int]
KEY_SH_REMOVE: Final[int]
NKEYS: Final[int]
END_NONE: Final[int]
END_POINTS: Final[int]
END_CAP: Final[int]
END_STALEMATE: Final[int]


def _load_tables() -> None: ...
def _mask_list(lo: int, hi: int) -> list[int]: ...
def set_base_paths(on: bool) -> None: ...


class Core:
    """A game state in C. Methods here trust their caller (splendor_ai.state validates input)."""

    @staticmethod
    def new(nplayers: int, seed: int, first: int = 0, cap: int = 100, modules: int = 0) -> Core: ...
    @staticmethod
    def from_dict(d: dict[str, Any]) -> Core: ...
    def copy(self) -> Core: ...
    def key(self) -> bytes: ...
    def action_key(self, a: int) -> int: ...
    def legal_actions(self) -> list[int]: ...
    def apply(self, a: int) -> None: ...
    def hidden_for(self, seat: int) -> Core: ...
    def determinized(self, seed: int) -> Core: ...
    def playout(self, seed: int) -> int: ...
    def bench_playouts(self, games: int, seed: int) -> tuple[int, int, int]: ...
    def bench_legal(self, reps: int) -> int: ...
    def bench_apply(self, reps: int, action: int) -> int: ...
    @property
    def phase(self) -> int: ...
    @property
    def to_move(self) -> int: ...
    @property
    def over(self) -> int: ...
    @property
    def turn(self) -> int: ...
    @property
    def nplayers(self) -> int: ...
    @property
    def modules(self) -> int: ...
    @property
    def nslots(self) -> int: ...
    @property
    def ndecks(self) -> int: ...
    @property
    def step(self) -> int: ...
    def ranks(self) -> list[int]: ...
    def points(self) -> list[int]: ...
    def ncards(self) -> list[int]: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]: ...
