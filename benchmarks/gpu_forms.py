"""An ensemble step of the `gpu` profile's cells in each batched form, side by side.

For a cell (task, arch, width, layers, N) of the `gpu` profile, its 14 members (7 learning rates x
2 seeds) as `train_ensemble` steps them (fixed buffers; on a GPU the captured CUDA graph), once in
each form an architecture has:

* transformer: attention as one fused kernel (``models.transformer.FUSED_ATTENTION``) against
  the explicit App. D softmax, which writes every (B, H, N, N) weight;
* lstm, gru: one block-diagonal cuDNN RNN (``simulations.stacks.BLOCK_WIDTH``) against batched
  matmuls one position at a time;
* others: their one batched form;
* and for a cell trained with Adafactor (the `looped-gpu` profile), its stacked form
  (``simulations.stacked_optim.StackedAdafactor``, captured in the graph) against the members
  stepping one after the other with torch's own optimiser (``simulations.stacks.LoopStack``).

Each: milliseconds per step (the batch fixed, synchronised, after warm-up and capture) and the
peak memory the step allocates. One process, nothing else on the device.

    python benchmarks/gpu_forms.py                                  # on the GPU: every cell
    python benchmarks/gpu_forms.py --device cpu --batched --cells dyck:lstm:64:1:20 --steps 2

Writes benchmarks/results/gpu_forms{,_cpu}.{json,md} (``gpu_forms_<profile>{,_cpu}`` for another
profile than ``gpu``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import models.transformer as transformer  # noqa: E402
from simulations import stacks  # noqa: E402
from simulations.ensemble import StaticStep, _batches  # noqa: E402
from simulations.stacks import batched_form, make_stack  # noqa: E402
from simulations.sweeps import load_spec  # noqa: E402
from simulations.training import build_model, deterministic_on  # noqa: E402
from simulations.units import plan_groups  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
FIELDS = ("task", "arch", "width", "layers", "length")
FORMS = {
    "transformer": {"fused": ("attention", True), "explicit": ("attention", False)},
    "lstm": {"block-diagonal": ("block", True), "recurrence": ("block", False)},
    "gru": {"block-diagonal": ("block", True), "recurrence": ("block", False)},
}
OPTIMIZER_FORMS = {"stacked-optimiser": ("optimizer", True), "one-by-one": ("optimizer", False)}
"""The forms of an Adafactor cell: stacked (``simulations.stacks.STACKED_ADAFACTOR_DEVICES``) or
member by member."""


def cells(profile: str) -> dict[tuple, list]:
    """The profile's runs by cell, in its order."""
    out: dict[tuple, list] = {}
    for config in load_spec(profile).configs:
        out.setdefault(tuple(getattr(config, f) for f in FIELDS), []).append(config)
    return out


def set_form(switch: str, on: bool, device: torch.device) -> None:
    if switch == "attention":
        transformer.FUSED_ATTENTION = {device.type} if on else set()
    elif switch == "optimizer":
        stacks.STACKED_ADAFACTOR_DEVICES = {device.type} if on else set()
    else:
        stacks.BLOCK_DEVICES = {device.type} if on else set()


def measure(configs: list, steps: int, device: torch.device) -> dict:
    group = plan_groups(configs, len(configs))[0]  # the first ensemble, as the sweep splits them
    built = [build_model(c) for c in group]
    first, task = group[0], built[0][1]
    gens = [torch.Generator().manual_seed(c.seed) for c in group]
    batch = _batches(task, first, first.recipe.batch, gens, device, train=True)
    stack = make_stack(
        batched_form(first, device),
        [m for m, _ in built],
        [c.recipe.lr for c in group],
        device,
        batch[0],
        first.recipe,
    )
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
    static = StaticStep(stack, batch, device)
    for _ in range(5):  # eager warm-up, capture, replays
        static.run(*batch)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    start = time.perf_counter()
    for _ in range(steps):
        static.run(*batch)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    ms = (time.perf_counter() - start) * 1e3 / steps
    peak = torch.cuda.max_memory_allocated(device) / 2**30 if device.type == "cuda" else None
    return {
        "members": len(group),
        "form": stack.strategy,
        "graphed": static.graph is not None,
        "ms/step": round(ms, 2),
        "peak GiB": None if peak is None else round(peak, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=["cpu", "cuda"])
    parser.add_argument("--profile", default="gpu")
    parser.add_argument("--cells", nargs="*", help="task:arch:width:layers:N (default: all)")
    parser.add_argument("--steps", type=int, default=20, help="timed steps per measurement")
    parser.add_argument(
        "--budget",
        type=float,
        default=float("inf"),
        help="seconds after which no further cell starts",
    )
    parser.add_argument(
        "--batched", action="store_true", help="on the CPU too, the GPU's batched forms (a dry run)"
    )
    args = parser.parse_args()
    device = torch.device(args.device)
    if args.batched:
        stacks.CPU_LOOP, stacks.CPU_BATCHED_WORK = (), float("inf")
    found = cells(args.profile)
    if args.cells:
        wanted = [tuple(int(x) if x.isdigit() else x for x in c.split(":")) for c in args.cells]
        missing = [c for c in wanted if c not in found]
        if missing:
            sys.exit(f"not cells of {args.profile}: {missing}")
        found = {c: found[c] for c in wanted}
    name = "gpu_forms" + ("" if args.profile == "gpu" else f"_{args.profile}")
    name += "" if device.type == "cuda" else "_cpu"
    report = {
        "name": name,
        "profile": args.profile,
        "command": " ".join(["python", *sys.argv]),
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "torch": torch.__version__,
        "rows": [],
    }
    default_forms = (
        set(transformer.FUSED_ATTENTION), set(stacks.BLOCK_DEVICES),
        set(stacks.STACKED_ADAFACTOR_DEVICES),
    )  # fmt: skip
    began = time.perf_counter()
    for cell, configs in found.items():
        if time.perf_counter() - began > args.budget:
            break
        forms = FORMS.get(cell[1], {"batched": None})
        if configs[0].optimizer == "adafactor":
            forms = OPTIMIZER_FORMS
        for label, switch in forms.items():
            row = dict(zip(FIELDS, cell, strict=True)) | {"variant": label}
            try:
                if switch is not None:
                    set_form(*switch, device)
                with deterministic_on(device):  # as train_ensemble runs
                    row |= measure(configs, args.steps, device)
            except Exception as exc:  # noqa: BLE001 - record it and go on
                row["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
            finally:
                (
                    transformer.FUSED_ATTENTION,
                    stacks.BLOCK_DEVICES,
                    stacks.STACKED_ADAFACTOR_DEVICES,
                ) = default_forms
                if device.type == "cuda":
                    torch.cuda.empty_cache()
            report["rows"].append(row)
            print(json.dumps(row), flush=True)
            write(report, name)
    write(report, name)


def write(report: dict, name: str) -> None:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=1) + "\n")
    keys = [*FIELDS, "variant", "members", "form", "graphed", "ms/step", "peak GiB", "error"]
    lines = [
        f"# An ensemble step of the `{report.get('profile', 'gpu')}` profile's cells, per form "
        f"({report['device']})",
        "",
        f"Command: `{report['command']}`; torch {report['torch']}. One process alone on the "
        "device; the batch fixed; milliseconds per step after warm-up and capture.",
        "",
        "| " + " | ".join(keys) + " |",
        "|" + "---|" * len(keys),
    ]
    lines += ["| " + " | ".join(str(r.get(k, "")) for k in keys) + " |" for r in report["rows"]]
    (RESULTS / f"{name}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
