"""Let pytest rewrite the asserts in the shared model-contract helpers (detailed failure output)."""

import pytest

pytest.register_assert_rewrite("tests.models.contract")
