"""The statistics of experiments, as plain functions of counts.

Two players (from wins W, draws D, losses L of A against B; a shared win counts as a draw):
- score s = (W + D/2) / N; Elo difference = -400 log10(1/s - 1) (the logistic Elo model);
- a 95% interval: s +- 1.96 * sqrt(var / N), var the per-game variance of the score
  (W (1-s)^2 + D (1/2-s)^2 + L s^2) / N, mapped to Elo (trinomial model, as cutechess does);
  when every game had the same result (var = 0) the interval uses the variance with one more
  win and one more loss, so 10-0-0 gets a finite lower bound instead of [+inf, +inf];
- LOS (likelihood of superiority) = Phi((W - L) / sqrt(W + L)), draws carrying no information;
- SPRT (the generalised SPRT with a normal approximation, as used by fishtest / cutechess in
  "GSPRT" mode): H0 "elo = elo0" against H1 "elo = elo1" in logistic Elo; with s0, s1 the
  expected scores, LLR = N (s1 - s0) (2 s - s0 - s1) / (2 var). Accept H1 when LLR >= log((1 -
  beta) / alpha), H0 when LLR <= log(beta / (1 - alpha)); continue in between. When every game
  had the same result (var = 0) one win and one loss are added to estimate var.

Three or four players: win rates with Wilson score intervals (the number of wins may be
fractional: shared wins and draws give shares).

Rates (the benchmarks): the mean of n measurements with the Student-t 95% interval of the mean,
mean +- t(0.975, n - 1) * sd / sqrt(n); it says how far the mean of these measurements could
move, not the spread of single ones.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(s: float) -> float:
    """The logistic Elo difference of an expected score (+-inf at 1 and 0)."""
    if s >= 1.0:
        return math.inf
    if s <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / s - 1.0)


def score_variance(w: float, d: float, l: float) -> float:
    """Per-game variance of the score (1, 1/2, 0) over W, D, L games."""
    n = w + d + l
    if n == 0:
        return 0.0
    s = (w + d / 2) / n
    return (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s ** 2) / n


@dataclass(frozen=True)
class EloEstimate:
    games: int
    score: float
    elo: float
    lower: float
    upper: float

    def to_json(self) -> dict:
        return {"games": self.games, "score": _j(self.score), "elo": elo_json(self.elo),
                "elo_95": [elo_json(self.lower), elo_json(self.upper)]}


def elo(w: int, d: int, l: int, z: float = Z95) -> EloEstimate:
    """Elo difference of A over B with its (1 - alpha) interval (z = 1.96 for 95%)."""
    n = w + d + l
    if n == 0:
        return EloEstimate(0, math.nan, math.nan, -math.inf, math.inf)
    s = (w + d / 2) / n
    var = score_variance(w, d, l)
    if var == 0:
        var = score_variance(w + 1, d, l + 1)
    half = z * math.sqrt(var / n)
    return EloEstimate(n, s, elo_from_score(s), elo_from_score(s - half), elo_from_score(s + half))


def los(w: int, l: int) -> float:
    """Likelihood of superiority: P(A stronger than B) given W wins and L losses."""
    if w + l == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((w - l) / math.sqrt(2.0 * (w + l))))


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion successes / n."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class MeanEstimate:
    n: int
    mean: float
    lower: float | None   # None with fewer than two measurements
    upper: float | None


def mean_interval(xs, confidence: float = 0.95) -> MeanEstimate:
    """The mean of `xs` (at least one number) with its Student-t interval (no interval for one)."""
    xs = [float(x) for x in xs]
    if not xs:
        raise ValueError("mean_interval needs at least one measurement")
    n = len(xs)
    mean = math.fsum(xs) / n
    if n < 2:
        return MeanEstimate(n, mean, None, None)
    # the experiments extra (scipy ships no type information); imported here so the core does not need it
    from scipy.stats import t  # type: ignore[import-untyped]
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    half = float(t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
    return MeanEstimate(n, mean, mean - half, mean + half)


@dataclass(frozen=True)
class SPRT:
    elo0: float
    elo1: float
    alpha: float
    beta: float
    llr: float
    lower: float
    upper: float

    @property
    def decision(self) -> str | None:
        """"H1" (A is elo1 stronger), "H0" (not: elo0) or None (keep playing)."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None

    def to_json(self) -> dict:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "llr": _j(round(self.llr, 6)), "bounds": [round(self.lower, 6), round(self.upper, 6)],
                "decision": self.decision}


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def sprt_llr(w: int, d: int, l: int, elo0: float, elo1: float) -> float:
    n = w + d + l
    if n == 0:
        return 0.0
    var = score_variance(w, d, l)
    if var == 0:
        var = score_variance(w + 1, d, l + 1)
    s = (w + d / 2) / n
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)


def sprt(w: int, d: int, l: int, elo0: float = 0.0, elo1: float = 10.0, alpha: float = 0.05,
         beta: float = 0.05) -> SPRT:
    check_sprt(elo0, elo1, alpha, beta)
    lo, hi = sprt_bounds(alpha, beta)
    return SPRT(elo0, elo1, alpha, beta, sprt_llr(w, d, l, elo0, elo1), lo, hi)


def check_sprt(elo0, elo1, alpha, beta) -> None:
    from .errors import ExperimentError
    if not elo1 > elo0:
        raise ExperimentError(f"SPRT needs elo1 > elo0, got elo0={elo0} elo1={elo1}")
    for name, v in (("alpha", alpha), ("beta", beta)):
        if not 0 < v < 0.5:
            raise ExperimentError(f"SPRT {name} must be in (0, 0.5), got {v}")


def elo_json(x: float | None):
    """An Elo value for JSON: a number rounded to 0.1, "+inf" / "-inf" for a 100% / 0% score,
    null when there were no games."""
    if isinstance(x, float) and math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    if x is None or x != x:
        return None
    return round(x, 1) + 0.0  # no "-0"


def _j(x: float):
    """A number for JSON: infinities and NaN become null."""
    return x if isinstance(x, (int, float)) and math.isfinite(x) else None
