"""Pinned values of ``ccomplexity.problems``: communication matrices entry by entry.

Pinned here: each problem's matrix (Dyck under every kind of partition, EQ, DISJ, INDEX, the KG
path query, group words, p-hop) checked entry by entry against the language's membership on the
whole word rebuilt from Alice's and Bob's inputs in lexicographic order; ``digits``/``undigits``
exact on both sides of the int64 switch; every check of a partition spec, a problem's sizes and
``make``'s options at, below and above its limit, with the user-facing message.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ccomplexity import limits
from ccomplexity import problems as P
from ccomplexity.errors import InputError
from ccomplexity.groups import get_group
from ccomplexity.languages.dyck import is_dyck
from ccomplexity.languages.hops import hop_p
from ccomplexity.languages.kg import MatchingKG


def inputs(alphabet: int, length: int) -> list[tuple[int, ...]]:
    """[alphabet]^length in lexicographic order, most significant symbol first."""
    return list(itertools.product(range(alphabet), repeat=length))


def brute_matrix(prob: P.TwoPartyProblem, value) -> list[list[int]]:
    """f(x, y) for every row x and column y, from ``value(x, y)`` on tuples."""
    xs = inputs(prob.alice_alphabet, prob.alice_length)
    ys = inputs(prob.bob_alphabet, prob.bob_length)
    return [[int(value(x, y)) for y in ys] for x in xs]


def glue(part: P.Partition, x: tuple[int, ...], y: tuple[int, ...]) -> np.ndarray:
    word = np.zeros(len(part.alice) + len(part.bob), dtype=np.int64)
    word[list(part.alice)] = x
    word[list(part.bob)] = y
    return word[None, :]


# ----------------------------------------------------------------------------- partitions


def test_partition_kinds() -> None:
    p = P.Partition.parse("odd-even", 6)
    assert (p.alice, p.bob, p.spec) == ((0, 2, 4), (1, 3, 5), "odd-even")
    p = P.Partition.parse("prefix:1", 2)
    assert (p.alice, p.bob) == ((0,), (1,))
    p = P.Partition.parse("prefix:4", 5)
    assert (p.alice, p.bob) == ((0, 1, 2, 3), (4,))
    p = P.Partition.parse("alice:5,1,3", 5)
    assert (p.alice, p.bob, p.spec) == ((0, 2, 4), (1, 3), "alice:5,1,3")
    p = P.Partition.parse("alice:1,,2,", 3)  # empty items are skipped
    assert (p.alice, p.bob) == ((0, 1), (2,))
    p = P.Partition.parse("odd-even", 2)
    assert (p.alice, p.bob) == ((0,), (1,))
    digits24 = "0" * 23 + "1"
    assert P.Partition.parse("prefix:" + digits24, 3).alice == (0,)


@pytest.mark.parametrize(
    ("spec", "length", "needle"),
    [
        ("prefix:1", 1, "a partition needs length >= 2, got 1"),
        ("prefix:1", 0, r"length must be an integer in 1\.\.1048576, got 0"),
        ("odd-even", 5, "partition odd-even needs an even length, got 5"),
        ("prefix:0", 4, r"prefix:K needs 1 <= K < length \(4\), got K=0"),
        ("prefix:4", 4, r"prefix:K needs 1 <= K < length \(4\), got K=4"),
        ("prefix:x", 4, "prefix:K: 'x' is not an integer"),
        ("prefix:" + "1" * 25, 4, r"^prefix:K: 1{24}\.\.\. is longer than any position$"),
        ("alice:", 4, r"alice:i,j,\.\.\. needs distinct positions in 1\.\.4"),
        ("alice:,", 4, r"needs distinct positions in 1\.\.4"),
        ("alice:0", 4, r"needs distinct positions in 1\.\.4"),
        ("alice:5", 4, r"needs distinct positions in 1\.\.4"),
        ("alice:2,2", 4, r"needs distinct positions in 1\.\.4"),
        ("alice:1,2,3,4", 4, r"^alice:\.\.\. must leave Bob at least one position$"),
        ("alice:a", 4, r"alice:i,j,\.\.\.: 'a' is not an integer"),
        ("bob:1", 4, r"unknown partition 'bob:1': use prefix:K, odd-even or alice:i,j,\.\.\."),
        ("", 4, "unknown partition ''"),
    ],
)
def test_partition_refusals(spec: str, length: int, needle: str) -> None:
    with pytest.raises(InputError, match=needle):
        P.Partition.parse(spec, length)


def test_partition_alice_spec_length_limit() -> None:
    # at most 8 N + 64 characters: N = 2 gives 80
    at = "alice:1" + "," * 73
    assert len(at) == 80
    assert P.Partition.parse(at, 2).alice == (0,)
    above = "alice:1" + "," * 74
    with pytest.raises(InputError, match="lists more positions than the length 2"):
        P.Partition.parse(above, 2)


# ----------------------------------------------------------------------------- indices


@pytest.mark.parametrize(
    ("base", "width"), [(2, 62), (2, 63), (2, 64), (2, 70), (3, 40), (3, 39), (3, 45), (7, 1)]
)
def test_digits_and_undigits_are_exact_on_both_sides_of_int64(base: int, width: int) -> None:
    top = base**width - 1
    picks = [0, 1, top // 3, top - 1, top]
    words = P.digits(np.array(picks, dtype=object), base, width)
    for i, row in zip(picks, words.tolist(), strict=True):
        expect = []
        rest = i
        for _ in range(width):
            expect.append(rest % base)
            rest //= base
        assert row == expect[::-1]
    assert words.dtype == np.int64 and words.shape == (5, width)
    back = P.undigits(words, base)
    assert [int(v) for v in back] == picks
    fits = base**width <= P.INT64_MAX  # every index, and the count, fit
    assert (back.dtype == np.int64) is fits and (back.dtype == object) is (not fits)


def test_int64_max_constant() -> None:
    assert P.INT64_MAX == 2**63 - 1
    assert P.DENSE_LIMIT == 1 << 26 and P.MATRIX_ENTRY_LIMIT == 1 << 24


def test_digits_of_2d_indices_and_width_zero() -> None:
    assert P.digits(np.array([[1, 2]]), 3, 2).tolist() == [[0, 1], [0, 2]]
    assert P.undigits(np.array([[1, 0, 1]]), 2).tolist() == [5]


# ----------------------------------------------------------------------------- string problems


@pytest.mark.parametrize("spec", ["odd-even", "prefix:3", "alice:2,3,6", "alice:1,2"])
def test_dyck_matrix_entry_by_entry(spec: str) -> None:
    prob = P.dyck(1, 2, 6, spec) if spec != "alice:1,2" else P.dyck(2, 1, 4, spec)
    types, depth = (1, 2) if spec != "alice:1,2" else (2, 1)
    part = prob.partition
    assert part is not None and part.spec == spec
    assert (prob.alice_alphabet, prob.bob_alphabet) == (2 * types, 2 * types)
    assert (prob.alice_length, prob.bob_length) == (len(part.alice), len(part.bob))
    expect = brute_matrix(prob, lambda x, y: is_dyck(glue(part, x, y), types, depth)[0])
    assert prob.matrix().tolist() == expect
    assert prob.matrix().dtype == np.int8
    assert prob.describe() == {
        "problem": "dyck",
        "types": types,
        "depth": depth,
        "length": 6 if spec != "alice:1,2" else 4,
        "partition": spec,
    }


def test_dyck_default_partition_and_checks() -> None:
    prob = P.dyck(1, 1, 4)
    assert prob.partition.spec == "odd-even"
    assert P.dyck(1, 0, 2).matrix().tolist() == [[0, 0], [0, 0]]  # depth 0: only the empty word
    with pytest.raises(InputError, match="--depth must be an integer >= 0, got -1"):
        P.dyck(1, -1, 4)
    with pytest.raises(InputError, match=r"--types must be an integer in 1\.\.32768, got 0"):
        P.dyck(0, 1, 4)
    with pytest.raises(InputError, match=r"--length must be an integer in 1\.\.1048576"):
        P.dyck(1, 1, 0)


@pytest.mark.parametrize(
    ("half", "alphabet", "spec"),
    [(2, 2, None), (1, 3, None), (2, 2, "odd-even"), (2, 2, "alice:1,4")],
)
def test_equality_matrix(half: int, alphabet: int, spec: str | None) -> None:
    prob = P.equality(half, alphabet, spec)
    part = prob.partition
    assert part.spec == (spec or f"prefix:{half}")
    a, b = np.array(part.alice), np.array(part.bob)
    expect = brute_matrix(
        prob, lambda x, y: (glue(part, x, y)[0, a] == glue(part, x, y)[0, b]).all()
    )
    assert prob.matrix().tolist() == expect
    if spec is None:
        assert prob.matrix().tolist() == np.eye(alphabet**half, dtype=int).tolist()
    assert prob.describe() == {
        "problem": "equality",
        "half": half,
        "alphabet": alphabet,
        "partition": part.spec,
    }


def test_equality_and_disjointness_checks() -> None:
    with pytest.raises(
        InputError, match=r"equality needs a balanced partition \(2 positions each\)"
    ):
        P.equality(2, 2, "prefix:1")
    with pytest.raises(InputError, match=r"disjointness needs a balanced partition \(2 positions"):
        P.disjointness(2, "prefix:3")
    with pytest.raises(InputError, match=r"--alphabet must be an integer in 2\.\.65536, got 1"):
        P.equality(2, 1)
    with pytest.raises(InputError, match=r"--half must be an integer in 1\.\.524288, got 0"):
        P.equality(0)
    with pytest.raises(
        InputError, match=r"--half 524289 exceeds the limit of 524288; use a shorter"
    ):
        P.disjointness(524289)
    assert P.equality(2, 65536).alice_alphabet == 65536
    assert P.equality(1).n_rows == 2


def test_half_at_its_limit() -> None:
    assert P._half(524288) == 524288 and P._half(1) == 1


@pytest.mark.parametrize("spec", [None, "odd-even"])
def test_disjointness_matrix(spec: str | None) -> None:
    prob = P.disjointness(3, spec)
    part = prob.partition
    a, b = np.array(part.alice), np.array(part.bob)

    def meet(x, y):
        w = glue(part, x, y)[0]
        return any(w[i] == 1 and w[j] == 1 for i, j in zip(a, b, strict=True))

    assert prob.matrix().tolist() == brute_matrix(prob, meet)
    assert prob.describe() == {"problem": "disjointness", "half": 3, "partition": part.spec}
    assert prob.alice_alphabet == prob.bob_alphabet == 2


def test_index_matrix() -> None:
    prob = P.index(3)
    assert (prob.alice_alphabet, prob.alice_length, prob.bob_alphabet, prob.bob_length) == (
        2,
        3,
        3,
        1,
    )
    assert prob.matrix().tolist() == brute_matrix(prob, lambda x, y: x[y[0]])
    assert prob.describe() == {"problem": "index", "length": 3}
    assert prob.partition is None
    with pytest.raises(InputError, match=r"--length must be an integer in 1\.\.1048576, got 0"):
        P.index(0)


def test_group_word_matrix() -> None:
    group = get_group("S3")
    prob = P.group_word(group, 3, 1)
    assert (prob.alice_length, prob.bob_length, prob.alice_alphabet) == (1, 2, 6)
    expect = brute_matrix(prob, lambda x, y: group.compose(np.array([[*x, *y]]))[0] == 0)
    assert prob.matrix().tolist() == expect
    assert prob.describe() == {"problem": "group-word", "group": "S3", "length": 3,
                               "partition": "prefix:1"}  # fmt: skip
    with pytest.raises(InputError, match=r"--cut must be an integer in 1\.\.1048576, got 0"):
        P.group_word(group, 3, 0)


@pytest.mark.parametrize("strict", [False, True])
def test_p_hop_matrix(strict: bool) -> None:
    prob = P.p_hop(2, 4, 2, 2, strict)
    expect = brute_matrix(prob, lambda x, y: hop_p(np.array([[*x, *y]]), 2, strict)[0])
    got = prob.matrix().tolist()
    assert got == expect and -1 in {v for row in got for v in row}
    assert prob.describe() == {"problem": "p-hop", "alphabet": 2, "length": 4, "hops": 2,
                               "strict": strict, "partition": "prefix:2"}  # fmt: skip
    with pytest.raises(InputError, match=r"--hops must be an integer in 1\.\.4096, got 0"):
        P.p_hop(2, 4, 0, 2)
    with pytest.raises(InputError, match=r"--alphabet must be an integer in 2\.\.65536, got 1"):
        P.p_hop(1, 4, 1, 2)


# ----------------------------------------------------------------------------- the KG query


@pytest.mark.parametrize(("hops", "cut"), [(2, 0), (2, 1), (2, 2), (1, 1)])
def test_kg_query_matrix(hops: int, cut: int) -> None:
    e, r = 3, 2
    prob = P.kg_query(e, r, hops, cut, seed=4)
    graph = MatchingKG.generate(e, r, 4)
    assert (prob.n_rows, prob.n_cols) == (e * r**cut, r ** (hops - cut) * e)
    assert (prob.alice_length, prob.bob_length) == (1, 1)

    def answer(x, y):
        alice = inputs(r, cut)  # row x = entity * R^K + relations
        start, rels_a = divmod(x[0], r**cut)
        rels_b, a = divmod(y[0], e)
        rel = list(alice[rels_a]) + list(inputs(r, hops - cut)[rels_b])
        return graph.answer(np.array([start]), np.array([rel]))[0] == a

    assert prob.matrix().tolist() == brute_matrix(prob, answer)
    assert prob.describe() == {"problem": "kg", "entities": 3, "relations": 2, "hops": hops,
                               "cut": cut, "seed": 4, "graph_sha256": graph.sha256()}  # fmt: skip


def test_kg_query_checks() -> None:
    with pytest.raises(InputError, match=r"--cut K needs 0 <= K <= hops \(2\), got 3"):
        P.kg_query(3, 2, 2, 3)
    with pytest.raises(InputError, match="--entities must be an integer >= 2, got 1"):
        P.kg_query(1, 2, 2, 1)
    with pytest.raises(InputError, match="--relations must be an integer >= 1, got 0"):
        P.kg_query(3, 0, 2, 1)
    with pytest.raises(InputError, match="--hops must be an integer >= 1, got 0"):
        P.kg_query(3, 2, 0, 0)
    with pytest.raises(InputError, match="--cut must be an integer >= 0, got -1"):
        P.kg_query(3, 2, 2, -1)
    with pytest.raises(InputError, match="--seed must be an integer >= 0, got -1"):
        P.kg_query(3, 2, 2, 1, seed=-1)
    # E R^q <= 2^62 - 1 with E = 2: R^q <= (2^62 - 1) // 2 = 2^61 - 1
    assert P.kg_query(2, 2, 60, 30).n_rows == 2 * 2**30
    with pytest.raises(
        InputError,
        match=r"kg: E R\^q inputs with E = 2, R = 2, q = 61 reach 2\^62, the limit \(64-bit "
        "numbering\\); use fewer entities, relations or hops$",
    ):
        P.kg_query(2, 2, 61, 30)
    assert P.kg_query(3, 1, 5, 2).n_cols == 3  # R = 1: one relation path


# ----------------------------------------------------------------------------- the problem class


def test_matrix_limit_boundary() -> None:
    prob = P.equality(2)  # 4 x 4 = 16 entries
    assert prob.matrix(limit=16).shape == (4, 4)
    with pytest.raises(
        InputError,
        match="equality: the communication matrix has 4 x 4 entries; the dense limit is 15; "
        "use a symbolic method instead$",
    ):
        prob.matrix(limit=15)


def test_entries_and_on_words() -> None:
    prob = P.equality(2)
    assert prob.entries(np.array([0, 1, 3]), np.array([0, 2, 3])).tolist() == [1, 0, 1]
    out = prob.on_words(np.array([[1, 0]]), np.array([[1, 0]]))
    assert out.dtype == np.int8 and out.tolist() == [1]
    assert prob.alice_inputs(np.array([2])).tolist() == [[1, 0]]
    assert prob.bob_inputs(np.array([1])).tolist() == [[0, 1]]
    assert prob.spec() == prob.describe()


def test_matrix_problems_and_their_shape_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    prob = P.from_matrix([[1, 0], [0, 0], [1, 1]])
    assert (prob.alice_alphabet, prob.alice_length, prob.bob_alphabet, prob.bob_length) == (
        3,
        1,
        2,
        1,
    )
    assert prob.matrix().tolist() == [[1, 0], [0, 0], [1, 1]]
    assert prob.spec()["entries"] == ["10", "00", "11"]
    assert prob.describe() == {"problem": "matrix", "rows": 3, "cols": 2,
                               "sha256": P.matrix_rows_sha256(["10", "00", "11"])}  # fmt: skip
    assert P.from_matrix(np.array([[True]])).matrix().tolist() == [[1]]
    monkeypatch.setattr(P, "MATRIX_ENTRY_LIMIT", 6)
    assert P.random_matrix(2, 3, 0).n_rows == 2
    assert P.random_matrix(6, 1, 0).n_rows == 6
    with pytest.raises(InputError, match="--rows 7 exceeds the limit of 6"):
        P.random_matrix(7, 1, 0)
    with pytest.raises(InputError, match=r"--cols must be an integer in 1\.\.6, got 0"):
        P.random_matrix(1, 0, 0)
    with pytest.raises(InputError, match="limited to 6 entries, got 3 x 3"):
        P.random_matrix(3, 3, 0)
    with pytest.raises(InputError, match="limited to 6 entries, got 3 x 3"):
        P.from_matrix(np.zeros((3, 3), dtype=int))


def test_from_matrix_refusals_are_whole_messages() -> None:
    with pytest.raises(InputError, match="^a matrix problem's entries must be 0 or 1$"):
        P.from_matrix([[0, 2]])
    with pytest.raises(InputError, match=r"^a matrix problem needs a non-empty 2-D array, got "):
        P.from_matrix(np.zeros((2, 0)))


def test_matrix_rows_sha256_is_rows_with_newlines() -> None:
    import hashlib

    assert P.matrix_rows_sha256(["10", "01"]) == hashlib.sha256(b"10\n01\n").hexdigest()


def test_random_matrix_seed_and_density_bounds() -> None:
    big = 2**64 - 1
    prob = P.random_matrix(2, 2, big, density=1)
    assert prob.describe()["seed"] == big and prob.matrix().tolist() == [[1, 1], [1, 1]]
    assert isinstance(prob.describe()["density"], float)
    assert not P.random_matrix(2, 2, 0, density=0.0).matrix().any()
    u = np.random.Generator(np.random.PCG64(0)).random((3, 4))
    assert P.random_matrix(3, 4, 0).matrix().tolist() == (u < 0.5).astype(int).tolist()
    for seed in (2**64, -1, None):
        with pytest.raises(InputError, match=r"--seed must be an integer in 0\.\.2\^64-1, got"):
            P.random_matrix(2, 2, seed)
    for density in (-0.01, 1.01):
        with pytest.raises(InputError, match=r"--density must lie in \[0, 1\], got"):
            P.random_matrix(2, 2, 0, density=density)


def test_csv_with_byte_order_mark_and_errors(tmp_path) -> None:
    path = tmp_path / "m.csv"
    path.write_bytes("\ufeff0,1\n1,1\n".encode())
    prob = P.from_csv(path)
    assert prob.matrix().tolist() == [[0, 1], [1, 1]]
    path.write_bytes(b"0,1\n\n1,1\n")  # a blank line inside: an entry ''
    with pytest.raises(InputError, match=r"m\.csv, line 2: entries must be 0 or 1, got ''"):
        P.from_csv(path)
    path.write_bytes(b"0,1\n1,1,0\n")
    with pytest.raises(InputError, match=r"line 2: 3 entries, but line 1 has 2 \(rows must"):
        P.from_csv(path)
    path.write_bytes(b"0,1\n1\xff\n")
    with pytest.raises(InputError, match=r"is not UTF-8 text \(byte 5\)"):
        P.from_csv(path)


# ----------------------------------------------------------------------------- make


def test_make_builds_each_problem_with_its_defaults(tmp_path) -> None:
    d = P.make("dyck", types=1, depth=1, length=4, partition=None)
    assert d.partition.spec == "odd-even" and d.params == {"types": 1, "depth": 1, "length": 4}
    assert P.make("dyck", types=1, depth=1, length=4, partition="prefix:2").partition.alice == (
        0,
        1,
    )
    e = P.make("equality", half=2)
    assert e.alice_alphabet == 2 and e.partition.spec == "prefix:2"
    assert P.make("equality", half=1, alphabet=3, partition="odd-even").alice_alphabet == 3
    assert P.make("equality", half=2, partition="odd-even").partition.spec == "odd-even"
    assert P.make("disjointness", half=2).partition.spec == "prefix:2"
    assert P.make("disjointness", half=2, partition="odd-even").partition.spec == "odd-even"
    assert P.make("index", length=3).describe() == {"problem": "index", "length": 3}
    kg = P.make("kg", entities=3, relations=2, hops=2, cut=1)
    assert kg.params["seed"] == 0
    assert P.make("kg", entities=3, relations=2, hops=2, cut=1, seed=5).params["seed"] == 5
    path = tmp_path / "m.csv"
    path.write_text("1,0\n")
    assert P.make("matrix", file=str(path)).matrix().tolist() == [[1, 0]]
    r = P.make("random", rows=2, cols=3, seed=1)
    assert r.params["density"] == 0.5
    assert P.make("random", rows=2, cols=3, seed=1, density=0.25).params["density"] == 0.25


@pytest.mark.parametrize(
    ("name", "options", "needle"),
    [
        ("dyck", {"types": 1, "depth": 1, "length": 4, "partition": ""},
         r"^--partition is empty: use prefix:K, odd-even or alice:i,j,\.\.\.$"),
        ("index", {"length": 3, "half": 2},
         r"^problem index takes no --half; it takes --length$"),
        ("equality", {"half": 2, "types": 1, "depth": 2},
         "^problem equality takes no --depth, --types; it takes --half, --alphabet, --partition$"),
        ("dyck", {"types": 1, "length": 4}, r"^problem dyck needs --depth$"),
        ("equality", {}, r"^problem equality needs --half$"),
        ("disjointness", {}, r"^problem disjointness needs --half$"),
        ("index", {}, r"^problem index needs --length$"),
        ("kg", {"entities": 3, "relations": 2, "hops": 2},
         r"^problem kg needs --cut \(ccx kg split\)$"),
        ("matrix", {}, r"^problem matrix needs --file$"),
        ("random", {"rows": 2, "cols": 2}, r"^problem random needs --seed$"),
        ("sideways", {}, "^unknown problem 'sideways'; choose one of dyck, equality, "
         "disjointness, index, kg, matrix, random$"),
    ],
)  # fmt: skip
def test_make_refusals(name: str, options: dict, needle: str) -> None:
    with pytest.raises(InputError, match=needle):
        P.make(name, **options)


def test_make_ignores_options_given_as_none() -> None:
    prob = P.make("index", length=3, half=None, partition=None)
    assert prob.n_cols == 3


def test_problem_registry() -> None:
    assert P.PROBLEMS == ("dyck", "equality", "disjointness", "index", "kg", "matrix", "random")
    assert set(P.PROBLEM_OPTIONS) == set(P.PROBLEMS)
    assert P.PROBLEM_OPTIONS["kg"] == ("entities", "relations", "hops", "cut", "seed")


def test_length_limit_is_the_one_table() -> None:
    assert limits.LENGTH.most == 1 << 20


# ----------------------------------------------------------------------------- second round


def test_digits_flattens_indices_of_any_shape_past_int64() -> None:
    # 2^70 > int64: the exact branch; a (2, 2) array of indices gives four words
    got = P.digits(np.array([[0, 1], [2, 2**70 - 1]], dtype=object), 2, 70)
    assert got.shape == (4, 70) and got.dtype == np.int64
    assert got[:3, -2:].tolist() == [[0, 0], [0, 1], [1, 0]] and got[3].tolist() == [1] * 70
    small = P.digits(np.array([[1, 2], [3, 0]]), 2, 2)  # and inside int64
    assert small.tolist() == [[0, 1], [1, 0], [1, 1], [0, 0]]


def test_undigits_of_unsigned_words_is_exact() -> None:
    # uint64 symbols: the index 2^62 - 1 is exact only in int64 arithmetic (float64 rounds it)
    got = P.undigits(np.ones((1, 62), dtype=np.uint64), 2)
    assert got.dtype == np.int64 and got.tolist() == [2**62 - 1]


def test_a_missing_matrix_file_is_named(tmp_path) -> None:
    missing = tmp_path / "none.csv"
    with pytest.raises(
        InputError, match=f"^matrix file {missing} does not exist or is not a file$"
    ):
        P.from_csv(missing)


def test_random_matrix_is_u_strictly_below_the_density() -> None:
    u = np.random.Generator(np.random.PCG64(0)).random((1, 2))
    # a density equal to the first draw: that entry is not below it
    assert P.random_matrix(1, 2, 0, density=float(u[0, 0])).matrix().tolist() == [[0, 1]]
    assert P.random_matrix(1, 2, 0, density=float(u[0, 0]) + 1e-9).matrix().tolist() == [[1, 1]]


def test_length_and_cut_refusals_name_their_option() -> None:
    group = get_group("S3")
    with pytest.raises(InputError, match=r"^--length must be an integer in 1\.\.1048576, got 0"):
        P.group_word(group, 0, 1)
    with pytest.raises(InputError, match=r"^--length must be an integer in 1\.\.1048576, got 0"):
        P.p_hop(2, 0, 1, 1)
    with pytest.raises(InputError, match=r"^--cut must be an integer in 1\.\.1048576, got 0"):
        P.p_hop(2, 4, 1, 0)


def test_defaults_of_p_hop_and_kg_query() -> None:
    assert P.p_hop(2, 4, 2, 2).describe()["strict"] is False
    assert P.p_hop(2, 4, 2, 2).matrix().tolist() == P.p_hop(2, 4, 2, 2, False).matrix().tolist()
    assert P.kg_query(3, 2, 2, 1).describe()["seed"] == 0


def test_kg_query_numbering_limit_exactly_at_its_end() -> None:
    # E = 3 divides 2^62 - 1: R^q = (2^62 - 1) // 3 is allowed by the numbering (the graph's own
    # size limit refuses it next), one less would be the limit's
    with pytest.raises(InputError, match="^a graph is limited to 65536 entities"):
        P.kg_query(3, (2**62 - 1) // 3, 1, 0)
    with pytest.raises(InputError, match=r"reach 2\^62"):
        P.kg_query(3, (2**62 - 1) // 3 + 1, 1, 0)


def test_digits_of_a_base_past_float64() -> None:
    # base 2^55 + 1: each digit needs 55 bits, beyond a float64's 53-bit significand
    base = 2**55 + 1
    index = 2**55 * base + (2**55 - 1)
    got = P.digits(np.array([index, base - 1], dtype=object), base, 2)
    assert got.tolist() == [[2**55, 2**55 - 1], [0, 2**55]]
    assert P.undigits(got, base).tolist() == [index, base - 1]


def test_digits_of_a_list_of_python_integers_past_int64() -> None:
    # numpy would hold [2^63 + 1, 1] as float64 (2^63 + 1 rounds to 2^63): read exactly instead
    got = P.digits([2**63 + 1, 1], 2, 64)
    assert got[0].tolist() == [1] + [0] * 62 + [1] and got[1].tolist() == [0] * 63 + [1]
