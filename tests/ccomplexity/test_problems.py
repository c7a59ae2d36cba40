"""Two-party problems given as matrices: CSV files (data, validated) and seeded random draws."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity import limits
from ccomplexity import problems as P
from ccomplexity.errors import InputError


def write(tmp_path, text: str | bytes):
    path = tmp_path / "m.csv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def test_csv_rows_are_alices_inputs_and_columns_bobs(tmp_path):
    prob = P.make("matrix", file=str(write(tmp_path, "1, 0,1\r\n0,1,1\n\n")))
    assert (prob.n_rows, prob.n_cols) == (2, 3)
    assert prob.matrix().tolist() == [[1, 0, 1], [0, 1, 1]]
    assert prob.entries(np.array([1, 0]), np.array([1, 1])).tolist() == [1, 0]
    spec = prob.spec()
    assert spec["entries"] == ["101", "011"] and "entries" not in prob.describe()
    assert spec["sha256"] == P.matrix_rows_sha256(["101", "011"])


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("1,0\n1\n", "line 2: 1 entries, but line 1 has 2"),
        ("1,0\n2,1\n", "must be 0 or 1, got '2'"),
        ("1,0\n1,x\n", "got 'x'"),
        ("1,,0\n", "got ''"),
        ("", "is empty"),
        ("\n\n", "is empty"),
        (b"1,0\n\xff\xfe\n", "not UTF-8"),
    ],
)
def test_bad_csv_is_one_line_error(tmp_path, text, needle):
    with pytest.raises(InputError, match=needle) as err:
        P.from_csv(write(tmp_path, text))
    assert "\n" not in str(err.value)


def test_a_matrix_in_memory_is_the_same_problem_as_its_csv(tmp_path):
    m = np.array([[1, 0, 1], [0, 1, 1]])
    from_file = P.from_csv(write(tmp_path, "1,0,1\n0,1,1\n"))
    in_memory = P.from_matrix(m)
    assert in_memory.spec() == from_file.spec()
    assert (in_memory.matrix() == m).all()


@pytest.mark.parametrize(
    ("matrix", "needle"),
    [([[0, 2]], "must be 0 or 1"), ([1, 0], "2-D array"), (np.zeros((0, 3)), "non-empty")],
)
def test_bad_matrix_is_one_line_error(matrix, needle):
    with pytest.raises(InputError, match=needle):
        P.from_matrix(matrix)


def test_huge_csv_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.csv"
    with path.open("wb") as fh:  # a sparse file: its size is known without writing it
        fh.truncate(limits.MATRIX_BYTES + 1)
    with pytest.raises(InputError, match="the limit is"):
        P.from_csv(path)
    with pytest.raises(InputError, match="does not exist"):
        P.from_csv(tmp_path / "missing.csv")


def test_random_matrix_is_the_documented_pcg64_draw():
    prob = P.make("random", rows=5, cols=7, seed=3, density=0.3)
    u = np.random.Generator(np.random.PCG64(3)).random((5, 7))
    assert (prob.matrix() == (u < 0.3)).all()
    assert prob.describe() == {
        "problem": "random",
        "rows": 5,
        "cols": 7,
        "seed": 3,
        "density": 0.3,
        "generator": "PCG64",
    }
    assert (P.random_matrix(5, 7, 3).matrix() == P.random_matrix(5, 7, 3).matrix()).all()
    assert not P.random_matrix(3, 3, 0, density=0).matrix().any()
    assert P.random_matrix(3, 3, 0, density=1).matrix().all()


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"rows": 10**6, "cols": 10**6, "seed": 0}, "limited to 16777216 entries"),
        ({"rows": 0, "cols": 3, "seed": 0}, "--rows must be an integer in 1.."),
        ({"rows": 3, "cols": 3, "seed": -1}, "--seed"),
        ({"rows": 3, "cols": 3, "seed": 0, "density": 1.5}, "--density"),
        ({"rows": 3, "cols": 3}, "needs --seed"),
    ],
)
def test_bad_random_matrix(options, needle):
    with pytest.raises(InputError, match=needle):
        P.make("random", **options)


def test_partitions_refuse_words_too_long_to_list():
    with pytest.raises(InputError, match="exceeds the limit of 1048576"):
        P.dyck(2, 2, 10**9)
