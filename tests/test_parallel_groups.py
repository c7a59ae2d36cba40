"""The suite's workers keep each ``xdist_group`` together: tests sharing an expensive fixture
(the swept smoke profile, the figure reports) carry a group mark so that one worker builds it
once. A pytest that drops the marks (pytest 9.2 with pytest-xdist 3.8 did, silently) would make
every worker build them again; this test fails then."""

from __future__ import annotations

import pytest


@pytest.mark.xdist_group("group-check")
def test_group_marks_reach_the_scheduler(request: pytest.FixtureRequest) -> None:
    if not getattr(request.config.option, "loadgroup", False):  # set on a loadgroup worker
        pytest.skip("not run by parallel workers (pytest -n ... --dist loadgroup)")
    assert request.node.nodeid.endswith("@group-check"), (
        f"{request.node.nodeid}: the group mark was dropped; see the pytest pin in pyproject.toml"
    )
