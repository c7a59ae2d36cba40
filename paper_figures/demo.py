"""``make demo``: each paper's share, then every figure in one report.

A paper's share (:data:`SHARES`) runs its bounds, constructions and protocols and a short
training slice, and returns its results store; the report draws each paper's figures from its
own store. The separations paper's share: (1) run the ``quick`` profile into
``results/quick.db`` (runs already stored are skipped, so an interrupted demo resumes; the
trained models go to ``results/quick_checkpoints/``);
(2) run the simulation protocols on trained checkpoints of that store (:func:`protocol_runs`):
Thm 2's one-way protocol on the LSTM trained on Dyck-(2,2) at the largest N, Thm 4's protocol
with the odd/even split on the one-layer transformer trained on Dyck-(2,2) at the largest N
(else on index lookup, over its first N tokens, an even number), and the bits that LSTM
actually uses at the cut; each writes its JSON result under ``results/protocols/`` and prints
one line; (3) write and independently re-check certificates of the lower bounds behind Thm 5
(Dyck-(2,2), Lemma 1, N = 1000, symbolic), Thm 11 (equality, Fact 2) and Thm 8
(disjointness) with ``ccx fooling --certificate`` and ``ccx verify``; (4) draw every figure
and ``results/report/index.html``.  About 12 minutes on 2 cores, almost all of it the sweep.
Run as ``python -m paper_figures.demo``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
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
BITS_USED_SAMPLES = 500
"""Test inputs of the training task for ``bits_used``."""


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` atomically (temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path) as handle:
        json.dump(data, handle, indent=2)
        handle.write("\n")


def _pick(
    store: Path, arch: str, layers: int, tasks: tuple[str, ...]
) -> tuple[dict[str, Any], str] | None:
    """The run of ``arch`` with ``layers`` layers on one of ``tasks`` at the largest length whose
    checkpoint is on disk (best accuracy among equals), and that checkpoint's path."""
    from simulations.store import runs
    from simulations.sweeps import checkpoint_folder

    found = []
    for run in runs(store, arch=arch, layers=layers, task=list(tasks)):
        if not run["checkpoint"]:
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
    from simulations.protocols.attention import run_attention_protocol
    from simulations.protocols.bits_used import bits_used
    from simulations.protocols.rnn import run_rnn_protocol

    store, out_dir = Path(store), Path(out_dir)
    p = PROTOCOL_PRECISION
    written: list[Path] = []

    def one(name: str, command: str, run: Callable[[], dict[str, Any]], line: str) -> None:
        print(f"  $ ccx {command} --json > {out_dir / name}.json", flush=True)
        try:
            result = run()
        except InputError as err:
            print(f"  skipped: {err}", flush=True)
            return
        _write_json(out_dir / f"{name}.json", result)
        written.append(out_dir / f"{name}.json")
        print("  " + line.format(**result), flush=True)

    lstm = _pick(store, "lstm", 1, ("dyck",))
    if lstm is None:
        print(f"  no LSTM checkpoint on dyck in {store}: skipping its protocols", flush=True)
    else:
        run, path = lstm
        n = run["length"]
        cut = n // 2 - (n // 2) % 2
        one(
            f"rnn_lstm_dyck_N{n}",
            f"protocol rnn --checkpoint {path} --length {n} --cut {cut} --precision {p} "
            f"--samples {PROTOCOL_SAMPLES}",
            lambda: run_rnn_protocol(None, None, n, cut, p, PROTOCOL_SAMPLES, 0, checkpoint=path),
            "Thm 2 on the LSTM (dyck, N = {length}, cut {cut}): {bits_sent} bits sent "
            "(m p = {state_numel} x {precision}), agreement {agreement:.3f}, "
            "logits exact {logits_exact:.3f}",
        )
        one(
            f"bits_used_lstm_dyck_N{n}",
            f"protocol bits-used --checkpoint {path} --cut {cut} --samples {BITS_USED_SAMPLES}",
            lambda: bits_used(cut=cut, samples=BITS_USED_SAMPLES, checkpoint=path),
            "bits used by the LSTM (dyck, N = {length}, cut {cut}): {bits_used} "
            "(p = {smallest_full_agreement_precision} x m = {state_numel}), log2 distinct "
            "states {log2_distinct_states:.1f}, one-way lower bound "
            "{one_way_lower_bound_bits} bits, model accuracy {task_accuracy:.3f}",
        )
    transformer = _pick(store, "transformer", 1, ("dyck",)) or _pick(
        store, "transformer", 1, ("index-lookup",)
    )
    if transformer is None:
        print(f"  no one-layer transformer checkpoint in {store}: skipping", flush=True)
    else:
        run, path = transformer
        task = run["task"]
        tokens = run["length"] - run["length"] % 2  # the odd/even split needs an even length
        one(
            f"attention_transformer_{task}_N{run['length']}",
            f"protocol attention --checkpoint {path} --length {tokens} --partition odd-even "
            f"--precision {p} --samples {PROTOCOL_SAMPLES}",
            lambda: run_attention_protocol(
                None, None, tokens, "odd-even", p, PROTOCOL_SAMPLES, 0, checkpoint=path
            ),
            f"Thm 4 on the one-layer transformer ({task}, "
            + "{length} tokens, odd/even): {bits_sent} bits sent (Thm 4 closed form "
            "{bits_paper_formula:.0f}), agreement {agreement:.3f}, "
            "logits exact {logits_exact:.3f}",
        )
    return written


def _ccx(*args: str) -> None:
    """Run one ``ccx`` command in this process; InputError if it fails."""
    from simulations.cli import main as ccx

    print(f"$ ccx {' '.join(args)}", flush=True)
    code = ccx(list(args))
    if code != 0:
        raise InputError(f"`ccx {' '.join(args)}` exited with status {code}")


def separations_share() -> dict[str, str]:
    """The separations paper's share: the quick sweep, protocols on its checkpoints, and the
    certified lower bounds. Returns {paper: store} for the report."""
    from paper_figures import profile_store

    store = profile_store(PROFILE)
    print(f"  sweep {PROFILE!r} into {store} (resumes if interrupted)", flush=True)
    _ccx("sweep", "--profile", PROFILE, "--store", str(store))
    print(f"  protocols on trained checkpoints, p = {PROTOCOL_PRECISION}", flush=True)
    protocol_runs(store, RESULTS / "protocols")
    print("  certify the headline lower bounds", flush=True)
    folder = RESULTS / "certificates"
    folder.mkdir(parents=True, exist_ok=True)
    for name, args in CERTIFICATES.items():
        path = str(folder / f"{name}.json")
        _ccx("fooling", *args, "--certificate", path)
        _ccx("verify", path)
    return {"separations": str(store)}


SHARES: dict[str, Callable[[], dict[str, str]]] = {"separations": separations_share}
"""Paper -> its share of the demo (bounds, constructions, protocols, a short training slice),
returning {paper: results store} for the report's figures. A paper adds one entry."""


def main() -> int:
    """Run the demo; return the exit status (0 on success, 2 on a one-line error)."""
    from paper_figures.report import write_report

    start = time.perf_counter()
    stores: dict[str, str] = {}
    try:
        for i, (paper, share) in enumerate(SHARES.items(), 1):
            print(f"[{i}/{len(SHARES) + 1}] {paper}", flush=True)
            stores.update(share())
        print(f"[{len(SHARES) + 1}/{len(SHARES) + 1}] figures and report", flush=True)
        index = write_report(RESULTS / "report", stores=stores)
    except InputError as err:
        print(f"demo: error: {err}", file=sys.stderr)
        return 2
    minutes = (time.perf_counter() - start) / 60
    print(f"\nReport: {index.resolve()}  ({minutes:.1f} min)")
    print(f"Certificates: {(RESULTS / 'certificates').resolve()}")
    print(f"Protocol runs: {(RESULTS / 'protocols').resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
