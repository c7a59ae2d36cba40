"""The plugin acceptance commands, run as a user types them (in-process), on the issue's task
file and on other plugin files: majority, a^n b^n over two symbols, a label task, a model."""

from __future__ import annotations

import csv
import itertools
import json
import os
from pathlib import Path

import numpy as np
import pytest

from ccx import main

MY_TASK = """import numpy as np
from ccomplexity.plugins import task

@task(name="first-equals-last", alphabet=3, lengths=(2, 64))
def first_equals_last(words: np.ndarray) -> np.ndarray:   # (batch, N) ints -> (batch,) 0/1
    return (words[:, 0] == words[:, -1]).astype(np.int8)
"""
OTHER_TASKS = {
    "majority": """import numpy as np
from ccomplexity.plugins import task

@task(name="majority", alphabet=2, lengths=(1, 32))
def majority(words):
    return (2 * words.sum(axis=1) > words.shape[1]).astype(np.int8)
""",
    "anbn": """import numpy as np
from ccomplexity.plugins import task

@task(name="anbn", alphabet=2, lengths=(2, 40))
def a_n_b_n(words):
    n = words.shape[1]
    target = np.array([0] * (n // 2) + [1] * (n - n // 2))
    return ((n % 2 == 0) & (words == target).all(axis=1)).astype(np.int8)
""",
    "first-symbol": """import numpy as np
from ccomplexity.plugins import task

@task(name="first-symbol", alphabet=3, lengths=(1, 16), labels=("a", "b", "c"))
def first_symbol(words):
    return words[:, 0]
""",
}
CONTAINS = """import numpy as np
from ccomplexity.automata import DFA
from ccomplexity.plugins import task

TABLE = np.array([[1, 0], [1, 2], [3, 0], [3, 3]])  # seen: nothing, a, ab, aba

@task(name="contains-aba", alphabet=2, lengths=(1, 1_000_000),
      dfa=DFA(TABLE, 0, np.array([False, False, False, True]), ("a", "b")))
def contains_aba(words):
    hit = (words[:, :-2] == 0) & (words[:, 1:-1] == 1) & (words[:, 2:] == 0)
    return hit.any(axis=1).astype(np.int8)
"""
PALINDROME = """import numpy as np
from ccomplexity.plugins import task

def mirrored(length, alice, most):
    if length % 2 or alice != tuple(range(length // 2)):
        return None
    half = length // 2
    x = (np.arange(min(most, 2**half))[:, None] >> np.arange(half)) & 1
    return np.concatenate([x, x[:, ::-1]], axis=1)

@task(name="palindrome", alphabet=2, lengths=(1, 4096), fooling=mirrored)
def palindrome(words):
    return (words == words[:, ::-1]).all(axis=1).astype(np.int8)
"""
MY_MODEL = '''"""An Elman RNN: h_t = tanh(W [x_t; h_t-1] + b), logits = V h_t."""
import dataclasses
import math

import torch
from torch import nn

from ccomplexity.plugins import model
from models.base import ModelConfig, RecurrentModel


@dataclasses.dataclass(frozen=True)
class ElmanConfig(ModelConfig):
    """Embedding, one tanh recurrence, readout."""


@model(name="my-rnn", family="recurrent")
class Elman(RecurrentModel):
    """Elman RNN. State: h, width numbers."""

    def __init__(self, config: ElmanConfig) -> None:
        super().__init__(config)
        self.embedding = nn.Embedding(config.vocab_size, config.width)
        self.cell = nn.Linear(2 * config.width, config.width)
        self.head = nn.Linear(config.width, config.outputs)

    def initial_state(self, batch):
        return {"h": self.head.weight.new_zeros(batch, self.config.width)}

    def exact_sum_terms(self):
        return self.linear_terms()

    def step(self, state, tokens):
        x = self.q(self.embedding.weight)[tokens]
        h = self.qmap(self.linear(self.cell, torch.cat([x, state["h"]], -1)), torch.tanh, math.tanh)
        return {"h": h}, self.linear(self.head, h)

    def forward(self, tokens):
        return self.run_steps(tokens)[0]
'''
SPEC = """[baseline]
task = "first-equals-last"
arch = "lstm"
layers = 1
width = 8
steps = 10
lr = 0.01
batch = 32
eval_every = 10
eval_samples = 32
[grid]
length = [6]
arch = ["lstm", "transformer"]
"""


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("my_task.py").write_text(MY_TASK)
    Path("my_model.py").write_text(MY_MODEL)
    return tmp_path


def one_line_error(ccx, *args: str) -> str:
    code, out, err = ccx(*args)
    assert code == 2, (out, err)
    assert err.startswith("ccx: error: ") and len(err.strip().splitlines()) == 1, err
    return err


def test_fooling_certificate_and_verify(here, ccx, ccx_json):
    out = ccx_json(
        "--plugin",
        "my_task.py",
        "fooling",
        "--problem",
        "first-equals-last",
        "--length",
        "10",
        "--partition",
        "prefix:5",
        "--exact",
        "--certificate",
        "c.json",
    )
    # the maximum fooling set: value 0 cells (a, b), a != b, of the 3 x 3 first/last matrix
    assert (out["size"], out["bits"], out["exact"], out["verified"]) == (3, 2, True, True)
    cert = json.loads(Path("c.json").read_text())
    assert cert["problem"]["plugin"]["source"] == "my_task.py"
    assert ccx("verify", "--plugin", "my_task.py", "c.json")[0] == 0
    err = one_line_error(ccx, "verify", "c.json")
    assert "first-equals-last" in err and "my_task.py" in err
    Path("my_task.py").write_text(MY_TASK + "# edited\n")
    assert "not the same code" in one_line_error(ccx, "verify", "--plugin", "my_task.py", "c.json")


def test_the_greedy_fooling_set_verifies(here, ccx_json):
    out = ccx_json(
        "--plugin", "my_task.py", "fooling", "--problem", "first-equals-last", "--length", "6"
    )
    assert out["method"] == "greedy" and out["verified"] and out["size"] == 3


def test_cc_oneway_gives_bits_per_cut(here, ccx_json):
    out = ccx_json(
        "--plugin",
        "my_task.py",
        "cc",
        "oneway",
        "--problem",
        "first-equals-last",
        "--length",
        "10",
    )
    assert out["per_cut"] == [{"cuts": [1, 9], "distinct_rows": 3, "bits": 2}]
    assert out["bits"] == 2 and out["automaton"] == "function"


def test_a_regular_task_at_a_million(here, ccx, ccx_json):
    Path("contains.py").write_text(CONTAINS)
    plugin = ("--plugin", "contains.py")
    out = ccx_json(*plugin, "cc", "oneway", "--problem", "contains-aba", "--length", "1000000")
    assert out["automaton"] == "dfa" and out["bits"] == 2
    assert out["per_cut"][2] == {"cuts": [3, 999998], "distinct_rows": 4, "bits": 2}
    out = ccx_json(
        *plugin,
        "fooling",
        "--problem",
        "contains-aba",
        "--length",
        "1000",
        "--partition",
        "prefix:500",
        "--certificate",
        "c.json",
    )
    assert (out["size"], out["bits"], out["verified"], out["exact"]) == (4, 2, True, True)
    assert ccx("verify", "--plugin", "contains.py", "c.json")[:2] == (
        0,
        "valid fooling_set certificate: at least 2 bits\n",
    )
    out = ccx_json(
        *plugin,
        "cc",
        "oneway",
        "--problem",
        "contains-aba",
        "--length",
        "1000",
        "--cut",
        "999",
        "--certificate",
        "w.json",
    )
    assert out["distinct_rows"] == 3 and ccx("verify", "--plugin", "contains.py", "w.json")[0] == 0


def test_a_palindrome_with_its_own_construction(here, ccx, ccx_json, monkeypatch):
    Path("palindrome.py").write_text(PALINDROME)
    plugin = ("--plugin", "palindrome.py")
    monkeypatch.setenv("CCX_WORK_BUDGET", "256M")
    out = ccx_json(
        *plugin, "fooling", "--problem", "palindrome", "--length", "64", "--partition", "prefix:32"
    )
    assert (out["method"], out["verified"], out["size"]) == ("construction", True, 323)
    err = one_line_error(ccx, *plugin, "cc", "oneway", "--problem", "palindrome", "--length", "24")
    assert "2^24 words" in err and "steps; the budget is" in err
    out = ccx_json(*plugin, "cc", "oneway", "--problem", "palindrome", "--length", "12")
    rows = [r["distinct_rows"] for r in out["per_cut"]]  # 2^K up to the middle, then 2^(N-K) + 1
    assert rows == [2, 4, 8, 16, 32, 64, 33, 17, 9, 5, 3]
    code, text, _ = ccx(*plugin, "cc", "oneway", "--problem", "palindrome", "--length", "12")
    assert code == 0 and "6\t64\t6" in text


@pytest.mark.parametrize("name", sorted(OTHER_TASKS))
def test_other_plugin_files(here, ccx, ccx_json, name):
    Path(f"{name}.py").write_text(OTHER_TASKS[name])
    plugin = ("--plugin", f"{name}.py")
    length = 6
    out = ccx_json(*plugin, "fooling", "--problem", name, "--length", str(length), "--exact")
    assert out["verified"] and out["exact"]
    oneway = ccx_json(*plugin, "cc", "oneway", "--problem", name, "--length", str(length))
    words = np.array(list(itertools.product(range(3 if name == "first-symbol" else 2), repeat=6)))
    cuts = [k for r in oneway["per_cut"] for k in range(r["cuts"][0], r["cuts"][1] + 1)]
    assert cuts == list(range(1, length)) and oneway["bits"] >= 1
    assert out["bits"] <= max(r["bits"] for r in oneway["per_cut"]) + 1
    assert len(words) > 0
    if name == "anbn":  # the one word a^3 b^3: a path of 7 states, and the sink
        dfa = ccx_json(*plugin, "dfa", "task", name, "--length", str(length))
        assert (dfa["states"], dfa["live_states"]) == (8, 7)
    if name == "first-symbol":
        assert "accept/reject" in one_line_error(ccx, *plugin, "dfa", "task", name, "--length", "4")


def test_train_sweep_threshold_figure(here, ccx, ccx_json):
    plugin = ("--plugin", "my_task.py")
    out = ccx_json(
        *plugin,
        "train",
        "--task",
        "first-equals-last",
        "--arch",
        "lstm",
        "--width",
        "8",
        "--length",
        "10",
        "--steps",
        "5",
        "--batch",
        "8",
    )
    assert out["config"]["task"] == "first-equals-last" and out["steps"] == 5
    Path("spec.toml").write_text(SPEC)
    code, _, err = ccx(*plugin, "sweep", "spec.toml", "--store", "s.db")
    assert code == 0, err
    err = one_line_error(ccx, "sweep", "spec.toml", "--store", "s.db")
    assert "first-equals-last" in err
    recurrent, attention = sorted(
        ccx_json(*plugin, "threshold", "--store", "s.db")["thresholds"], key=lambda r: r["arch"]
    )
    assert recurrent["bound_id"] == "separations.thm2" and recurrent["computed_bits"] == {"6": 2}
    assert recurrent["model_bits"] == {"6": 16 * 32}  # m p: h and c of width 8, 32 bits each
    # Thm 4 with Fact 4: the fooling set under prefix:3 has 3 pairs (first symbols a != b)
    assert attention["bound_id"] == "separations.thm4" and attention["computed_bits"] == {"6": 2}
    heads = attention["bound_params"]["H"]
    assert attention["bound_params"]["m"] == 8 // heads and attention["model_bits"]["6"] > 2
    assert ccx(*plugin, "figure", "thresholds", "--store", "s.db", "--out", "fig")[0] == 0
    with open("fig/thresholds.csv") as handle:
        series = {(r["series"], r["task"], r["bound_id"]) for r in csv.DictReader(handle)}
    for bound in ("separations.thm2", "separations.thm4"):
        assert ("bound", "first-equals-last", bound) in series
        assert ("empirical", "first-equals-last", bound) in series
    assert Path("fig/thresholds.png").stat().st_size > 0
    rows = ccx_json("threshold", "--store", "s.db")["thresholds"]  # the plugin not loaded
    assert [r["computed_bits"] for r in rows] == [None, None]
    assert rows[0]["bound_params"]["m"] == 16
    code, out, _ = ccx("runs", "--store", "s.db", "--json")
    listed = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and sorted(r["arch"] for r in listed) == ["lstm", "transformer"]
    assert all(r["task"] == "first-equals-last" and "config" in r for r in listed)
    code, out, _ = ccx("runs", "--store", "s.db", "--arch", "lstm")
    assert code == 0 and out.splitlines()[0] == "1 runs in s.db" and "\tlstm\t" in out
    assert all(len(line) < 200 for line in out.splitlines())  # plain rows, never padded


def test_a_users_model_trains_and_runs_the_one_way_protocol(here, ccx_json):
    plugin = ("--plugin", "my_model.py")
    trained = ccx_json(
        *plugin,
        "train",
        "--task",
        "dyck",
        "--arch",
        "my-rnn",
        "--width",
        "8",
        "--length",
        "8",
        "--steps",
        "10",
        "--batch",
        "16",
    )
    assert trained["state_numel"] == 8
    for model in (("--arch", "my-rnn", "--width", "8"), ("--checkpoint", trained["checkpoint"])):
        run = ccx_json(
            *plugin,
            "protocol",
            "rnn",
            *model,
            "--length",
            "8",
            "--cut",
            "3",
            "--precision",
            "16",
            "--samples",
            "20",
        )
        assert (run["arch"], run["bits_sent"], run["one_way"]) == ("my-rnn", 8 * 16, True)
        assert run["agreement"] == 1.0 and run["logits_exact"] == 1.0


def test_claims_and_the_refusals(here, ccx, ccx_json):
    plugin = ("--plugin", "my_task.py")
    out = ccx_json(*plugin, "claims", "--task", "first-equals-last")
    assert [c["bound_id"] for c in out["claims"]] == [
        "separations.thm2",
        "separations.thm4",
        "separations.fact4",
    ]
    Path("shadow.py").write_text(MY_TASK.replace("first-equals-last", "dyck"))
    assert "shadow" in one_line_error(
        ccx, "--plugin", "shadow.py", "dfa", "dyck", "--types", "1", "--depth", "1"
    )
    assert "--length" in one_line_error(
        ccx, *plugin, "fooling", "--problem", "first-equals-last", "--half", "3"
    )
    assert "no loaded plugin" in one_line_error(
        ccx,
        "train",
        "--task",
        "first-equals-last",
        "--arch",
        "lstm",
        "--width",
        "8",
        "--length",
        "4",
    )
    assert "--plugin needs" in one_line_error(ccx, "--plugin")
    Path("spec.toml").write_text(SPEC)
    err = one_line_error(ccx, *plugin, "sweep", "spec.toml", "--store", "s.db", "--backend", "ray")
    assert "local backend" in err and not Path("s.db").exists()


def test_attention_protocol_on_a_transformer_trained_on_a_plugin_task(here, ccx, ccx_json):
    plugin = ("--plugin", "my_task.py")
    trained = ccx_json(
        *plugin,
        "train",
        "--task",
        "first-equals-last",
        "--arch",
        "transformer",
        "--width",
        "8",
        "--heads",
        "2",
        "--length",
        "6",
        "--steps",
        "5",
        "--batch",
        "16",
    )
    args = ("protocol", "attention", "--checkpoint", trained["checkpoint"], "--length", "6",
            "--partition", "odd-even", "--precision", "16", "--samples", "10")  # fmt: skip
    run = ccx_json(*plugin, *args)
    assert (run["vocab_size"], run["agreement"], run["logits_exact"]) == (3, 1.0, 1.0)
    assert "first-equals-last" in one_line_error(ccx, *args)


PLANTED = """open("planted_was_imported", "w").close()
import numpy as np
from ccomplexity.plugins import task

@task(name="planted-task", alphabet=2, lengths=(2, 16))
def planted(words):
    return words[:, 0].astype(np.int8)
"""


def test_python_m_ccx_never_imports_code_from_the_working_folder(here, ccx):
    """A dist-info and its module planted in the working folder, data files naming its task:
    ``python -m ccx`` (the working folder first on Python's path) never imports the module,
    opted in to entry points or not, and refuses each file in one line."""
    import subprocess
    import sys

    from simulations.store import Store

    Path("planted.py").write_text(PLANTED)
    info = here / "planted-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: planted\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ccomplexity.tasks]\nplanted-task = planted\n")
    Path("torch.py").write_text(PLANTED)  # a module the toolkit imports later, by name
    Path("spec.toml").write_text(SPEC.replace("first-equals-last", "planted-task"))
    run = dict(
        config={
            "task": "planted-task",
            "arch": "lstm",
            "width": 8,
            "layers": 1,
            "length": 4,
            "lr": 0.01,
            "seed": 0,
        },
        config_hash="p1",
        accuracy=0.5,
        best_accuracy=0.5,
    )
    with Store("s.db") as store:
        store.add_run(run)
    Path("my_task.py").write_text(MY_TASK.replace("first-equals-last", "planted-task"))
    code, _, err = ccx(
        "--plugin",
        "my_task.py",
        "fooling",
        "--problem",
        "planted-task",
        "--length",
        "4",
        "--certificate",
        "cert.json",
    )
    assert code == 0, err
    Path("planted_was_imported").unlink(missing_ok=True)
    root = str(Path(__file__).resolve().parents[2])
    env = {k: v for k, v in os.environ.items() if k != "CCX_ENTRY_POINTS"}
    for args, names in [
        (["verify", "cert.json"], "planted-task"),
        (["--entry-points", "sweep", "spec.toml", "--store", "new.db", "--dry-run"], "planted"),
        (["--entry-points", "threshold", "--store", "s.db", "--json"], None),
    ]:
        proc = subprocess.run(
            [sys.executable, "-m", "ccx", *args],
            cwd=here,
            text=True,
            capture_output=True,
            env={**env, "PYTHONPATH": root},
            timeout=120,
        )
        assert "Traceback" not in proc.stderr and not Path("planted_was_imported").exists(), (
            args,
            proc.stderr,
        )
        if names is not None:
            assert proc.returncode == 2 and names in proc.stderr, (args, proc.stderr)
            assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        else:
            assert proc.returncode == 0, proc.stderr


BROKEN = """import numpy as np
from ccomplexity.plugins import task

def draw(batch, length, rng):
    raise KeyError("no\\nsampler \\x1b[31mhere")

@task(name="broken", alphabet=2, lengths=(2, 16), sampler=draw)
def broken(words):
    if words.shape[1] > 4:
        return 1 / 0
    return words[:, 0].astype(np.int8)
"""


def test_plugin_code_raising_when_called_is_one_line_naming_it(here, ccx, monkeypatch):
    """A plugin's word function, sampler or model raising, or exiting, at any point: one line
    naming the plugin, its function and the exception (control characters escaped), exit 2;
    ``--debug`` shows the traceback."""
    Path("broken.py").write_text(BROKEN)
    plugin = ("--plugin", "broken.py")
    err = one_line_error(ccx, *plugin, "cc", "oneway", "--problem", "broken", "--length", "6")
    assert "plugin broken.py: broken raised ZeroDivisionError: division by zero" in err
    err = one_line_error(ccx, *plugin, "task", "broken", "--length", "4", "--train")
    assert "plugin broken.py: draw raised KeyError: 'no\\nsampler \\x1b[31mhere'" in err
    with pytest.raises(ZeroDivisionError):
        main(["--debug", *plugin, "cc", "oneway", "--problem", "broken", "--length", "6"])
    monkeypatch.setenv("CCX_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        main([*plugin, "cc", "oneway", "--problem", "broken", "--length", "6"])
    monkeypatch.delenv("CCX_DEBUG")
    Path("exits.py").write_text("raise SystemExit(0)\n")
    err = one_line_error(
        ccx,
        "--plugin",
        "exits.py",
        "dyck",
        "count",
        "--types",
        "1",
        "--depth",
        "1",
        "--length",
        "2",
    )
    assert "plugin exits.py failed: SystemExit: 0" in err
    Path("quits.py").write_text(BROKEN.replace("return 1 / 0", "raise SystemExit(0)"))
    err = one_line_error(
        ccx, "--plugin", "quits.py", "cc", "oneway", "--problem", "broken", "--length", "6"
    )
    assert "plugin quits.py: broken raised SystemExit" in err
    Path("model.py").write_text(
        MY_MODEL.replace('    """Elman RNN. State: h, width numbers."""\n', "").replace(
            "        return self.run_steps(tokens)[0]", "        raise RuntimeError('in forward')"
        )
    )
    code, out, err = ccx("--plugin", "model.py", "models", "--json")  # no docstring: no line
    assert code == 0 and '"name": "my-rnn"' in out, err
    args = ("--task", "dyck", "--arch", "my-rnn", "--width", "4", "--length", "4", "--steps", "2")
    err = one_line_error(ccx, "--plugin", "model.py", "train", *args, "--json")
    assert "plugin model.py: forward raised RuntimeError: in forward" in err


def test_runs_are_never_read_beside_another_plugins_bound(here, ccx, ccx_json):
    plugin = ("--plugin", "my_task.py")
    Path("spec.toml").write_text(SPEC)
    assert ccx(*plugin, "sweep", "spec.toml", "--store", "s.db")[0] == 0
    assert ccx_json(*plugin, "threshold", "--store", "s.db")["thresholds"]
    Path("my_task.py").write_text(MY_TASK.replace("== words[:, -1]", "!= words[:, -1]"))
    err = one_line_error(ccx, *plugin, "threshold", "--store", "s.db")
    assert "was trained by 'my_task.py' (sha256" in err and "load the plugin that trained" in err
    err = one_line_error(ccx, *plugin, "figure", "thresholds", "--store", "s.db", "--out", "f")
    assert "load the plugin that trained" in err and not Path("f/thresholds.png").exists()
    Path("other.toml").write_text(SPEC.replace("[grid]", "[grid]\nseed = [1]"))
    assert ccx(*plugin, "sweep", "other.toml", "--store", "s.db")[0] == 0  # by the edited code
    err = one_line_error(ccx, "threshold", "--store", "s.db")  # no plugin loaded
    assert "were trained by different plugin code" in err


def _ctrl_c_as_at_a_terminal() -> None:
    """In the child before it runs: SIGINT at its default and not blocked, as a program started
    at a terminal has it, whatever the test worker's thread inherited (a worker thread may block
    it, and a blocked or ignored SIGINT passes both on to the child)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_ctrl_c_while_a_plugin_loads_is_one_line_and_exit_130(here):
    import signal
    import subprocess
    import sys
    import time

    Path("slow.py").write_text("open('loading', 'w').close()\nimport time\ntime.sleep(60)\n")
    root = str(Path(__file__).resolve().parents[2])
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ccx",
            "--plugin",
            "slow.py",
            "dyck",
            "count",
            "--types",
            "1",
            "--depth",
            "1",
            "--length",
            "2",
        ],
        cwd=here,
        env={**os.environ, "PYTHONPATH": root},
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ctrl_c_as_at_a_terminal,
    )
    for _ in range(2400):  # start-up imports the registries (torch): slow on a loaded machine
        if Path("loading").exists() or proc.poll() is not None:
            break
        time.sleep(0.05)
    if not Path("loading").exists():
        proc.kill()
        pytest.fail("the plugin did not start loading within 120 s")
    proc.send_signal(signal.SIGINT)  # while the plugin loads, never during start-up's imports
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.startswith("ccx: interrupted"), err
    assert len(err.strip().splitlines()) == 1, err
