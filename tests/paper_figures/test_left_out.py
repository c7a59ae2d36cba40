"""No empty frames: a panel without data is left out of the figure, and the caption and the
report name the command that fills it (one mechanism for every figure, in paper_figures.style)."""

from __future__ import annotations

import matplotlib.pyplot as plt

from paper_figures import FIGURES, fill_command, style
from tests.paper_figures.reports import EMPTY_REPORT, Drawn


def test_only_panels_holding_nothing_but_a_note_are_left_out():
    fig, (curve, reference, bounds_only) = plt.subplots(1, 3)
    curve.plot([1, 2], [0.5, 1.0])
    reference.axhline(0.99)  # a target line or a shaded range is no data
    reference.axvspan(1, 2)
    style.note(reference, "no runs of dyck in the store")
    bounds_only.plot([1, 2], [3, 4])  # a bound drawn without runs is data
    style.note(bounds_only, "no runs: bounds only")
    assert style.leave_out_empty_panels(fig) == ["no runs of dyck in the store"]
    assert fig.axes == [curve, bounds_only]
    plt.close(fig)


def test_a_figure_with_no_panel_left_says_so_in_words():
    fig, ax = plt.subplots()
    style.note(ax, "no looped runs\non addition")
    assert style.leave_out_empty_panels(fig) == ["no looped runs on addition"]
    assert not fig.axes and "no looped runs on addition" in fig.texts[0].get_text()
    plt.close(fig)


@EMPTY_REPORT
def test_caption_and_report_name_the_command_that_fills_the_panels(empty_report: Drawn):
    result = empty_report.results["looped-loops"]
    assert result["left_out"] == ["no looped runs on group-composition", "no looped runs on p-hop"]
    assert result["fill_command"] == "ccx figure looped-loops --profile looped"
    assert fill_command("fig4") == "ccx figure fig4 --profile paper"  # not in quick
    assert "`ccx figure looped-loops --profile looped` fills them" in result["caption"]
    assert (empty_report.folder("looped-loops") / "looped-loops.png").stat().st_size > 0
    bounds = empty_report.results["bounds"]  # every panel has data
    assert "left_out" not in bounds and "Left out" not in bounds["caption"]
    html = empty_report.html
    for name in ("fig2", "fig3", "fig4", "looped-loops", "looped-table1", "thresholds"):
        assert f"<code>{fill_command(name)}</code>" in html, name  # no panel has data
    # a panel of bounds alone is left out too: bounds are drawn beside trained points, not as them
    assert "<code>ccx figure parrots-memorization" in html
    assert set(FIGURES) >= {"fig2", "looped-table1", "thresholds"}


def test_a_hidden_spare_panel_under_a_title_saves(tmp_path):
    fig, (drawn, spare) = plt.subplots(1, 2)
    drawn.plot([1, 2], [0.5, 1.0])
    spare.set_visible(False)  # a grid's spare cell: no box of its own
    fig.suptitle("a title placed above the panels that have a box")
    files = style.save(fig, tmp_path, "spare", [{"x": 1}], ["x"])
    assert [f.rsplit(".", 1)[1] for f in files] == ["png", "pdf", "csv"]


def test_figures_of_float_runs_leave_runs_trained_at_p_bits_to_bite(tmp_path):
    from simulations.store import Store

    path = tmp_path / "held.db"
    config = {"task": "index-lookup", "arch": "gru", "width": 2, "layers": 1, "length": 4,
              "lr": 0.01, "seed": 0, "precision": 2, "frac": 1}  # fmt: skip
    with Store(path) as store:
        store.add_run({"config": config, "config_hash": "held", "accuracy": 1.0,
                       "best_accuracy": 1.0, "curve": [[100, 1.0]]})  # fmt: skip
    assert [r["config_hash"] for r in style.load_runs(str(path), held=True)[0]] == ["held"]
    assert len(style.load_runs(str(path), held=None)[0]) == 1
    runs, missing = style.load_runs(str(path))
    assert runs == [] and missing == [
        f"the results store {path} has no float runs: its 1 are trained at p bits "
        "(`ccx figure bite` draws them)"
    ]
