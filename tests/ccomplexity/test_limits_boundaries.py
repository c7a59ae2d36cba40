"""Every limit of the one field-to-limit table (``limits.FIELDS``) at its boundaries: each end
accepted (or refused, for an open end), one step beyond each end refused with a one-line
InputError naming the field."""

from __future__ import annotations

import math

import pytest

from ccomplexity import limits
from ccomplexity.errors import InputError

NAMES = sorted(limits.FIELDS)


@pytest.mark.parametrize("name", NAMES)
def test_each_field_at_below_and_above_its_limit(name: str) -> None:
    limit = limits.FIELDS[name]
    if isinstance(limit, limits.Limit):
        inside = [limit.least, limit.most, (limit.least + limit.most) // 2]
        outside = [limit.least - 1, limit.most + 1]
    else:
        lo, hi = limit.least, limit.most
        inside = [(lo + hi) / 2]
        inside += [] if limit.open_least else [lo]
        inside += [] if limit.open_most else [hi]
        outside = [math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)]
        outside += [lo] if limit.open_least else []
        outside += [hi] if limit.open_most else []
    for value in inside:
        assert limits.check_field(name, value) == value
    for value in outside:
        with pytest.raises(InputError, match=f"^{name} ") as caught:
            limits.check_field(name, value)
        assert "\n" not in str(caught.value)


def test_the_table_names_each_field_under_its_own_or_a_shared_limit() -> None:
    # Fields whose limit is another field's (top_k under experts, n_out under vocab_size): the
    # error must still name the field the user set.
    with pytest.raises(InputError, match="^top_k "):
        limits.check_field("top_k", limits.EXPERTS.most + 1)
    with pytest.raises(InputError, match="^graph_seed "):
        limits.check_field("graph_seed", -1)
    with pytest.raises(InputError, match=r"^--width "):
        limits.check_field("width", 0, "--")
