"""The acceptance commands of the foundation, run exactly as a user types them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest


def test_dyck_count(ccx_json):
    out = ccx_json("dyck", "count", "--types", "2", "--depth", "2", "--length", "14")
    assert out["count"] == 8192


def test_dyck_count_huge_is_exact(ccx_json):
    out = ccx_json("dyck", "count", "--types", "2", "--depth", "2", "--length", "1000")
    assert out["count"] == 2**999


def test_dfa_dyck(ccx_json):
    out = ccx_json("dfa", "dyck", "--types", "2", "--depth", "2")
    assert (out["states"], out["live_states"]) == (8, 7)


def test_dfa_equality_is_minimal(ccx_json):
    out = ccx_json("dfa", "equality", "--half", "3", "--alphabet", "2")
    # An independent lower bound on any DFA for {ww : |w| = 3}: the residual classes of all
    # prefixes (Myhill-Nerode), counted here by brute force over suffixes of length <= 6.
    import itertools

    words = {w + w for w in itertools.product((0, 1), repeat=3)}
    # Prefixes of length 7 reach the dead class; longer ones add nothing new.
    prefixes = [p for n in range(8) for p in itertools.product((0, 1), repeat=n)]
    suffixes = [s for n in range(7) for s in itertools.product((0, 1), repeat=n)]
    classes = {frozenset(s for s in suffixes if p + s in words) for p in prefixes}
    assert out["states"] == len(classes)
    assert out["live_states"] == len(classes) - 1


def test_fooling_dyck_exhaustive(ccx_json):
    out = ccx_json(
        "fooling",
        "--problem",
        "dyck",
        "--types",
        "2",
        "--depth",
        "2",
        "--length",
        "12",
        "--partition",
        "odd-even",
    )
    assert (out["size"], out["value"], out["verified"], out["bits"]) == (2048, 1, True, 11)


def test_fooling_dyck_symbolic_1000(ccx_json):
    out = ccx_json(
        "fooling",
        "--problem",
        "dyck",
        "--types",
        "2",
        "--depth",
        "2",
        "--length",
        "1000",
        "--partition",
        "odd-even",
    )
    assert out["verified"] is True and out["bits"] == 999 and out["value"] == 1
    assert out["size"] == 2**999
    assert out["seconds"] < 10


def test_fooling_equality_exact(ccx_json):
    out = ccx_json("fooling", "--problem", "equality", "--half", "3", "--exact")
    assert out["size"] == 8 and out["verified"] is True and out["bits"] == 3


def test_cc_oneway_index(ccx_json):
    out = ccx_json("cc", "oneway", "--problem", "index", "--length", "10")
    assert out["distinct_rows"] == 1024 and out["bits"] == 10


def test_cc_oneway_dyck_cut(ccx_json):
    out = ccx_json(
        "cc",
        "oneway",
        "--problem",
        "dyck",
        "--types",
        "2",
        "--depth",
        "2",
        "--length",
        "12",
        "--cut",
        "6",
    )
    # After 6 symbols only even stack heights are reachable: the empty stack, the four stacks of
    # height 2, and "already rejected"; each leaves Bob a different set of accepted suffixes.
    assert out["distinct_rows"] == 6
    assert out["bits"] == 3


def test_cc_rank_and_exact(ccx_json):
    assert ccx_json("cc", "rank", "--problem", "equality", "--half", "3")["rank"] == 8
    assert ccx_json("cc", "exact", "--problem", "equality", "--half", "3")["bits"] == 4


def test_codes_search(ccx_json):
    out = ccx_json("codes", "--length", "50", "--gamma", "0.25", "--seed", "1")
    assert out["valid"] is True and out["max_off_diagonal"] <= 0.25
    assert out["k"] < out["paper_k"] == 590


def test_bound_thm3(ccx_json):
    out = ccx_json("bound", "--theorem", "separations.thm3", "--width", "128", "--precision", "64")
    assert out["max_length"] == 8192


def test_bound_evaluates_every_kind_of_statement(ccx_json):
    out = ccx_json(
        "bound", "--theorem", "separations.lemma2", "--length", "1000", "--gamma", "0.25"
    )
    assert out["min_width"] == out["value"] == 973
    out = ccx_json(
        "bound",
        "--theorem",
        "separations.thm4",
        "--width",
        "64",
        "--precision",
        "32",
        "--length",
        "400",
    )
    assert round(out["bits_closed_form"]) == 7804 and int(out["bits_itemised"]) == 10385
    assert out["bits_single_output"] < out["bits_closed_form"]
    out = ccx_json("bound", "--theorem", "separations.thm5", "--length", "400", "--precision", "16")
    assert out["min_width"] == 11 and out["min_width_closed_form"] == 6
    assert "single-output" in out["width_rests_on"]
    assert ccx_json("bound", "--theorem", "separations.lemma4", "--param", "states=8")["value"] == 3
    assert ccx_json("bound", "--theorem", "separations.fact4", "--size", "1024")["value"] == 10
    assert ccx_json("bound", "--theorem", "separations.thm1", "--length", "20")["min_width"] == 473
    listed = ccx_json("bound", "--list")["theorems"]
    assert {"id", "params", "needs"} <= set(listed[0])
    assert all(row["params"] for row in listed)


def test_claims_table(ccx_json, ccx):
    rows = ccx_json("claims")["claims"]
    assert {"task", "family", "bound_id", "reads"} <= set(rows[0])
    drawn = {"separations.thm3", "separations.thm5", "separations.thm11", "separations.thm8"}
    assert drawn <= {r["bound_id"] for r in rows}
    dyck = ccx_json("claims", "--task", "dyck")["claims"]
    assert {r["task"] for r in dyck} == {"dyck"}
    code, out, err = ccx("claims", "--task", "nosuch")
    assert code == 2 and "no claim on task" in err and not out


@pytest.mark.parametrize(
    "args",
    [
        ["fooling", "--problem", "equality", "--half", "3"],
        ["fooling", "--problem", "dyck", "--types", "2", "--depth", "2", "--length", "10"],
        ["cc", "oneway", "--problem", "index", "--length", "8"],
        ["cc", "rank", "--problem", "disjointness", "--half", "3"],
    ],
)
def test_certificate_round_trip_and_tamper(ccx, tmp_path: Path, args):
    path = tmp_path / "c.json"
    code, _, err = ccx(*args, "--certificate", str(path))
    assert code == 0, err
    assert ccx("verify", str(path))[0] == 0
    cert = json.loads(path.read_text())
    witness = cert["witness"]
    key = "pairs" if "pairs" in witness else "alice_inputs"
    first = witness[key][0]
    word = first[0] if key == "pairs" else first
    word[0] = 1 - word[0] if word[0] in (0, 1) else word[0] - 1  # change one symbol
    path.write_text(json.dumps(cert))
    code, out, err = ccx("verify", str(path))
    assert code == 1, out
    assert "invalid" in err and not out


def test_symbolic_certificate_round_trip_and_tamper(ccx, tmp_path: Path):
    path = tmp_path / "s.json"
    args = ["fooling", "--problem", "dyck", "--types", "2", "--depth", "2", "--length", "200"]
    assert ccx(*args, "--certificate", str(path))[0] == 0
    assert ccx("verify", str(path))[0] == 0
    cert = json.loads(path.read_text())
    assert int(cert["claim"]["size"], 16) == 2**199
    cert["claim"]["size"] = hex(2**199 + 1)
    path.write_text(json.dumps(cert))
    assert ccx("verify", str(path))[0] == 1
    # Dyck-(2,3) with its true count and bits: only the uniqueness of the halves fails.
    from ccomplexity.languages.dyck import count_dyck

    count = count_dyck(2, 3, 200)
    cert["problem"]["depth"] = 3
    cert["claim"].update(size=hex(count), bits=(count - 1).bit_length())
    path.write_text(json.dumps(cert))
    code, _, err = ccx("verify", str(path))
    assert code == 1 and "determines" in err


def test_verify_says_over_the_limit_with_exit_2(ccx, tmp_path: Path):
    """A symbolic certificate beyond the one Dyck limit is not checked: exit 2, the limit named
    (the maker refuses the same sizes, so it never wrote one)."""
    from ccomplexity import certificates

    path = tmp_path / "big.json"
    cert = certificates.symbolic_dyck_certificate(2, 2, 1 << 21, 1)
    path.write_text(json.dumps(cert))
    code, out, err = ccx("verify", str(path))
    assert code == 2 and not out
    assert "over the limit" in err and "1048576" in err and len(err.strip().splitlines()) == 1
    args = ["fooling", "--problem", "dyck", "--types", "2", "--depth", "2", "--length"]
    code, _, err = ccx(*args, str(1 << 21), "--certificate", str(tmp_path / "c.json"))
    assert code == 2 and "1048576" in err and not (tmp_path / "c.json").exists()


def test_counts_beyond_decimal_conversion_limit(ccx_json, ccx, tmp_path: Path):
    # 2^19999 has more than 4300 decimal digits: it is printed as an exact hex string.
    out = ccx_json("dyck", "count", "--types", "2", "--depth", "2", "--length", "20000")
    assert out["count"] == hex(2**19999)
    path = tmp_path / "big.json"
    args = ["fooling", "--problem", "dyck", "--types", "2", "--depth", "2", "--length", "20000"]
    code, _, err = ccx(*args, "--certificate", str(path), "--json")
    assert code == 0, err
    assert ccx("verify", str(path))[0] == 0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (
            ["fooling", "--problem", "dyck", "--types", "2", "--depth", "2", "--length", "11"],
            "even",
        ),
        (
            [
                "fooling",
                "--problem",
                "dyck",
                "--types",
                "2",
                "--depth",
                "2",
                "--length",
                "30",
                "--method",
                "exhaustive",
            ],
            "limit",
        ),
        (["fooling", "--problem", "equality", "--half", "0"], "must be an integer in 1.."),
        (["fooling", "--problem", "equality", "--half", "-3"], "must be an integer in 1.."),
        (["fooling", "--problem", "nosuch", "--half", "3"], "unknown problem"),
        (
            ["bound", "--theorem", "separations.nosuch", "--width", "1", "--precision", "1"],
            "unknown",
        ),
        (["bound", "--theorem", "separations.thm3", "--colour", "1"], "takes no parameter"),
        (["bound", "--theorem", "separations.thm3"], "give --length"),
        (["bound", "--theorem", "separations.thm3", "--width", "-1", "--precision", "1"], ">= 1"),
        (
            ["bound", "--theorem", "separations.lemma2", "--length", "10", "--gamma", "1e-300"],
            "at least 1e-6",
        ),
        (["cc", "exact", "--problem", "equality", "--half", "6"], "limit"),
        (
            ["cc", "rank", "--problem", "dyck", "--types", "2", "--depth", "2", "--length", "40"],
            "limit",
        ),
        (
            ["dyck", "count", "--types", "0", "--depth", "2", "--length", "4"],
            "must be an integer in 1..",
        ),
        (["fooling", "--problem", "dyck", "--types", "2", "--depth", "2"], "length"),
        (["fooling", "--problem", "equality", "--half", "x"], "half"),
        (["verify", "/nonexistent/c.json"], "does not exist"),
    ],
)
def test_bad_input_is_one_line_exit_2(ccx, tmp_path: Path, monkeypatch, args, needle):
    monkeypatch.chdir(tmp_path)
    code, out, err = ccx(*args, "--certificate", "c.json") if args[0] == "fooling" else ccx(*args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert needle in err.lower()
    assert not (tmp_path / "c.json").exists()


def test_console_script_runs_without_torch():
    script = (
        "import sys; from ccx import main;"
        "code = main(['fooling', '--problem', 'dyck', '--types', '2', '--depth', '2',"
        " '--length', '8', '--json']);"
        "assert 'torch' not in sys.modules, 'torch was imported'; sys.exit(code)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verified"] is True


def test_installed_entry_point_exit_code():
    exe = Path(sys.executable).with_name("ccx")
    done = subprocess.run(
        [str(exe), "dyck", "count", "--types", "2"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_protocol_rnn_lstm_acceptance(ccx_json):
    out = ccx_json(
        "protocol",
        "rnn",
        "--arch",
        "lstm",
        "--width",
        "16",
        "--length",
        "40",
        "--cut",
        "17",
        "--precision",
        "16",
        "--samples",
        "200",
        "--seed",
        "3",
    )
    assert (out["bits_sent"], out["state_numel"], out["agreement"]) == (512, 32, 1.0)
    assert out["samples"] == 200 and out["one_way"] is True


def test_protocol_attention_two_way_and_one_way(ccx_json):
    base = ["protocol", "attention", "--width", "8", "--heads", "2", "--length", "64",
            "--precision", "24", "--samples", "50", "--seed", "0"]  # fmt: skip
    two = ccx_json(*base, "--partition", "odd-even")
    assert two["agreement"] == 1.0 and two["logits_exact"] == 1.0 and two["one_way"] is False
    assert two["bits_sent"] == sum(two["bits_by_step"].values())
    assert isinstance(two["bits_paper_formula"], float)
    one = ccx_json(*base, "--partition", "random", "--one-way", "--query-token", "3")
    assert one["one_way"] is True and set(two) <= set(one) | {"bits_by_direction"}
    assert (one["query"], one["query_token"], two["query"]) == ("public", 3, "sent")


def test_protocol_attention_single_output_acceptance(ccx, ccx_json, tmp_path: Path):
    out = ccx_json(
        "protocol",
        "attention",
        "--width",
        "8",
        "--heads",
        "2",
        "--length",
        "64",
        "--partition",
        "odd-even",
        "--precision",
        "24",
        "--samples",
        "200",
        "--seed",
        "0",
        "--single-output",
    )
    assert out["bits_sent"] <= out["bits_paper_formula"] and out["agreement"] == 1.0
    assert out["variant"] == "single-output" and out["logits_exact"] == 1.0
    assert out["bits_sent"] == out["bits_run_count"] == 495 and out["outputs"] == ["bob"]
    path = tmp_path / "single.json"
    args = ["protocol", "attention", "--width", "8", "--heads", "2", "--length", "10",
            "--partition", "random", "--precision", "16", "--samples", "3"]  # fmt: skip
    assert ccx(*args, "--single-output", "--certificate", str(path))[0] == 0
    assert ccx("verify", str(path))[0] == 0
    code, _, err = ccx(*args, "--single-output", "--one-way")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "give one" in err


def test_protocol_certificate_round_trip_and_tamper(ccx, tmp_path: Path):
    path = tmp_path / "p.json"
    args = ["protocol", "rnn", "--arch", "gru", "--width", "8", "--length", "12", "--cut", "5",
            "--precision", "12", "--samples", "5", "--seed", "2"]  # fmt: skip
    assert ccx(*args, "--certificate", str(path))[0] == 0
    assert ccx("verify", str(path))[0] == 0
    text = path.read_text()
    cert = json.loads(text)
    message = cert["transcripts"][0]["messages"][0]
    message["bits"] = ("1" if message["bits"][0] == "0" else "0") + message["bits"][1:]
    path.write_text(json.dumps(cert))
    assert ccx("verify", str(path))[0] == 1


def test_protocol_bad_input(ccx):
    code, _, err = ccx(
        "protocol",
        "rnn",
        "--arch",
        "transformer",
        "--width",
        "8",
        "--length",
        "10",
        "--cut",
        "3",
        "--precision",
        "12",
    )
    assert code == 2 and len(err.strip().splitlines()) == 1
    code, _, err = ccx(
        "protocol",
        "rnn",
        "--arch",
        "lstm",
        "--width",
        "8",
        "--length",
        "10",
        "--cut",
        "10",
        "--precision",
        "12",
    )
    assert code == 2 and "cut" in err.lower()


def test_train_sweep_threshold_commands(ccx, ccx_json, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = ccx_json(
        "train",
        "--task",
        "index-lookup",
        "--arch",
        "transformer",
        "--width",
        "16",
        "--length",
        "12",
        "--steps",
        "20",
        "--seed",
        "0",
        "--heads",
        "2",
        "--checkpoint-dir",
        str(tmp_path / "ck"),
    )
    assert out["steps"] <= 20 and Path(out["checkpoint"]).is_file()
    assert 0.0 <= out["accuracy"] <= 1.0 and out["wall_seconds"] > 0
    assert out["verdict"] in ("reached", "plateaued", "undecided")
    assert out["config"]["optimizer"] == "adam" and out["lr_final"] == 1e-3
    recipe = ccx_json(
        "train",
        "--task",
        "dyck",
        "--arch",
        "lstm",
        "--width",
        "8",
        "--length",
        "8",
        "--steps",
        "20",
        "--optimizer",
        "adamw",
        "--weight-decay",
        "0.1",
        "--schedule",
        "warmup-cosine",
        "--warmup",
        "2",
        "--clip",
        "1.0",
        "--checkpoint-dir",
        str(tmp_path / "ck"),
    )
    assert {
        k: recipe["config"][k] for k in ("optimizer", "weight_decay", "schedule", "warmup", "clip")
    } == {
        "optimizer": "adamw",
        "weight_decay": 0.1,
        "schedule": "warmup-cosine",
        "warmup": 2,
        "clip": 1.0,
    }
    lo, hi = recipe["accuracy_ci"]
    assert lo <= recipe["accuracy"] <= hi and 0 < recipe["lr_final"] < 1e-3
    code, _, err = ccx(
        "train",
        "--task",
        "dyck",
        "--arch",
        "lstm",
        "--width",
        "8",
        "--length",
        "8",
        "--optimizer",
        "sgd",
    )
    assert code == 2 and "optimizer must be one of" in err
    spec = tmp_path / "s.toml"
    spec.write_text(
        '[baseline]\ntask = "index-lookup"\nlayers = 1\nsteps = 10\nbatch = 8\nheads = 2\n'
        "eval_every = 10\n"
        'eval_samples = 50\n[grid]\narch = ["transformer", "lstm"]\nwidth = [8]\n'
        "length = [12]\n"
    )
    db = str(tmp_path / "db.sqlite")
    first = ccx_json("sweep", str(spec), "--store", db, "--workers", "1")
    assert (first["ran"], first["failed"]) == (2, [])
    assert len(list((tmp_path / "db_checkpoints").glob("*.pt"))) == 2  # beside the store
    other = ccx_json(
        "sweep",
        str(spec),
        "--store",
        str(tmp_path / "b.db"),
        "--workers",
        "1",
        "--checkpoint-dir",
        str(tmp_path / "elsewhere"),
    )
    assert other["ran"] == 2 and len(list((tmp_path / "elsewhere").glob("*.pt"))) == 2
    again = ccx_json("sweep", str(spec), "--store", db, "--workers", "1")
    assert (again["ran"], again["skipped"]) == (0, 2)
    rows = ccx_json("threshold", "--store", db)["thresholds"]
    assert {r["arch"] for r in rows} == {"transformer", "lstm"}
    assert all(
        set(r) >= {"task", "arch", "width", "layers", "threshold_length", "bound_length"}
        for r in rows
    )
    assert all(
        p["verdict"] in ("reached", "plateaued", "undecided") for r in rows for p in r["points"]
    )
    extended = ccx_json(
        "sweep", str(spec), "--store", db, "--workers", "1", "--extend-undecided", "1"
    )
    assert extended["skipped"] == 2 and len(extended["extended"]) <= 1
    again = ccx_json("rerun", "--store", db, "--run", "1")
    assert (
        again["identical"] is True
        and again["rerun"]["best_accuracy"] == (again["stored"]["best_accuracy"])
    )
    code, _, err = ccx("rerun", "--store", db, "--run", "12345")
    assert code == 2 and "no run" in err and len(err.strip().splitlines()) == 1
    spec.write_text('[baseline]\ntask = "index-lookup"\nbogus = 1\n[grid]\narch = ["lstm"]\n')
    code, _, err = ccx("sweep", str(spec), "--store", db)
    assert code == 2 and "bogus" in err and len(err.strip().splitlines()) == 1


def test_models_and_construct_commands(ccx_json):
    listed = ccx_json("models")["models"]
    names = {m["name"] for m in listed}
    assert names >= {"transformer", "lstm", "gru", "mamba", "dss", "linear-transformer", "retnet"}
    assert all(isinstance(m["recurrent"], bool) for m in listed)
    out = ccx_json("construct", "--task", "dyck", "--types", "2", "--depth", "2", "--length", "16")
    assert (out["accuracy"], out["state_bits"], out["exhaustive"]) == (1.0, 3, True)
    out = ccx_json("construct", "--task", "equality", "--length", "10")
    assert out["accuracy"] == 1.0 and out["exhaustive"] is True
    out = ccx_json("construct", "--task", "index-lookup", "--length", "100", "--samples", "2000")
    assert out["accuracy"] == 1.0 and out["width"] < out["one_hot_width"]


def test_protocols_run_on_trained_checkpoints(ccx, ccx_json, tmp_path: Path):
    trained = ccx_json(
        "train",
        "--task",
        "dyck",
        "--arch",
        "gru",
        "--width",
        "8",
        "--length",
        "8",
        "--steps",
        "5",
        "--checkpoint-dir",
        str(tmp_path),
    )
    path = tmp_path / "p.json"
    out = ccx_json(
        "protocol",
        "rnn",
        "--checkpoint",
        trained["checkpoint"],
        "--length",
        "8",
        "--cut",
        "3",
        "--precision",
        "12",
        "--samples",
        "20",
        "--certificate",
        str(path),
    )
    assert out["arch"] == "gru" and out["agreement"] == 1.0 and out["bits_sent"] == 8 * 12
    assert ccx("verify", str(path))[0] == 0
    reduced = ccx_json(
        "protocol",
        "reduce",
        "--reduction",
        "dyck",
        "--checkpoint",
        trained["checkpoint"],
        "--precision",
        "12",
        "--samples",
        "50",
    )
    assert (reduced["arch"], reduced["length"], reduced["trained_task"]) == ("gru", 8, "dyck")
    assert reduced["protocol_agreement"] == 1.0 and reduced["bits_sent"] == 8 * 12
    code, _, err = ccx(
        "protocol",
        "reduce",
        "--reduction",
        "index",
        "--checkpoint",
        trained["checkpoint"],
        "--precision",
        "12",
    )
    assert code == 2 and len(err.strip().splitlines()) == 1 and "index-lookup" in err
    Path(trained["checkpoint"]).write_bytes(b"not a checkpoint")
    assert ccx("verify", str(path))[0] == 1


@pytest.mark.xdist_group("smoke")
def test_figure_and_report_acceptance(ccx, ccx_json, smoke_sweep, tmp_path: Path, monkeypatch):
    """``--profile smoke`` resumes the profile's store under ``results/`` (here one already swept,
    so every run is skipped) and draws from it."""
    shutil.copytree(smoke_sweep[0] / "results", tmp_path / "results")
    monkeypatch.chdir(tmp_path)
    out = ccx_json("figure", "thresholds", "--profile", "smoke", "--out", "d1")
    for ext in ("png", "pdf", "csv"):
        assert (tmp_path / "d1" / f"thresholds.{ext}").stat().st_size > 0
    assert len((tmp_path / "d1" / "thresholds.csv").read_text().splitlines()) > 1
    assert out["caption"] and out["title"] and out["conclusion"]  # computed from the store
    assert out["title"].startswith("Empirical thresholds against proved bounds")
    # `ccx figure bounds` alone: test_figure_caption_whole_and_files_follow_the_umask
    index = Path(ccx_json("report", "--profile", "smoke", "--out", "d3")["report"])
    html = index.read_text()
    from paper_figures import FIGURES, has_data

    store = str(Path("results") / "smoke.db")
    drawn = [name for name in FIGURES if has_data(name, store)]
    assert {"thresholds", "fig2", "bounds", "protocols"} <= set(drawn)
    assert all((f'src="{name}.png"' in html) == (name in drawn) for name in FIGURES)
    assert not (tmp_path / "d3" / "kg-capacity.png").exists()  # no page without data
    assert "<td>every paper: smoke</td>" in html  # the profile, as the store records it
    assert str(Path("results") / "smoke.db") in html


@pytest.mark.xdist_group("smoke")
def test_figure_caption_whole_and_files_follow_the_umask(ccx, smoke_sweep, tmp_path: Path):
    """The table prints the caption whole, however long, when piped; every file written gets
    the mode the umask gives a plain ``open`` (0644 under 022, 0600 under 077)."""
    store = str(smoke_sweep[0] / "results" / "smoke.db")
    old = os.umask(0o022)
    try:
        code, out, _ = ccx("figure", "thresholds", "--store", store, "--out", str(tmp_path / "a"))
        os.umask(0o077)
        ccx("figure", "bounds", "--out", str(tmp_path / "b"))
    finally:
        os.umask(old)
    assert code == 0 and "chars)" not in out
    caption = " ".join(out.split())
    assert "Data: store" in caption and "..." not in caption
    for ext in ("png", "pdf", "csv"):
        assert (tmp_path / "a" / f"thresholds.{ext}").stat().st_mode & 0o777 == 0o644
        assert (tmp_path / "b" / f"bounds.{ext}").stat().st_mode & 0o777 == 0o600
    code, _, err = ccx("figure", "nosuch", "--out", "d4")
    assert code == 2 and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------ matrix problems, refusals

RANDOM = ["--problem", "random", "--rows", "12", "--cols", "12", "--seed", "0"]


def test_fooling_random_exact(ccx_json):
    out = ccx_json("fooling", *RANDOM, "--exact")
    assert out["exact"] is True and out["verified"] is True and out["method"] == "exact-clique"
    assert out["size"] == out["upper_bound"] and "seconds" in out
    from ccomplexity import lower_bounds, problems

    assert out["size"] == lower_bounds.max_fooling_set(problems.random_matrix(12, 12, 0)).size


def test_fooling_budget_gives_the_best_found(ccx_json, ccx):
    args = ["--problem", "random", "--rows", "40", "--cols", "40", "--seed", "0", "--exact"]
    out = ccx_json("fooling", *args, "--nodes", "3")
    assert out["exact"] is False and out["verified"] is True
    assert out["size"] <= out["upper_bound"] <= 40
    code, _, err = ccx("fooling", *RANDOM, "--seconds", "5")
    assert code == 2 and "--exact search only" in err
    code, _, err = ccx("fooling", *RANDOM)
    assert code == 2 and "use --exact" in err


@pytest.mark.parametrize(
    "command",
    [["fooling", "--exact"], ["cc", "oneway"], ["cc", "rank"]],
)
def test_matrix_file_certificates_verify(ccx, ccx_json, tmp_path: Path, command):
    csv = tmp_path / "m.csv"
    csv.write_text("1,0,0,1,1\n0,1,1,0,1\n1,1,0,0,0\n0,0,1,1,1\n")
    cert = tmp_path / "c.json"
    out = ccx_json(*command, "--problem", "matrix", "--file", str(csv), "--certificate", str(cert))
    assert out["rows"] == 4 and out["cols"] == 5 and out["bits"] >= 1
    assert ccx("verify", str(cert))[0] == 0


def test_cc_exact_on_random_and_matrix(ccx_json, tmp_path: Path):
    csv = tmp_path / "eye.csv"
    csv.write_text("1,0,0,0\n0,1,0,0\n0,0,1,0\n0,0,0,1\n")
    assert ccx_json("cc", "exact", "--problem", "matrix", "--file", str(csv))["bits"] == 3
    assert ccx_json("cc", "exact", *RANDOM[:-2], "--seed", "5")["bits"] >= 1


@pytest.mark.parametrize(
    ("command", "needle"),
    [
        ("cc exact --problem equality --half 12", "limited to 1048576 entries"),
        ("cc exact --problem equality --half 40", "limited to 1048576 entries"),
        ("cc rank --problem equality --half 40", "limited to 4194304"),
        ("fooling --problem equality --half 40 --exact", "limited to 1048576"),
        ("cc oneway --problem equality --half 40", "dense limit"),
        ("fooling --problem random --rows 99999 --cols 99999 --seed 0 --exact", "limited to 1677"),
        ("cc rank --problem matrix --file missing.csv", "does not exist"),
        ("fooling --problem dyck --types 2 --depth 2 --length 1000000000", "limit of 1048576"),
        ("codes --length 1000000000000", "exceeds the limit of 16384"),
    ],
)
def test_refusals_come_before_any_matrix_is_built(ccx, monkeypatch, tmp_path, command, needle):
    # Matrices of 2^40 x 2^40 entries could not be allocated; and evaluating f at all fails.
    from ccomplexity import problems

    def refuse(self, rows, cols):
        raise AssertionError("entries were computed before the refusal")

    monkeypatch.setattr(problems.TwoPartyProblem, "entries", refuse)
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    code, out, err = ccx(*command.split())
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err, err
    assert time.perf_counter() - start < 1.0  # from the sizes alone: no work to speak of


def test_ctrl_c_ends_with_one_line_and_status_130(ccx, tmp_path, monkeypatch):
    """Ctrl-C (KeyboardInterrupt) mid-sweep: no traceback, one line saying what is kept."""
    import simulations.sweeps

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(simulations.sweeps, "run_sweep", interrupted)
    code, out, err = ccx("sweep", "--profile", "smoke", "--store", str(tmp_path / "s.db"))
    assert code == 130 and out == ""
    assert len(err.strip().splitlines()) == 1 and "interrupted" in err


def test_train_takes_a_mixtures_experts_and_routing(ccx, ccx_json, tmp_path: Path):
    model = ("--arch", "concat-transformer", "--width", "2", "--heads", "1")
    args = ("train", "--task", "length2-path", *model, "--length", "6", "--steps", "1")
    args += ("--checkpoint-dir", str(tmp_path))
    out = ccx_json(*args, "--experts", "4", "--top-k", "2")
    assert (out["config"]["experts"], out["config"]["top_k"]) == (4, 2)
    code, _, err = ccx(*args, "--experts", "0")
    assert code == 2 and "experts" in err and len(err.strip().splitlines()) == 1
