"""Paper figures and the HTML report, drawn from a store filled with fake runs (no training)."""

from __future__ import annotations

import hashlib
import json
from html import escape as html_escape
from pathlib import Path

import pytest

from ccomplexity.errors import InputError
from paper_figures import FIGURES, fill_command, layout, make_figure, paper_of
from simulations.store import Store
from simulations.verdicts import VERDICTS
from tests.paper_figures.reports import EMPTY_REPORT, FAKE_REPORT, Drawn, draw_report

# (task, arch, width, layers, lengths, state_numel per unit width)
MODELS = [
    ("index-lookup", "transformer", 64, 1, (20, 50, 100, 200), 0),
    ("index-lookup", "lstm", 64, 1, (20, 50, 100, 200), 2),
    ("index-lookup", "mamba", 32, 2, (20, 50, 100, 200), 32),
    ("index-lookup", "mamba", 64, 2, (20, 50, 100, 200), 32),
    ("dyck", "transformer", 64, 1, (20, 50, 100), 0),
    ("dyck", "transformer", 64, 2, (20, 50, 100), 0),
    ("dyck", "lstm", 64, 1, (20, 50, 100), 2),
    ("eq-random", "lstm", 64, 2, (20, 50), 4),
    ("eq-one", "transformer", 64, 2, (20, 50), 0),
    ("eq-ncp", "mamba", 64, 2, (100, 200), 32),
]


UNDECIDED_MODELS = {("index-lookup", "mamba", 64), ("dyck", "transformer", 2),
                    ("eq-random", "lstm", 2)}  # fmt: skip
"""Models whose smaller learning rate is still climbing at their second length: that point, and
the threshold it would decide, are undecided."""


def curve(best: float, shape: str, steps: int = 600) -> list[list[float]]:
    """An evaluation every 50 steps ending at ``best``: ``plateaued`` (flat over the last
    third), ``undecided`` (still climbing: the last third beats the best before it by more than
    sampling noise), or ``reached`` (climbing to ``best`` and held)."""
    points = range(50, steps + 1, 50)
    if shape == "undecided":
        return [[s, best * s / steps] for s in points]
    return [[s, best * min(1.0, s / (steps / 2))] for s in points]


def fake_result(
    task: str,
    arch: str,
    width: int,
    layers: int,
    length: int,
    lr: float,
    ratio: int,
    shape: str | None = None,
) -> dict:
    """A result dict shaped like ``simulations.training.train``'s, its curve plateaued unless
    ``shape`` (or :data:`UNDECIDED_MODELS` at the second length, lr 1e-4) says otherwise."""
    config = {
        "task": task, "arch": arch, "width": width, "layers": layers, "length": length,
        "steps": 600, "lr": lr, "seed": 0, "batch": 32, "heads": 4, "target": 0.99,
        "eval_every": 100, "eval_samples": 500,
    }  # fmt: skip
    accuracy = max(0.0, min(1.0, 1.2 - length / 150 - (0.1 if lr < 1e-3 else 0.0)))
    if shape is None:
        climbing = (task, arch, width if arch == "mamba" else layers) in UNDECIDED_MODELS
        shape = "undecided" if climbing and lr < 1e-3 and length == 50 else "plateaued"
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]
    return {
        "accuracy": accuracy,
        "best_accuracy": accuracy,
        "steps": 600,
        "wall_seconds": 1.0,
        "checkpoint": None,
        "curve": curve(accuracy, shape),
        "parameters": 1000 * width,
        "state_numel": ratio * width * layers or None,
        "config": config,
        "config_hash": digest,
        "seed": 0,
        "device": "cpu",
    }


def with_accuracy(result: dict, accuracy: float, shape: str = "plateaued") -> dict:
    """``result`` with its final and best accuracy ``accuracy`` and a curve of that shape."""
    result.update(accuracy=accuracy, best_accuracy=accuracy, curve=curve(accuracy, shape))
    return result


def looped_results() -> list[dict]:
    """Fake runs of the looped paper: loops against n and p, and the addition grid."""
    out = []
    for task, sizes in (("group-composition", (2, 4, 8)), ("p-hop", (1, 2, 4))):
        for x in sizes:
            for loops in (1, 2, 3, 4, 5):
                result = fake_result(task, "looped", 32, 1, 16 if task == "p-hop" else x, 1e-3, 0)
                result["config"].update(loops=loops, **({"hops": x} if task == "p-hop" else {}))
                acc = 1.0 if loops >= x.bit_length() + (task == "p-hop") else 0.3
                # n = 8 at 3 loops is still climbing: the fewest loops there is undecided
                climbing = (task, x, loops) == ("group-composition", 8, 3)
                with_accuracy(result, acc, "undecided" if climbing else "plateaued")
                result["config_hash"] = f"{task}{x}{loops}"
                out.append(result)
    for arch, layers, loops in (("transformer", 1, 1), ("looped", 1, 4), ("transformer", 4, 1)):
        result = fake_result("addition", arch, 64, layers, 8, 1e-3, 0)
        if arch == "looped":
            result["config"]["loops"] = loops
        result["accuracy_by_length"] = {2: 0.9, 4: 0.5 * layers * loops / 4, 6: 0.2, 8: 0.1}
        with_accuracy(result, 0.4, "undecided" if layers == 4 else "plateaued")  # iso-FLOP
        result["config_hash"] = f"addition{arch}{layers}"
        out.append(result)
    for arch, layers, loops in (
        ("transformer", 1, 1),
        ("transformer", 2, 1),
        ("looped", 1, 2),
        ("transformer", 4, 1),
        ("looped", 1, 4),
    ):
        result = fake_result("i-gsm", arch, 64, layers, 5, 1e-3, 0)
        result["config"]["depth" if arch == "transformer" and layers == 4 else "query_depth"] = 2
        if arch == "looped":
            result["config"]["loops"] = loops
        with_accuracy(result, 0.25 + 0.1 * layers * loops)
        result["config_hash"] = f"igsm{arch}{layers}{loops}"
        out.append(result)
    return out + regularised_results()


def similarity(layers: int, near: float) -> dict[str, list[list[float]]]:
    """A layer-similarity diagnostic whose off-diagonal cosines are all ``near``."""
    matrix = [[1.0 if i == j else near for j in range(layers)] for i in range(layers)]
    groups = ("attn_q", "attn_k", "attn_v", "attn_o", "ff_w1", "ff_w2")
    return {g: matrix for g in groups}


def regularised_results() -> list[dict]:
    """Fake p-hop runs at p = 4 of the deep (4⊗1) transformer, plain and with the block-cosine
    regulariser (k = 1, λ in {1, 10}), each with its layer similarity."""
    out = []
    for lam, near, acc in ((None, 0.05, 0.6), (1.0, 0.9, 0.7), (10.0, 0.99, 0.8)):
        result = fake_result("p-hop", "transformer", 32, 4, 16, 1e-3, 0)
        result["config"]["hops"] = 4
        if lam is not None:
            result["config"].update(reg_lambda=lam, reg_block=1)
        with_accuracy(result, acc, "undecided" if lam == 10.0 else "plateaued")
        result.update(config_hash=f"reg{lam}", layer_similarity=similarity(4, near))
        out.append(result)
    return out


def kg_results() -> list[dict]:
    """Fake capacity-search runs of the layer-looping paper: standard and looped-MoE models of
    two widths at q = 1 and 2, each passing up to width / 4 relations (less one for q = 2); the
    looped-MoE model of width 16 at q = 2 is still climbing where it misses (R = 4)."""
    out = []
    for arch, extra in (("transformer", {}), ("looped", {"experts": 4, "expert": "glu"})):
        for q in (1, 2):
            for width in (8, 16):
                for relations in range(2, width // 4 + 2, 2):
                    layers = 1 if arch == "looped" else q
                    result = fake_result("kg-path", arch, width, layers, q, 1e-3, 0)
                    result["config"].update(
                        entities=16,
                        relations=relations,
                        graph_seed=0,
                        target=0.97,
                        heads=2,
                        **extra,
                    )
                    if arch == "looped":
                        result["config"]["loops"] = q
                    acc = 1.0 if relations <= width // 4 - (q - 1) else 0.5
                    climbing = (arch, q, width) == ("looped", 2, 16)
                    with_accuracy(result, acc, "undecided" if climbing else "plateaued")
                    result["config_hash"] = f"kg{arch}{q}{width}{relations}"
                    out.append(result)
    return out


@pytest.fixture(scope="module")
def fake_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "fake.db"
    with Store(path) as store:
        for task, arch, width, layers, lengths, ratio in MODELS:
            for n in lengths:
                for lr in (1e-3, 1e-4):
                    store.add_run(fake_result(task, arch, width, layers, n, lr, ratio))
        for result in [*looped_results(), *kg_results(), *held_results()]:
            store.add_run(result)
        store.note_sweep("fake-profile")
    return path


def held_results() -> list[dict]:
    """Fake runs of models trained at p bits (the bite figure): a GRU of state 2 x 2 bits on
    index lookup around its wall N = 4, its length 3 still climbing, and a one-layer
    transformer of width 2 at 3 bits on Dyck-(2,2), plateaued below its wall."""
    out = []
    for task, arch, width, heads, p, lengths in (
        ("index-lookup", "gru", 2, 4, 2, (1, 2, 3, 8)),
        ("dyck", "transformer", 2, 1, 3, (10, 20)),
    ):
        for n in lengths:
            result = fake_result(task, arch, width, 1, n, 1e-2, 1 if arch == "gru" else 0)
            result["config"].update(precision=p, frac=p // 2, heads=heads)
            result["config_hash"] = hashlib.sha256(
                json.dumps(result["config"], sort_keys=True).encode()
            ).hexdigest()[:16]
            reached = n <= 2 if arch == "gru" else n <= 10
            shape = "undecided" if (arch, n) == ("gru", 3) else "plateaued"
            out.append(with_accuracy(result, 1.0 if reached else 0.6, shape))
    return out


TRAINED = {"thresholds", "fig2", "fig3", "fig4", "looped-loops", "looped-table1",
           "looped-regularizer", "kg-capacity", "bite"}  # fmt: skip
"""Figures the fake store has trained points for (the parrots' have their own store)."""


def png_size(path: Path) -> tuple[int, int]:
    """Width and height of a PNG, read from its header."""
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")


def _check_files(result: dict, out: Path, problems: dict[str, list[str]] | None = None) -> None:
    """The three files of ``result`` in ``out``, a caption, a PNG no wider than the limit and,
    where ``problems`` (what the drawing rules found) is given, nothing wrong."""
    name = result["name"]
    for ext in ("png", "pdf", "csv"):
        path = out / f"{name}.{ext}"
        assert str(path) in result["files"]
        assert path.stat().st_size > 0
    assert result["caption"]
    assert png_size(out / f"{name}.png")[0] <= layout.MAX_WIDTH_PX
    if problems is not None:
        assert problems[name] == [], f"{name} breaks the drawing rules"


@pytest.fixture(scope="module")
def fake_report(fake_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Drawn:
    """Every figure drawn once from the fake store, by the report (mark users
    ``xdist_group("fake-report")``)."""
    return draw_report(tmp_path_factory.mktemp("fake-report"), fake_store)


@FAKE_REPORT
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_from_fake_store(name: str, fake_report: Drawn) -> None:
    result, out = fake_report.results[name], fake_report.folder(name)
    _check_files(result, out, fake_report.problems)
    assert result["title"] and result["conclusion"]
    rows = (out / f"{name}.csv").read_text().splitlines()
    assert len(rows) > 1 or name not in fake_report.in_report, "the CSV has data rows"
    if name != "bounds":  # every figure drawn from runs says each point's verdict
        assert "verdict" in rows[0].split(",")
        verdicts = {r["verdict"] for r in _csv_rows(out / f"{name}.csv")}
        if name in TRAINED:
            assert verdicts >= {"undecided"} and verdicts - {""} <= set(VERDICTS)
            assert result["verdicts"]["undecided"] >= 1
            assert f"and {result['verdicts']['undecided']} " in result["caption"]
    if name == "protocols":  # the fake runs have no checkpoints for panel (b)
        assert any("no recurrent dyck or index-lookup checkpoints" in m for m in result["missing"])
    elif paper_of(name) == "parrots":  # the fake runs are the separations paper's
        assert any("no concat-transformer runs" in m for m in result["missing"])
    else:
        assert result["missing"] == []


@EMPTY_REPORT
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_from_empty_store(name: str, empty_report: Drawn) -> None:
    result = empty_report.results[name]
    _check_files(result, empty_report.folder(name), empty_report.problems)
    if name == "bounds":
        assert result["missing"] == []
    else:
        assert result["missing"], "an empty store is reported as missing data"


@FAKE_REPORT
def test_thresholds_csv_holds_bounds_and_thresholds(fake_report: Drawn) -> None:
    text = (fake_report.out / "thresholds.csv").read_text()
    assert "empirical,index-lookup,lstm,1,64,20," in text  # fails from N = 50 on
    assert "separations.thm3" in text and "separations.thm5" in text


def test_undecided_thresholds_are_one_sided_never_a_length(
    fake_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paper_figures import style

    drawn: list[tuple[float, float, bool]] = []
    one_sided = style.one_sided

    def recorded(ax, x, y, colour, marker="o", up=True, **kw):  # noqa: ANN001, ANN003
        drawn.append((x, y, up))
        one_sided(ax, x, y, colour, marker, up, **kw)

    monkeypatch.setattr(style, "one_sided", recorded)
    make_figure("thresholds", tmp_path, store=fake_store)
    rows = [r for r in _csv_rows(tmp_path / "thresholds.csv") if r["series"] == "empirical"]
    by_model = {(r["task"], r["arch"], r["layers"], r["width"]): r for r in rows}
    # the smaller learning rate still climbing at N = 50: undecided, at least N = 20
    for key in (
        ("dyck", "transformer", "2", "64"),
        ("index-lookup", "mamba", "2", "64"),
        ("eq-random", "lstm", "2", "64"),
    ):
        row = by_model[key]
        assert (row["verdict"], row["length"], row["threshold_at_least"]) == ("undecided", "", "20")
    assert all(r["length"] == "" for r in rows if r["verdict"] == "undecided")
    assert by_model["index-lookup", "mamba", "2", "32"]["length"] == "20"  # plateaued at 50
    assert by_model["index-lookup", "mamba", "2", "32"]["verdict"] == "plateaued"
    assert sorted(y for _, y, up in drawn if up) == [20, 20, 20]  # drawn as bounds, arrows up


@FAKE_REPORT
def test_capacity_with_an_undecided_miss_is_not_a_number(fake_report: Drawn) -> None:
    rows = [r for r in _csv_rows(fake_report.out / "kg-capacity.csv") if r["kind"] == "trained"]
    (row,) = [r for r in rows if (r["family"], r["hops"], r["width"]) == ("looped-moe", "2", "16")]
    assert (row["verdict"], row["triples"], row["triples_at_least"]) == (
        "undecided",
        "undecided",
        "32",
    )
    assert {r["verdict"] for r in rows} == {"reached", "plateaued", "undecided"}


@FAKE_REPORT
def test_looped_figures_read_the_claims_and_the_store(fake_report: Drawn) -> None:
    out = fake_report.out
    rows = _csv_rows(out / "looped-loops.csv")
    fewest = {(r["task"], r["x"]): (r["fewest_loops"], r["proved_loops"]) for r in rows}
    assert fewest[("group-composition", "4")] == ("3", "2")  # ceil(lg 4) from Thm 2.1's claim
    assert fewest[("p-hop", "4")] == ("4", "4")  # floor(lg 4) + 2 from Cor. 2.3's claim
    # n = 8: 4 loops reached, 3 loops was still climbing: the fewest is undecided, at most 4
    assert fewest[("group-composition", "8")] == ("undecided", "3")
    cells = {(r["task"], r["x"], r["loops"]): r for r in rows}
    assert cells["group-composition", "8", "3"]["verdict"] == "undecided"
    assert cells["group-composition", "8", "3"]["fewest_loops_at_most"] == "4"
    assert cells["group-composition", "8", "2"]["verdict"] == "plateaued"
    assert cells["p-hop", "4", "4"]["verdict"] == "reached"
    assert cells["p-hop", "4", "4"]["fewest_loops_at_most"] == ""  # decided: no bound
    result = fake_report.results["looped-table1"]
    table = _csv_rows(out / "looped-table1.csv")
    rows = ["(1⊗1) iso-param", "(1⊗4) looped", "(4⊗1) iso-FLOP"]
    assert [r["row"] for r in table if r["task"] == "addition" and r["x"] == "4"] == rows
    # the fake runs set neither digits nor reverse: the paper's addition
    assert {r["setting"] for r in table if r["task"] == "addition"} == {
        "N=8, 3-digit operands, sum most significant digit first, as the paper, width=64"
    }
    counts = {r["row"]: int(r["parameters"]) for r in table if r["task"] == "addition"}
    assert "addition: " + ", ".join(f"{row} {counts[row]:,}" for row in rows) in result["caption"]
    assert {r["x"] for r in table if r["task"] == "addition"} == {"2", "4", "6", "8"}
    phop = {(r["row"], r["x"]): float(r["accuracy"]) for r in table if r["task"] == "p-hop"}
    assert [row for row, x in phop if x == "4"] == rows  # the plain (4⊗1), not the regularised
    assert phop[("(1⊗1) iso-param", "4")] == 0.3 and phop[("(4⊗1) iso-FLOP", "4")] == 0.6
    # i-GSM (Table 2): rows by the model's depth on one distribution (query depth 2; a run
    # stored with the option's old name "depth" reads the same)
    igsm = {r["row"]: float(r["accuracy"]) for r in table if r["task"] == "i-gsm"}
    assert list(igsm) == [
        "(1⊗1) iso-param",
        "(1⊗2) looped",
        "(2⊗1) iso-FLOP",
        "(1⊗4) looped",
        "(4⊗1) iso-FLOP",
    ]
    assert igsm["(4⊗1) iso-FLOP"] == pytest.approx(0.65)
    assert {r["x"] for r in table if r["task"] == "i-gsm"} == {"2"}


@FAKE_REPORT
def test_regularizer_figure_reads_the_stored_similarity(fake_report: Drawn) -> None:
    assert fake_report.results["looped-regularizer"]["missing"] == []
    rows = _csv_rows(fake_report.out / "looped-regularizer.csv")
    accuracy = {r["model"]: float(r["accuracy"]) for r in rows if r["accuracy"]}
    assert accuracy == {
        "(4⊗1) plain": 0.6,
        "(4⊗1) reg k=1 λ=1": 0.7,
        "(4⊗1) reg k=1 λ=10": 0.8,
        "(1⊗4) looped": 1.0,
    }
    cosines = {(r["model"], r["group"], r["pair"]): float(r["cosine"]) for r in rows if r["cosine"]}
    assert cosines[("(4⊗1) plain", "ff_w2", "2-3")] == 0.05
    assert cosines[("(4⊗1) reg k=1 λ=10", "attn_q", "0-1")] == 0.99
    assert len(cosines) == 3 * 6 * 3  # three deep models, six groups, three successive pairs


@FAKE_REPORT
def test_kg_capacity_reads_the_search_and_the_claims(fake_report: Drawn) -> None:
    result = fake_report.results["kg-capacity"]
    rows = _csv_rows(fake_report.out / "kg-capacity.csv")
    trained = {
        (r["family"], r["hops"], r["width"]): r["triples"] for r in rows if r["kind"] == "trained"
    }
    assert trained[("standard", "1", "16")] == "64"  # R = 2 and 4 stored, both passed
    assert trained[("standard", "2", "16")] == "32"  # R = 4 missed
    assert trained[("looped-moe", "2", "8")] == "0"  # the first graph, R = 2, missed
    bounds = {r["bound_id"] for r in rows if r["kind"] in ("upper", "lower")}
    assert bounds == {"kg.thm_b19", "kg.thm5_1", "kg.prop_b13", "kg.thm5_3", "kg.lemma_b18"}
    assert {s["family"] for s in result["slopes"]} >= {"standard", "looped-moe"}
    sizes = sorted(
        {
            int(r["parameters"])
            for r in rows
            if r["kind"] == "trained" and r["family"] == "standard" and r["hops"] == "1"
        }
    )
    assert (
        "Parameters compared: q = 1: standard " + ", ".join(f"{p:,} (d = " for p in sizes[:1])
        in result["caption"]
    )
    b19 = [int(r["triples"]) // 16 for r in rows if r["bound_id"] == "kg.thm_b19"]
    assert b19 and min(b19) == 3  # drawn from R = 3 (R >= e) only


def test_thm_b19_line_only_where_the_theorem_applies() -> None:
    from ccomplexity import claims
    from paper_figures.kg_capacity import bound_line

    (row,) = [c for c in claims.claims(task="kg-path") if c.bound_id == "kg.thm_b19"]
    line = bound_line(row, 16, 2, 1e5, layers=2)
    assert line and [t // 16 for _, t in line][:3] == [3, 4, 5]
    assert bound_line(row, 16, 2, 1e5, layers=3) == []  # L > q: nothing proved


@EMPTY_REPORT
def test_bounds_csv_has_thm3_example(empty_report: Drawn) -> None:
    assert "a,separations.thm3,,,128,64,8192," in (empty_report.out / "bounds.csv").read_text()


def test_unknown_figure_and_missing_store(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown figure"):
        make_figure("nope", tmp_path)
    with pytest.raises(InputError, match="no results store"):
        make_figure("fig2", tmp_path, store=tmp_path / "absent.db")
    with pytest.raises(InputError, match="unknown profile"):
        make_figure("fig2", tmp_path, profile="nope")


@FAKE_REPORT
def test_report_references_every_figure(fake_store: Path, fake_report: Drawn) -> None:
    html = fake_report.html
    for name in FIGURES:  # each figure with data drawn, the others named in one line
        drawn = name in fake_report.in_report
        assert (f'src="{name}.png"' in html) == drawn
        assert (f'href="{name}.csv"' in html) == drawn
        assert (fake_report.out / f"{name}.png").is_file() == drawn
        if drawn:
            assert html_escape(fake_report.results[name]["title"]) in html
    absent = [n for n in FIGURES if n not in fake_report.in_report]
    assert sorted(absent) == ["parrots-memorization", "parrots-reasoning"]
    (line,) = [t for t in html.splitlines() if "Not drawn, no data in the store" in t]
    assert all(f"{n} (<code>{fill_command(n)}</code>)" in line for n in absent)
    assert str(fake_store) in html
    assert "<td>every paper: fake-profile</td>" in html  # the profile the store records
    assert html.count("undecided, still improving when the budget ran out") >= len(TRAINED)


def _csv_rows(path: Path) -> list[dict[str, str]]:
    import csv

    with path.open() as handle:
        return list(csv.DictReader(handle))


def test_protocols_without_store_measures_panel_a_and_reports_b_missing(tmp_path: Path) -> None:
    from ccomplexity import bounds
    from paper_figures import protocols

    result = make_figure("protocols", tmp_path)
    _check_files(result, tmp_path)
    assert result["missing"] == [
        "protocols: no results store given (use --store DB or --profile NAME)"
    ]
    rows = _csv_rows(tmp_path / "protocols.csv")
    measured = [r for r in rows if r["kind"] == "measured"]
    assert len(measured) == 3 * len(protocols.WIDTHS) * len(protocols.MEASURED_LENGTHS)
    assert all(float(r["agreement"]) == 1.0 == float(r["logits_exact"]) for r in measured)
    p = protocols.PRECISION
    for r in measured:
        d, n, bits = int(r["width"]), int(r["length"]), int(r["bits"])
        if r["arch"] == "lstm":  # Thm 2: the whole state, h and c, m = 2d numbers of p bits
            assert bits == 2 * d * p
        else:  # the implementation's count, below Thm 4's itemised total
            heads, m = protocols.HEADS, d // protocols.HEADS
            single = r["variant"] == "single-output"
            assert bits == bounds.thm4_run_bits(m, heads, p, n, single_output=single)["total"]
            log_n = (n - 1).bit_length()
            two_way = 3 + 2 * heads * p + 2 * heads * (p + log_n) + 2 * heads * m * (p + p // 2)
            assert bits == (
                two_way - heads * log_n - heads * m * (p + p // 2) if single else two_way
            )
            assert bits < bounds.thm4_itemised(m, d, p, n, heads).total
    assert not [r for r in rows if r["panel"] == "b"]


def test_protocols_panel_b_on_trained_checkpoints(tmp_path: Path) -> None:
    from ccomplexity import lower_bounds
    from simulations.training import TrainConfig, train

    db = tmp_path / "trained.db"
    with Store(db) as store:
        for task, arch, n in (
            ("dyck", "lstm", 8),
            ("index-lookup", "gru", 4),
            ("dyck", "transformer", 8),
        ):
            config = TrainConfig.of(
                task=task,
                arch=arch,
                width=8,
                layers=1,
                length=n,
                steps=20,
                batch=32,
                lr=1e-2,
                heads=2,
                eval_every=20,
                eval_samples=50,
            )
            store.add_run(
                train(config, tmp_path / "trained_checkpoints", progress=False, device="cpu")
            )
    result = make_figure("protocols", tmp_path / "out", store=db)
    assert result["missing"] == []
    rows = [r for r in _csv_rows(tmp_path / "out" / "protocols.csv") if r["panel"] == "b"]
    assert {(r["arch"], r["task"]) for r in rows} == {("lstm", "dyck"), ("gru", "index-lookup")}
    bound = {
        (r["task"], r["cut"]): int(r["bits"]) for r in rows if r["kind"] == "one_way_lower_bound"
    }
    assert bound == {
        ("dyck", "4"): lower_bounds.one_way_bits_dyck(2, 2, 8, 4).bits,
        ("index-lookup", "2"): 12,
    }
    for r in rows:
        if r["kind"] == "bits_used" and r["bits"]:
            assert int(r["bits"]) == int(r["p"]) * int(r["state_numel"])
    assert "trained recurrent checkpoints" in result["caption"]


def test_looped_table1_labels_the_reversed_sum_a_variant() -> None:
    from paper_figures.looped_table1 import setting

    run = {"task": "addition", "length": 4, "width": 64,
           "config": {"digits": 2, "reverse": True}}  # fmt: skip
    assert setting(run) == (
        "N=4, 2-digit operands, reversed sum (least significant digit "
        "first: a variant, not the paper's), width=64"
    )
    assert "as the paper" in setting({**run, "config": {"reverse": False}})


@FAKE_REPORT
def test_bite_conclusion_gives_each_architecture_its_reach(fake_report: Drawn) -> None:
    """The fake GRU of 4 bits reaches N = 2 (its wall: 4), N = 3 still climbing (at least 2); the
    fake transformer reaches N = 10 and plateaus at 20 below its wall: reach from the store."""
    import csv

    result, out = fake_report.results["bite"], fake_report.folder("bite")
    rows = {r["arch"]: r for r in csv.DictReader((out / "bite.csv").open())}
    gru, transformer = rows["gru"], rows["transformer"]
    assert (gru["threshold_at_least"], gru["bound_length"], gru["reach"]) == ("2", "4", "0.5")
    assert gru["verdict"] == "undecided" and gru["threshold"] == ""
    assert transformer["threshold"] == "10"
    reach = float(transformer["reach"])
    assert result["title"].endswith("none beyond its wall")
    assert (
        "Index lookup, recurrent models: gru (1 model) 1 undecided (reach at least 0.50)"
        in (result["conclusion"])
    )
    assert (
        f"one-layer transformers: transformer (1 model) reach {reach:.2f}" in result["conclusion"]
    )


def test_bite_points_keep_a_mixture_of_experts_apart_by_its_k() -> None:
    """Threshold rows of one-layer mixtures with K = 1 and K = 4 (their ``shape``) stay two
    points, each with its own K, and the conclusion counts them under their K."""
    from paper_figures import bite

    row = {"task": "length2-path", "arch": "concat-transformer", "width": 1, "held": True,
           "threshold_length": None, "threshold_at_least": None, "bound_length": 11,
           "bound_id": "parrots.thm3_1_exact", "bound_params": {"m": 1, "H": 1, "p": 2},
           "runs": 20, "points": [{"length": 3, "verdict": "plateaued"}]}  # fmt: skip
    points = bite.model_points([{**row, "shape": {"heads": 1}}, {**row, "shape": {"experts": 4}}])
    assert [p["experts"] for p in points] == [1, 4]
    assert [bite._kind(p) for p in points] == ["concat-transformer K=1", "concat-transformer K=4"]
