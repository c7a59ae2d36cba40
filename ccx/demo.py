"""``make demo``: each paper's share, then every figure in one report.

A paper's share (:data:`SHARES`) runs its bounds, constructions and protocols and a short
training slice, and returns its results store; the report draws each paper's figures from its
own store. The separations paper's share: (1) run a slice of the ``quick`` profile
(:func:`separations_slice`) into ``results/quick.db`` (runs already stored are skipped, so an
interrupted demo resumes, and ``ccx sweep --profile quick`` later adds the rest; the trained
models go to ``results/quick_checkpoints/``); (2) run the simulation protocols on
trained checkpoints of that store (:func:`protocol_runs`): Thm 2's one-way protocol on the LSTM
trained on Dyck-(2,2) at the largest N, and the bits that LSTM actually uses at the cut; Thm 4's
two-way and single-output protocols with the odd/even split on the one-layer transformer
trained on Dyck-(2,2) at the largest N (else on index lookup, over its first N tokens, an even
number); the Dyck reduction (Lemma 1's fooling set through the single-output protocol; Thm 2 at
the middle cut) on both Dyck models at the largest N it takes; each writes its JSON result under
``results/protocols/`` and prints one line; (3) write and independently re-check certificates
of the lower bounds behind Thm 5 (Dyck-(2,2), Lemma 1, N = 1000, symbolic), Thm 11 (equality,
Fact 2) and Thm 8 (disjointness) with ``ccx fooling --certificate`` and ``ccx verify``; (4)
draw every figure and ``results/report/index.html``. The other papers' shares are described in
their functions. Run as ``python -m ccx.demo``.

The module stays whole (about 530 lines): the demo is one script, each paper's share a
function in the order it runs, with the expected times the progress line paces by.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import sys
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

from ccomplexity.errors import InputError
from ccomplexity.files import atomic_open

PROFILE = "quick"
RESULTS = Path("results")
CERTIFICATES: dict[str, list[str]] = {
    "dyck_2_2_N1000": ["--problem", "dyck", "--types", "2", "--depth", "2", "--length", "1000"],
    "equality_H10": ["--problem", "equality", "--half", "10", "--alphabet", "2"],
    "disjointness_H10": ["--problem", "disjointness", "--half", "10"],
}


PROTOCOL_PRECISION = 22
"""Bits per number of the protocol runs. The finite-precision mode is exact in float64 up to 23
bits for an LSTM of width 64 (its sums of 130 products must stay below 2^53), and Thm 4's
softmax sum needs N * 2^(p // 2) < 2^(p - 1), so N < 1024 tokens at p = 22: every quick-profile
model fits, and the protocols reproduce the models' logits bit for bit."""
PROTOCOL_SAMPLES = 100
"""Uniformly random token sequences per protocol run."""
BITS_USED_SAMPLES = 128
"""Test inputs of the training task for ``bits_used``: as many as the ``protocols`` figure's
panel (b) takes (``paper_figures.protocols.BITS_SAMPLES``), so that the numbers this log prints
are the ones the figure draws."""
REDUCTION_SAMPLES = 200
"""Fooling-set members (and as many crossed pairs), or words, per Dyck reduction run."""


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` atomically (temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, what="demo file") as handle:
        json.dump(data, handle, indent=2)
        handle.write("\n")


def _pick(
    store: Path, arch: str, layers: int, tasks: tuple[str, ...], longest: int | None = None
) -> tuple[dict[str, Any], str] | None:
    """The run of ``arch`` with ``layers`` layers on one of ``tasks`` at the largest length (at
    most ``longest``) whose checkpoint is on disk (best accuracy among equals), and that
    checkpoint's path."""
    from simulations.store import runs
    from simulations.sweeps import checkpoint_folder

    found = []
    for run in runs(store, arch=arch, layers=layers, task=list(tasks)):
        if not run["checkpoint"] or (longest is not None and run["length"] > longest):
            continue
        path = Path(run["checkpoint"])
        if not path.is_file():  # stored relative to another directory: look beside the store
            path = checkpoint_folder(store) / path.name
        if path.is_file():
            found.append((run["length"], run["best_accuracy"], run, str(path)))
    if not found:
        return None
    _, _, run, path = max(found, key=lambda f: (f[0], f[1]))
    return run, path


def protocol_runs(store: str | Path, out_dir: str | Path = RESULTS / "protocols") -> list[Path]:
    """Run the protocols on the store's trained checkpoints; write one JSON result per run into
    ``out_dir`` and print one line each. A model missing from the store is reported and
    skipped, as is a run the model does not allow (an InputError); returns the files written."""
    runs = _ProtocolRuns(Path(store), Path(out_dir))
    runs.lstm()
    runs.transformer()
    for arch in ("transformer", "lstm"):
        runs.reduce_dyck(arch)
    return runs.written


class _ProtocolRuns:
    """The demo's protocol runs on the checkpoints of one store, each written as JSON."""

    def __init__(self, store: Path, out_dir: Path) -> None:
        self.store, self.out_dir = store, out_dir
        self.p = PROTOCOL_PRECISION
        self.written: list[Path] = []

    def one(self, name: str, command: str, run: Callable[[], dict[str, Any]], line: str) -> None:
        print(f"  $ ccx {command} --json > {self.out_dir / name}.json", flush=True)
        try:
            result = run()
        except InputError as err:
            print(f"  skipped: {err}", flush=True)
            return
        _write_json(self.out_dir / f"{name}.json", result)
        self.written.append(self.out_dir / f"{name}.json")
        print("  " + line.format(**result), flush=True)

    def reduce_dyck(self, arch: str) -> None:
        from simulations.protocols.reductions import LENGTH_LIMIT, run_reduction

        picked = _pick(self.store, arch, 1, ("dyck",), longest=LENGTH_LIMIT)
        if picked is None:
            print(f"  no {arch} checkpoint on dyck with N <= {LENGTH_LIMIT}: no reduction")
            return
        run, path = picked
        p = self.p
        self.one(
            f"reduce_dyck_{arch}_N{run['length']}",
            f"protocol reduce --reduction dyck --checkpoint {path} --precision {p} "
            f"--samples {REDUCTION_SAMPLES}",
            lambda: run_reduction("dyck", None, None, None, p, 0, REDUCTION_SAMPLES, path),
            f"Dyck reduction on the trained {arch} "
            + "(N = {length}, {claim[bound_id]}): {bits_sent} bits sent against "
            "{lower_bound_bits} needed, protocol agreement {protocol_agreement:.3f}, "
            "solved {solved_fraction:.3f} of {instances} instances",
        )

    def lstm(self) -> None:
        from simulations.protocols.bits_used import bits_used
        from simulations.protocols.requests import RnnProtocolRequest
        from simulations.protocols.rnn import run_rnn_protocol

        picked = _pick(self.store, "lstm", 1, ("dyck",))
        if picked is None:
            print(f"  no LSTM checkpoint on dyck in {self.store}: skipping its protocols")
            return
        run, path = picked
        n, p = run["length"], self.p
        cut = n // 2 - (n // 2) % 2
        request = RnnProtocolRequest(
            length=n, cut=cut, precision=p, samples=PROTOCOL_SAMPLES, checkpoint=path
        )
        self.one(
            f"rnn_lstm_dyck_N{n}",
            f"protocol rnn --checkpoint {path} --length {n} --cut {cut} --precision {p} "
            f"--samples {PROTOCOL_SAMPLES}",
            lambda: run_rnn_protocol(request),
            "Thm 2 on the LSTM (dyck, N = {length}, cut {cut}): {bits_sent} bits sent "
            "(m p = {state_numel} x {precision}), agreement {agreement:.3f}, "
            "logits exact {logits_exact:.3f}",
        )
        self.one(
            f"bits_used_lstm_dyck_N{n}",
            f"protocol bits-used --checkpoint {path} --cut {cut} --samples {BITS_USED_SAMPLES}",
            lambda: bits_used(cut=cut, samples=BITS_USED_SAMPLES, checkpoint=path),
            "bits used by the LSTM (dyck, N = {length}, cut {cut}): {bits_used} "
            "(p = {smallest_full_agreement_precision} x m = {state_numel}), log2 distinct "
            "states {log2_distinct_states:.1f}, one-way lower bound "
            "{one_way_lower_bound_bits} bits, model accuracy {task_accuracy:.3f}",
        )

    def transformer(self) -> None:
        from simulations.protocols.attention import run_attention_protocol
        from simulations.protocols.requests import AttentionProtocolRequest

        picked = _pick(self.store, "transformer", 1, ("dyck",)) or _pick(
            self.store, "transformer", 1, ("index-lookup",)
        )
        if picked is None:
            print(f"  no one-layer transformer checkpoint in {self.store}: skipping", flush=True)
            return
        run, path = picked
        task, p = run["task"], self.p
        tokens = run["length"] - run["length"] % 2  # the odd/even split needs an even length
        for variant, flag, suffix in (
            ("two-way", "", ""),
            ("single-output", " --single-output", "_single_output"),
        ):
            request = AttentionProtocolRequest(
                length=tokens,
                partition="odd-even",
                precision=p,
                samples=PROTOCOL_SAMPLES,
                checkpoint=path,
                variant=variant,
            )
            self.one(
                f"attention_transformer_{task}_N{run['length']}{suffix}",
                f"protocol attention --checkpoint {path} --length {tokens} --partition odd-even "
                f"--precision {p} --samples {PROTOCOL_SAMPLES}{flag}",
                functools.partial(run_attention_protocol, request),
                f"Thm 4 {variant} on the one-layer transformer ({task}, "
                + "{length} tokens, odd/even): {bits_sent} bits sent (Thm 4 closed form "
                "{bits_paper_formula:.0f}), agreement {agreement:.3f}, "
                "logits exact {logits_exact:.3f}",
            )


def _ccx(*args: str, keys: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """Run one ``ccx`` command in this process; InputError if it fails. A ``--json`` command's
    output is read, not echoed: one line of its headline numbers (``keys``, else every number) is
    printed (:func:`summary`), and the parsed result returned."""

    from ccx import main as ccx

    print(f"$ ccx {' '.join(args)}", flush=True)
    if "--json" not in args:
        code, result = ccx(list(args)), None
    else:
        buffer = io.StringIO()
        with redirect_stdout(buffer):
            code = ccx(list(args))
        result = json.loads(buffer.getvalue()) if code == 0 else None
    if code != 0:
        raise InputError(f"`ccx {' '.join(args)}` exited with status {code}")
    if result is not None:
        print(f"    {summary(result, keys)}", flush=True)
    return result


SUMMARY_WIDTH = 160
"""The longest one-line summary of a command's JSON result."""


def summary(result: dict[str, Any], keys: tuple[str, ...] = ()) -> str:
    """One line of a JSON result: ``keys`` where given, else its numbers and flags, then its
    short words (``rounds 7, accuracy 1, ..., bound looped.cor2_3``), cut at
    :data:`SUMMARY_WIDTH` characters."""
    numbers, words = [], []
    for key, value in result.items():
        if keys and key not in keys:
            continue
        if isinstance(value, float):
            numbers.append(f"{key} {value:.4g}")
        elif isinstance(value, bool | int):
            numbers.append(f"{key} {value}")
        elif isinstance(value, str) and len(value) <= 24:
            words.append(f"{key} {value}")
        elif keys and isinstance(value, list):
            numbers.append(f"{key}: {len(value)}")
    line = ", ".join([*numbers, *words])
    return line if len(line) <= SUMMARY_WIDTH else line[: SUMMARY_WIDTH - 3] + "..."


def separations_slice(config: Any) -> bool:
    """The demo's training slice of the ``quick`` profile: every run at N = 20 (Figs. 2-4 and the
    width grid of Fig. 3 there, each model with the profile's budget) but Mamba of width 128
    (a minute and a half of one core, the slice's costliest run), and at N = 50 the one-layer
    transformer and the LSTM of width 64 on index lookup, the separation of Fig. 2(a) at equal
    steps (the rest runs with ``ccx sweep --profile quick``)."""
    model, length = config.model, config.task.length
    if length <= 20:
        return not (model.arch == "mamba" and model.width == 128)
    return (
        config.task.name == "index-lookup"
        and length == 50
        and model.width == 64
        and model.arch in ("transformer", "lstm")
    )


def train_slice(profile: str, keep: Callable[[Any], bool], what: str, **changes: Any) -> str:
    """Train the runs of ``profile`` that ``keep`` picks (``changes``: other fields of the
    sweep spec, e.g. a capacity search's ``grow``) into the profile's own store, the same runs
    as the full profile's, so that ``ccx sweep --profile`` later adds the rest; returns the
    store."""

    from paper_figures import profile_store
    from simulations.sweeps import load_spec, run_sweep

    spec = load_spec(profile)
    part = dataclasses.replace(spec, configs=tuple(c for c in spec.configs if keep(c)), **changes)
    store = profile_store(profile)
    print(
        f"  {what}, a slice of {profile!r}: {len(part.configs)} of its {len(spec.configs)} "
        f"runs into {store} (resumes if interrupted)",
        flush=True,
    )
    run_sweep(part, store)
    return str(store)


def separations_share() -> dict[str, str]:
    """The separations paper's share: a slice of the quick sweep (:func:`separations_slice`),
    protocols on its checkpoints, and the certified lower bounds. Returns {paper: store} for
    the report."""
    store = train_slice(PROFILE, separations_slice, "training")
    print(f"  protocols on trained checkpoints, p = {PROTOCOL_PRECISION}", flush=True)
    protocol_runs(store, RESULTS / "protocols")
    print("  certify the headline lower bounds", flush=True)
    folder = RESULTS / "certificates"
    folder.mkdir(parents=True, exist_ok=True)
    for name, args in CERTIFICATES.items():
        path = str(folder / f"{name}.json")
        _ccx("fooling", *args, "--certificate", path)
        _ccx("verify", path)
    return {"separations": str(store), "bite": bite_slice()}


BITE_PROFILE = "bite"


def bite_part(config: Any) -> bool:
    """The demo's slice of the ``bite`` profile, one learning rate and one seed: the GRU of
    state 2 x 2 bits on index lookup at every length it is tried at (its wall: N = 4), and the
    one-layer transformer of width 1 at 2 bits on Dyck-(2,2) at N = 6 and 10 (its wall: 20)."""
    model, n = config.model, config.task.length
    gru = (model.arch, model.width, model.precision) == ("gru", 2, 2)
    transformer = (model.arch, model.width, model.precision) == ("transformer", 1, 2) and n <= 10
    return (gru or transformer) and config.seed == 0 and config.recipe.lr == 1e-2


def bite_slice() -> str:
    """Train the demo's slice of the ``bite`` profile (:func:`bite_part`) into its own store,
    then check that no run beat its own wall (``ccx threshold --check``); returns the store."""
    store = train_slice(BITE_PROFILE, bite_part, "models trained at p bits")
    _ccx("threshold", "--store", store, "--check", "--json", keys=("checked",))
    return store


PARROTS_PROFILE = "parrots"
PARROTS_COMMANDS: dict[str, tuple[str, ...]] = {
    "bound_thm3_1": ("bound", "--theorem", "parrots.thm3_1", "--vertices", "256",
                     "--precision", "16"),
    "bound_cor3_3": ("bound", "--theorem", "parrots.cor3_3", "--vertices", "64", "--experts",
                     "16", "--precision", "16"),
    "construct_length2_path": ("construct", "--task", "length2-path", "--vertices", "20",
                               "--samples", "2000"),
    "construct_memorize_dense": ("construct", "--task", "memorize", "--examples", "1000",
                                 "--dim", "128", "--trials", "5"),
    "construct_memorize_moe": ("construct", "--task", "memorize", "--examples", "1000",
                               "--dim", "128", "--experts", "32", "--trials", "5"),
    "protocol_length2_path_moe": ("protocol", "attention", "--one-way", "--task",
                                  "length2-path", "--vertices", "32", "--arch", "moe",
                                  "--experts", "4", "--width", "8", "--heads", "2",
                                  "--precision", "16", "--samples", "100"),
    "reduce_length2_path_moe": ("protocol", "reduce", "--reduction", "length2-path",
                                "--vertices", "64", "--arch", "moe", "--experts", "4",
                                "--width", "2", "--heads", "1", "--precision", "8",
                                "--samples", "200"),
}  # fmt: skip
"""The mixture-of-parrots share's exact part: bounds, constructions, the protocol, the
reduction; each writes ``results/parrots/<command>.json``."""


def parrots_slice(config: Any) -> bool:
    """The demo's training slice of the ``parrots`` profile, at lr :data:`PARROTS_DEMO_LR` and
    seed 0: length-2 path at |V| = 4 (every width, dense and with experts, for panels (a) and
    (b), and Cor 3.3's parameter-matched models for panel (c)), and memorisation up to n = 256
    (the rest runs with ``ccx sweep --profile parrots``)."""
    if config.recipe.lr != PARROTS_DEMO_LR or config.seed != 0:
        return False
    if config.task.name == "length2-path":
        return config.task.length == 4
    return config.task.length <= 256


PARROTS_DEMO_LR = 1e-2
"""The learning rate of the demo's parrots runs (the larger of the profile's two)."""


def parrots_share() -> dict[str, str]:
    """The mixture-of-parrots share: the bounds, the constructions (Thm 3.2, A.11, A.12), the
    bit-exact one-way protocol and the DISJ reduction on MoE models (JSON under
    ``results/parrots/``), then a slice of the ``parrots`` profile into ``results/parrots.db``
    (the same runs as the full profile, so ``ccx sweep --profile parrots`` later adds the rest).
    About 2 minutes on 2 cores."""
    folder = RESULTS / "parrots"
    for name, args in PARROTS_COMMANDS.items():
        result = _ccx(*args, "--json", keys=PARROTS_SHOWN)
        assert result is not None
        _write_json(folder / f"{name}.json", result)
    return {"parrots": train_slice(PARROTS_PROFILE, parrots_slice, "training")}


PARROTS_SHOWN = ("min_width", "moe_width_numeric", "accuracy", "success_rate",
                 "max_expert_load", "min_expert_load", "bits_sent", "agreement", "logits_exact",
                 "below_lower_bound", "errors")  # fmt: skip


LOOPED_PROFILE = "looped-demo"
LOOPED_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("bound", "--theorem", "looped.thm2_1", "--group", "S5", "--length", "256", "--json"),
    ("bound", "--theorem", "looped.cor2_3", "--hops", "32", "--json"),
    ("looped", "rounds", "--task", "group-composition", "--group", "S5", "--length", "300",
     "--json"),
    ("looped", "rounds", "--task", "p-hop", "--hops", "32", "--length", "256", "--json"),
    ("construct", "--task", "group-composition", "--group", "A5", "--length", "64",
     "--samples", "100", "--json"),
    ("construct", "--task", "group-composition", "--group", "A5", "--length", "64",
     "--loops", "5", "--samples", "100", "--json"),
    ("dfa", "group", "--group", "A5", "--json"),
    ("dfa", "addition", "--operands", "32", "--json"),
    ("looped", "comm", "--task", "p-hop", "--alphabet", "2", "--length", "10", "--hops", "3"),
)  # fmt: skip
"""The looped paper's exact side: its bounds, the round-counting simulators, Thm 2.1 as weights
(with ceil(lg n) loops and one fewer), the automata and a per-cut communication table."""


def looped_share() -> dict[str, str]:
    """The looped paper's share: the commands of :data:`LOOPED_COMMANDS`, then the short
    ``looped-demo`` training slice (loops against p on p-hop and n on S3 composition, both
    grids of Table 1, the block-cosine regulariser). Returns {paper: store}."""
    from paper_figures import profile_store

    for args in LOOPED_COMMANDS:
        _ccx(*args)
    store = profile_store(LOOPED_PROFILE)
    print(f"  sweep {LOOPED_PROFILE!r} into {store} (resumes if interrupted)", flush=True)
    _ccx("sweep", "--profile", LOOPED_PROFILE, "--store", str(store))
    return {"looped": str(store)}


KG_PROFILE = "kg"
KG_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("bound", "--theorem", "kg.lemma_b18", "--entities", "128", "--permutations", "8", "--json"),
    ("bound", "--theorem", "kg.thm_b19", "--entities", "128", "--relations", "8", "--hops", "3",
     "--layers", "2", "--json"),
    ("construct", "--task", "kg-path", "--entities", "32", "--relations", "4", "--hops", "4",
     "--samples", "500", "--seed", "0", "--json"),
    ("construct", "--task", "kg-path", "--entities", "64", "--relations", "8", "--hops", "3",
     "--experts", "23", "--samples", "500", "--seed", "0", "--json"),
    ("dfa", "kg", "--entities", "32", "--relations", "4", "--seed", "0", "--json"),
)  # fmt: skip
"""The layer-looping paper's exact side: Lemma B.18 and Thm B.19, the three constructions
(standard and looped, then looped with experts) checked on random queries, the query automaton."""


KG_GROW_TO = 8
"""The demo grows its graphs to R = 8 at most (two graphs per model); the full profile goes on to
64 from the same stored runs."""


def kg_slice(config: Any) -> bool:
    """The demo's models of the ``kg`` capacity search, one panel per q, at the larger learning
    rate and seed 0: at q = 1 the standard model and the looped-MoE at width 8; at q = 2 and 3
    the smallest parameter-matched trio, the standard model at its smallest width and the
    looped and looped-MoE at width 14 (the rest runs with ``ccx sweep --profile kg``)."""
    if config.task.length == 1:
        widths: tuple[int, ...] = (8,)
    else:
        widths = (10, 8) if config.model.arch == "transformer" else (14,)
    return config.model.width in widths and config.recipe.lr == KG_DEMO_LR and config.seed == 0


KG_DEMO_LR = 3.16e-3
"""The learning rate of the demo's runs (the larger of the ``kg`` profile's two)."""


def kg_share() -> dict[str, str]:
    """The layer-looping paper's share: the commands of :data:`KG_COMMANDS`, then the capacity
    search of the ``kg`` profile for the models of :func:`kg_slice`, up to R = :data:`KG_GROW_TO`,
    into ``results/kg.db`` (the same runs as the full profile's, so ``ccx sweep --profile kg``
    later adds the rest)."""

    from simulations.sweeps import load_spec

    for args in KG_COMMANDS:
        _ccx(*args)
    grow = dataclasses.replace(load_spec(KG_PROFILE).grow, to=KG_GROW_TO)
    return {"kg": train_slice(KG_PROFILE, kg_slice, "capacity search", grow=grow)}


SHARES: dict[str, Callable[[], dict[str, str]]] = {
    "separations": separations_share,
    "parrots": parrots_share,
    "looped": looped_share,
    "kg": kg_share,
}
"""Paper -> its share of the demo (bounds, constructions, protocols, a short training slice),
returning {paper: results store} for the report's figures. A paper adds one entry."""


EXPECTED_SECONDS: dict[str, float] = {
    "separations": 135.0,
    "parrots": 62.0,
    "looped": 21.0,
    "kg": 104.0,
    "figures and report": 18.0,
}
"""Seconds each part of the demo took on an idle 2-core machine, the last time it was measured
(``docs/cli.md``, "The demo"): the progress lines' expectations and ETA start from these and
follow the machine's pace."""


def main() -> int:
    """Run the demo; return the exit status (0 on success, 2 on a one-line error)."""
    from ccx.progress import Progress, clock
    from paper_figures.report import write_report

    progress = Progress(EXPECTED_SECONDS)
    stores: dict[str, str] = {}
    try:
        with progress.watching():
            for paper, share in SHARES.items():
                with progress.step(paper):
                    stores.update(share())
            with progress.step("figures and report"):
                index = write_report(RESULTS / "report", stores=stores)
    except InputError as err:
        print(f"demo: error: {err}", file=sys.stderr)
        return 2
    print(f"\nReport: {index.resolve()}  ({clock(time.monotonic() - progress.start)})")
    print(f"Certificates: {(RESULTS / 'certificates').resolve()}")
    print(f"Protocol runs: {(RESULTS / 'protocols').resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
