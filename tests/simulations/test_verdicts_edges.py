"""The verdict rule at its edges: an accuracy exactly at the target, and the Wilson interval's
arithmetic against the closed form computed independently (``decimal``, 40 digits)."""

from __future__ import annotations

from decimal import Decimal, localcontext

import pytest

from simulations.verdicts import Z95, judge, verdict, wilson


def wilson_reference(successes: int, n: int) -> tuple[float, float]:
    """(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n), p = successes / n."""
    with localcontext() as ctx:
        ctx.prec = 40
        z, n_ = Decimal(Z95), Decimal(n)
        p = Decimal(successes) / n_
        centre = p + z * z / (2 * n_)
        half = z * (p * (1 - p) / n_ + z * z / (4 * n_ * n_)).sqrt()
        d = 1 + z * z / n_
        return float((centre - half) / d), float((centre + half) / d)


@pytest.mark.parametrize(("successes", "n"), [(50, 100), (9, 10), (1, 3), (999, 1000)])
def test_wilson_matches_the_closed_form(successes, n):
    lo, hi = wilson(successes / n, n)
    want_lo, want_hi = wilson_reference(successes, n)
    assert lo == pytest.approx(want_lo, rel=1e-12, abs=1e-15)
    assert hi == pytest.approx(want_hi, rel=1e-12, abs=1e-15)


def test_wilson_at_zero_and_one_keeps_the_estimate_at_its_end():
    z2 = Z95 * Z95
    assert wilson(0.0, 10) == (0.0, pytest.approx(z2 / (10 + z2), rel=1e-12))
    assert wilson(1.0, 10) == (pytest.approx(10 / (10 + z2), rel=1e-12), 1.0)
    # Accuracies outside [0, 1] are read as its ends; no trials know nothing.
    assert wilson(1.5, 10) == wilson(1.0, 10)
    assert wilson(-0.5, 10) == wilson(0.0, 10)
    assert wilson(0.5, 0) == (0.0, 1.0)


# A curve that misses 0.9 by a hair would be too short to judge (undecided); at 0.9 it reached.
@pytest.mark.parametrize(
    ("best", "expected"), [(0.9, "reached"), (0.8999999, "undecided"), (0.95, "reached")]
)
def test_an_accuracy_exactly_at_the_target_has_reached_it(best, expected):
    curve = [(10, 0.5), (20, best)]
    assert verdict(curve, 0.9, 1000) == expected
    assert judge({"target": 0.9}, curve, best, 1000)["verdict"] == expected


def test_judge_counts_a_best_accuracy_at_the_target_as_reached():
    flat = [(s, 0.5) for s in range(10, 100, 10)]  # a plateau at 0.5 on its own
    assert judge({"target": 0.9}, flat, 0.5, 1000, best=0.9)["verdict"] == "reached"
    assert judge({"target": 0.9}, flat, 0.5, 1000, best=0.8999)["verdict"] == "plateaued"
    # No target in the config: 0.99.
    assert judge({}, flat, 0.5, 1000, best=0.99)["verdict"] == "reached"
    assert judge({}, flat, 0.5, 1000, best=0.98)["verdict"] == "plateaued"
    assert judge({}, flat, 0.5, 1000)["accuracy_ci"] == list(wilson(0.5, 1000))
