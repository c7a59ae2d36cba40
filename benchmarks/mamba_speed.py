"""Training-step speed of sequence models on this machine's CPU, side by side in one run.

One training step = forward + cross-entropy + backward + Adam step, on random tokens, batch 64.
Each model gets ``--warmup`` untimed steps, then the median of ``--steps`` timed ones. Models
are entries of ``MODELS`` (name -> builder); add an architecture by adding a builder.

Today: our Mamba (models/mamba.py, chunked selective scan) against the ``mambapy`` package
(``pip install mambapy``; its parallel scan), both 2 layers, width 64, d_state 16, expand 2,
d_conv 4, with an embedding and a linear readout (norms: ours LayerNorm, mambapy RMSNorm).
For recurrent models it also reports max |forward - step recurrence| on the timed batch.

    .venv/bin/python benchmarks/mamba_speed.py            # N = 200 and 400, torch's threads
    .venv/bin/python benchmarks/mamba_speed.py --lengths 100 --steps 2 --threads 1 2
    python benchmarks/mamba_speed.py --device cuda --widths 64 256 --lengths 200 500 1000 2000

Writes benchmarks/results/mamba_speed.json and .md (``--device cuda``: mamba_speed_cuda.*, where
our Mamba runs the fused Triton scan of models/scan_triton.py).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from models.base import RecurrentModel
from models.mamba import Mamba, MambaConfig

RESULTS = Path(__file__).resolve().parent / "results"


def ours(vocab: int, width: int, layers: int) -> nn.Module:
    return Mamba(MambaConfig(vocab_size=vocab, width=width, layers=layers))


class MambapyLM(nn.Module):
    """mambapy's Mamba stack (parallel scan) between an embedding and a normed linear readout."""

    def __init__(self, vocab: int, width: int, layers: int) -> None:
        from mambapy.mamba import Mamba as MambapyMamba
        from mambapy.mamba import MambaConfig as MambapyConfig

        super().__init__()
        config = MambapyConfig(
            d_model=width, n_layers=layers, d_state=16, expand_factor=2, d_conv=4, pscan=True
        )
        self.embedding = nn.Embedding(vocab, width)
        self.mamba = MambapyMamba(config)
        self.norm = nn.RMSNorm(width)
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.mamba(self.embedding(tokens))))


# name -> builder(vocab, width, layers); speed-ups are reported relative to BASELINE
MODELS: dict[str, Callable[[int, int, int], nn.Module]] = {
    "mambapy (pscan)": MambapyLM,
    "ours (models/mamba.py)": ours,
}
BASELINE = "mambapy (pscan)"


def time_train_step(
    model: nn.Module, tokens: torch.Tensor, targets: torch.Tensor, steps: int, warmup: int = 1
) -> list[float]:
    """Seconds of each of ``steps`` timed training steps, after ``warmup`` untimed ones (on a GPU
    each step is synchronised before its clock stops)."""
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    sync = torch.cuda.synchronize if tokens.is_cuda else (lambda: None)
    times = []
    for i in range(warmup + steps):
        sync()
        start = time.perf_counter()
        logits = model(tokens)  # (B, N, n_out)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        sync()
        if i >= warmup:
            times.append(time.perf_counter() - start)
    return times


@torch.no_grad()
def forward_vs_steps(model: RecurrentModel, tokens: torch.Tensor) -> float:
    """max |forward(tokens) - run_steps(tokens)| over all logits."""
    return (model(tokens) - model.run_steps(tokens)[0]).abs().max().item()


def machine() -> dict:
    return {
        "cpu_cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "python": platform.python_version(),
        "processor": platform.processor() or platform.machine(),
        "omp_env": {k: v for k, v in os.environ.items() if k.startswith(("OMP_", "MKL_"))},
    }


def write_markdown(report: dict, path: Path) -> None:
    m = report["machine"]
    where = (
        f"{report['device']} (CUDA {report['cuda']}), torch {m['torch']}, Python {m['python']}."
        if report.get("cuda")
        else f"{m['cpu_cores']} CPU cores ({m['processor']}, {m['cpu_capability']}), torch "
        f"{m['torch']} (default {m['torch_threads']} intra-op threads), Python {m['python']}."
    )
    lines = [
        f"# Mamba training-step speed ({report['device']})",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {where}",
        f"Load average (1, 5, 15 min) at start {report['loadavg_start']}, at end "
        f"{report['loadavg_end']} (the 1-min load before each measurement is in the JSON). "
        "On a CPU, compare rows with equal threads: with fewer free cores than threads, every "
        "parallel op can wait a scheduler time slice for a descheduled thread, which hits models "
        "issuing many small ops per step (a sequential scan) hardest.",
        "",
        f"One step: forward + cross-entropy + backward + Adam, batch {report['batch']}, "
        f"{report['layers']} layers, vocabulary {report['vocab']}; median of "
        f"{report['steps']} timed steps after {report['warmup']} warm-up step(s). "
        "max abs(fwd - steps): our forward against our step-by-step recurrence on the timed batch.",
        "",
        "| threads | width | N | mambapy s/step | ours s/step | ours / mambapy (speed-up) "
        "| max abs(fwd - steps) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        speed = "skipped" if r["speed-up"] is None else f"{r['speed-up']:.2f}x"
        diff = r["max_abs_diff"]
        lines.append(
            f"| {r['threads']} | {r['width']} | {r['length']} | {_seconds(r['mambapy_s'])} | "
            f"{_seconds(r['ours_s'])} | {speed} | {'' if diff is None else f'{diff:.1e}'} |"
        )
    skipped = sorted({r["skipped"] for r in report["runs"] if "skipped" in r})
    lines += [f"\nSkipped: {why}" for why in skipped]
    path.write_text("\n".join(lines) + "\n")


def _seconds(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def summary_rows(runs: list[dict]) -> list[dict]:
    """One row per (threads, width, length): both models' medians, ours over the baseline
    (``speed-up``: baseline seconds / ours) and our forward-vs-steps difference."""
    points: dict[tuple, dict] = {}
    for r in runs:
        key = (r["threads"], r["width"], r["length"])
        row = points.setdefault(key, dict(zip(("threads", "width", "length"), key, strict=True)))
        which = "mambapy_s" if r["model"] == BASELINE else "ours_s"
        row[which] = r.get("median_s")
        if r["model"] != BASELINE:
            row["max_abs_diff"] = r.get("forward_vs_steps")
    for row in points.values():
        ours_s, base_s = row.setdefault("ours_s", None), row.setdefault("mambapy_s", None)
        row.setdefault("max_abs_diff", None)
        row["speed-up"] = round(base_s / ours_s, 3) if ours_s and base_s else None
    return list(points.values())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[200, 400])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--widths", type=int, nargs="+", default=[64])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--vocab", type=int, default=8)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument(
        "--threads", type=int, nargs="+", help="torch intra-op thread counts (default: torch's)"
    )
    args = parser.parse_args(argv)

    device = torch.device(args.device)
    report = {
        "command": " ".join(["python", *sys.argv]),
        "machine": machine(),
        "device": args.device if args.device == "cpu" else torch.cuda.get_device_name(),
        "cuda": torch.version.cuda if args.device == "cuda" else None,
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
        **{k: getattr(args, k) for k in ("batch", "widths", "layers", "vocab", "steps", "warmup")},
        "runs": [],
    }
    print(json.dumps(report["machine"]), "load average", report["loadavg_start"], flush=True)
    for threads in args.threads or [torch.get_num_threads()]:
        torch.set_num_threads(threads)
        for width in args.widths:
            for length in args.lengths:
                report["runs"] += measure_length(args, threads, width, length, device)
    report["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    report["rows"] = summary_rows(report["runs"])
    for r in report["rows"]:
        print(json.dumps(r), flush=True)
    RESULTS.mkdir(exist_ok=True)
    name = "mamba_speed" if args.device == "cpu" else "mamba_speed_cuda"
    (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    write_markdown(report, RESULTS / f"{name}.md")


def measure_length(
    args: argparse.Namespace, threads: int, width: int, length: int, device: torch.device
) -> list[dict]:
    """One row per model of :data:`MODELS` at this width and length."""
    gen = torch.Generator().manual_seed(length)
    tokens = torch.randint(args.vocab, (args.batch, length), generator=gen).to(device)
    targets = torch.randint(args.vocab, (args.batch, length), generator=gen).to(device)
    rows = []
    for name, build in MODELS.items():
        row: dict = {"threads": threads, "width": width, "length": length, "model": name}
        row["load"] = round(os.getloadavg()[0], 2)
        torch.manual_seed(0)
        try:
            model = build(args.vocab, width, args.layers).to(device)
        except ImportError as e:
            row["skipped"] = str(e)
        else:
            times = time_train_step(model, tokens, targets, args.steps, args.warmup)
            row["times_s"] = times
            row["median_s"] = statistics.median(times)
            if isinstance(model, RecurrentModel):
                row["forward_vs_steps"] = forward_vs_steps(model, tokens)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


if __name__ == "__main__":
    main()
