"""Commands on training: single runs, sweeps, thresholds, figures and the report.

The module stays whole (about 620 lines): most of it is the typer signatures of ``train``
and ``sweep``, one option per field of a run's spec, which read best beside the commands that
hand them on.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ccomplexity import budget, limits
from ccomplexity.errors import InputError
from ccx.app import (
    JsonFlag,
    Seed,
    app,
    cell,
    emit,
    field_option,
    print_json,
    print_table,
    ranged,
    written,
)
from paper_figures import FIGURES

# --------------------------------------------------------------------------------- tasks


@app.command(
    "task",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def task_cmd(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="A training task (index-lookup, p-hop, ...).")],
    length: Annotated[
        int | None,
        ranged(limits.LENGTH, "--length", help="Input length N (i-gsm: statements)."),
    ] = None,
    batch: Annotated[int, ranged(limits.DRAWS, "--batch", help="Samples to draw.")] = 3,
    seed: Seed = 0,
    train: Annotated[
        bool, typer.Option("--train", help="The training distribution (default: exactly N).")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Draw samples of any task: ccx task NAME --length N [--OPTION VALUE]... (the task's own
    options, e.g. p-hop --hops 16 --alphabet 4, i-gsm --query-depth 4; i-gsm's length has a
    default).
    Each sample: its tokens and answer(s)."""
    from ccx.cmd_bounds import parse_params

    given = parse_params(list(ctx.args))
    options = {k: {"true": True, "false": False}.get(v, v) for k, v in given.items()}
    for key, value in options.items():  # ranges first: nothing is built, torch is not loaded
        if key in limits.TASK_OPTIONS and isinstance(value, int):
            limits.TASK_OPTIONS[key].check(value, f"--{key}")
    what = f"{batch} samples of length {length}"
    if length is not None:  # tokens >= N: refused here before torch is loaded
        budget.check(what, *budget.samples(batch, length), "use a smaller --batch or --length")

    import torch

    from simulations.tasks import default_length, get_task

    if length is None:
        length = default_length(name, **options)

    task = get_task(name, length, **options)
    what = f"{batch} samples of {task.max_tokens} tokens"
    budget.check(what, *task.sampling_cost(batch, length), "use a smaller --batch or --length")
    tokens, targets, mask = task.sample(batch, length, torch.Generator().manual_seed(seed), train)
    render = getattr(task, "render", None)
    samples = []
    for row in range(batch):
        kept = tokens[row] if task.pad is None else tokens[row][tokens[row] != task.pad]
        answers = targets[row][mask[row]].tolist()
        sample: dict = {
            "input": kept.tolist(),
            "answer": answers[0] if len(answers) == 1 else answers,
        }
        if render is not None:
            sample["text"] = render(kept.tolist())
        samples.append(sample)
    result = {
        "task": name, "length": length, "options": options, "seed": seed, "train": train,
        "vocab_size": task.vocab_size, "classes": task.n_out, "samples": samples,
    }  # fmt: skip
    if as_json:
        print_json(result)
        return
    for sample in samples:
        shown = sample.get("text", " ".join(map(str, sample["input"])))
        print(f"{shown}  ->  {sample['answer']}")


# --------------------------------------------------------------------------------- training


def _spec(field: str, decl: str, text: str) -> Any:
    """A ``ccx train`` option setting field ``field`` of the run's spec (checked by the spec)."""
    return field_option(field, decl, help=text)


OptInt = int | None


@app.command("train")
def train_cmd(
    task: Annotated[str, typer.Option("--task", help="index-lookup, dyck, p-hop, ...")],
    arch: Annotated[str, typer.Option("--arch", help="A model of `ccx models`.")],
    width: Annotated[int, _spec("width", "--width", "Model width m.")],
    length: Annotated[int, _spec("length", "--length", "Input length N.")],
    layers: Annotated[int, _spec("layers", "--layers", "Model layers.")] = 1,
    steps: Annotated[int, _spec("steps", "--steps", "Most training steps.")] = 1000,
    lr: Annotated[float, _spec("lr", "--lr", "Learning rate (the schedule's peak).")] = 1e-3,
    seed: Annotated[int, _spec("seed", "--seed", "Seeds the model's weights and data.")] = 0,
    batch: Annotated[int, _spec("batch", "--batch", "Fresh examples per step.")] = 64,
    heads: Annotated[int, _spec("heads", "--heads", "Heads H (attention models).")] = 4,
    experts: Annotated[
        int, _spec("experts", "--experts", "Experts K (mixtures of experts; 1: dense).")
    ] = 1,
    top_k: Annotated[int, _spec("top_k", "--top-k", "Experts each token is routed to.")] = 1,
    target: Annotated[float, _spec("target", "--target", "Early-stop accuracy.")] = 0.99,
    loops: Annotated[OptInt, _spec("loops", "--loops", "Loops L (looped).")] = None,
    hops: Annotated[OptInt, _spec("hops", "--hops", "p-hop: hops.")] = None,
    alphabet: Annotated[OptInt, _spec("alphabet", "--alphabet", "p-hop: |Sigma|.")] = None,
    group: Annotated[
        str | None, typer.Option("--group", help="group-composition: the group.")
    ] = None,
    depth: Annotated[OptInt, _spec("depth", "--depth", "var-assign: the query's depth.")] = None,
    query_depth: Annotated[
        OptInt,
        _spec(
            "query_depth",
            "--query-depth",
            "i-gsm: operations on the query's longest dependency path (the model's depth is "
            "--layers).",
        ),
    ] = None,
    reverse: Annotated[
        bool | None, typer.Option("--reverse/--no-reverse", help="addition: sum LSB first.")
    ] = None,
    digits: Annotated[OptInt, _spec("digits", "--digits", "addition: digits per operand.")] = None,
    reg_lambda: Annotated[
        float | None, _spec("reg_lambda", "--reg-lambda", "Block-cosine regulariser lambda.")
    ] = None,
    reg_block: Annotated[
        OptInt, _spec("reg_block", "--reg-block", "Its block size k (transformer).")
    ] = None,
    optimizer: Annotated[
        str, typer.Option("--optimizer", help="adam, adamw or adafactor (torch's own).")
    ] = "adam",
    weight_decay: Annotated[
        float, _spec("weight_decay", "--weight-decay", "Weight decay (adam: L2).")
    ] = 0.0,
    schedule: Annotated[
        str,
        typer.Option("--schedule", help="Learning rate: constant, warmup-cosine, warmup-linear."),
    ] = "constant",
    warmup: Annotated[int, _spec("warmup", "--warmup", "Steps of linear warm-up.")] = 0,
    clip: Annotated[float, _spec("clip", "--clip", "Max gradient norm (0: no clipping).")] = 0.0,
    precision: Annotated[
        OptInt,
        _spec(
            "precision",
            "--precision",
            "Train at p bits: hold every number the model's protocol sends on a p-bit grid "
            "(default: float).",
        ),
    ] = None,
    frac: Annotated[
        OptInt, _spec("frac", "--frac", "Fractional bits of that grid (default p // 2).")
    ] = None,
    symbols: Annotated[
        OptInt, _spec("symbols", "--symbols", "index-lookup: |Sigma| (default 64).")
    ] = None,
    d_state: Annotated[OptInt, _spec("d_state", "--d-state", "mamba: state size.")] = None,
    d_conv: Annotated[OptInt, _spec("d_conv", "--d-conv", "mamba: convolution width.")] = None,
    expand: Annotated[OptInt, _spec("expand", "--expand", "mamba: inner width / width.")] = None,
    checkpoint_dir: Annotated[
        str, written("folder", "--checkpoint-dir", help="Where the checkpoint is written.")
    ] = "results/checkpoints",
    device: Annotated[str, typer.Option("--device", help="auto, cpu or cuda.")] = "auto",
    threads: Annotated[
        int | None,
        ranged(
            limits.THREADS, "--threads", help="Torch CPU threads (a sweep's run records its own)."
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Train one model on one task at length N; evaluate at exactly N; save a checkpoint. The
    result says whether the run reached its target, plateaued below it or was still improving
    when its steps ran out (its verdict), with a 95% interval of its final accuracy."""

    from ccomplexity.files import check_output_folder

    if not re.fullmatch(r"auto|cpu|cuda(:[0-9]{1,3})?", device):  # before torch is loaded
        raise InputError(f"unknown device {device!r}; use auto, cpu or cuda")
    check_output_folder(checkpoint_dir, "checkpoint folder")
    if task == "i-gsm" and depth is not None:
        raise InputError(
            "i-gsm: the query's depth is --query-depth (the model's depth is --layers)"
        )
    from simulations.run_config import TrainConfig

    config = TrainConfig.of(
        task=task,
        arch=arch,
        width=width,
        layers=layers,
        length=length,
        steps=steps,
        lr=lr,
        seed=seed,
        batch=batch,
        heads=heads,
        experts=experts,
        top_k=top_k,
        target=target,
        loops=loops,
        hops=hops,
        alphabet=alphabet,
        group=group,
        depth=depth,
        query_depth=query_depth,
        reverse=reverse,
        digits=digits,
        reg_lambda=reg_lambda,
        reg_block=reg_block,
        optimizer=optimizer,
        weight_decay=weight_decay,
        schedule=schedule,
        warmup=warmup,
        clip=clip,
        precision=precision,
        frac=frac,
        symbols=symbols,
        d_state=d_state,
        d_conv=d_conv,
        expand=expand,
    )
    from simulations.training import train

    result = train(
        config, checkpoint_dir=checkpoint_dir, progress=not as_json, device=device, threads=threads
    )
    emit(result, as_json, f"{arch} on {task}, N = {length}")


@app.command("sweep")
def sweep_cmd(
    spec: Annotated[str | None, typer.Argument(help="Sweep spec (TOML).")] = None,
    profile: Annotated[
        str | None,
        typer.Option(
            "--profile", help="A profile of simulations/profiles/, e.g. quick, parrots, looped, kg."
        ),
    ] = None,
    store: Annotated[
        str, written("file", "--store", create_folder=True, help="SQLite results store.")
    ] = "results/ccx.db",
    workers: Annotated[int | None, ranged(limits.WORKERS, "--workers", help="Processes.")] = None,
    backend: Annotated[str, typer.Option("--backend", help="local or ray.")] = "local",
    checkpoint_dir: Annotated[
        str | None,
        written(
            "folder",
            "--checkpoint-dir",
            help="Where the runs' models go (default: <store>_checkpoints/).",
        ),
    ] = None,
    ensemble: Annotated[
        int | None,
        ranged(
            limits.ENSEMBLE, "--ensemble", help="Most runs trained together as one batched model."
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the runs and the estimated wall time only.")
    ] = False,
    allow_large_grid: Annotated[
        bool,
        typer.Option(
            "--allow-large-grid", help="Run a grid of more than 10,000 runs (up to 1,000,000)."
        ),
    ] = False,
    extend_undecided: Annotated[
        int,
        ranged(
            limits.EXTEND_ROUNDS,
            "--extend-undecided",
            help="Then train runs still improving at their last step again with doubled steps, "
            "at most this many times.",
        ),
    ] = 0,
    time_limit: Annotated[
        int | None,
        ranged(
            limits.TIME_LIMIT,
            "--time-limit",
            help="Seconds after which no new run starts; runs training then finish, the rest "
            "wait for the next sweep on the store.",
        ),
    ] = None,
    take_over_leases: Annotated[
        bool,
        typer.Option(
            "--take-over-leases",
            help="Train runs leased by another host, or whose lease row is no sweep's.",
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Run a grid of trainings into the store; a killed sweep resumes where it stopped, and
    sweeps running at once on one store share its runs. With --extend-undecided K, runs whose
    verdict is undecided are trained again with twice the steps, up to K times. With
    --time-limit S, no run starts after S seconds (a stretch of a long sweep)."""
    if (spec is None) == (profile is None):
        raise InputError("give a spec file or --profile NAME (one of them)")
    from simulations.sweeps import BACKENDS, check_outputs

    if backend not in BACKENDS:  # a dry run too: it prices this backend's sweep
        raise InputError(f"unknown --backend {backend!r}; known: {', '.join(BACKENDS)}")

    check_outputs(store, checkpoint_dir, spec)
    if dry_run:
        from simulations.estimate import dry_run as estimate

        estimated = estimate(spec or profile, store, workers, ensemble, allow_large_grid)
        emit(estimated, as_json, "Sweep (dry run)")
        return
    from simulations.sweeps import run_sweep

    _announce(spec or profile, store, workers, ensemble, allow_large_grid)
    result = run_sweep(
        spec or profile,
        store,
        workers=workers,
        backend=backend,
        checkpoint_dir=checkpoint_dir,
        ensemble=ensemble,
        allow_large_grid=allow_large_grid,
        extend_undecided=extend_undecided,
        time_limit=time_limit,
        take_over_leases=take_over_leases,
    )
    emit(result, as_json, "Sweep")
    if result["failed"]:
        raise typer.Exit(1)


ANNOUNCED_RUNS = 50
"""A sweep with at least this many runs to train says first what it will cost (the dry run's
estimate, probed now): its first runs, the costliest, may take minutes to report."""


def _announce(
    spec: str, store: str, workers: int | None, ensemble: int | None, allow_large_grid: bool
) -> None:
    """One line on stderr: the runs to train and the dry run's estimate, for a long sweep."""

    from simulations.estimate import dry_run, pending_runs

    if pending_runs(spec, store, allow_large_grid) < ANNOUNCED_RUNS:
        return
    estimated = dry_run(spec, store, workers, ensemble, allow_large_grid)
    minutes = estimated["estimated_seconds"] / 60
    print(
        f"ccx: {estimated['pending']} runs to train on {estimated['workers']} workers; "
        f"estimated about {minutes:.0f} min (`ccx sweep --dry-run`, every run at all its steps, "
        "probed now; the lines below keep the time left)",
        file=sys.stderr,
        flush=True,
    )


@app.command("rerun")
def rerun_cmd(
    store: Annotated[str, typer.Option("--store", help="SQLite results store.")],
    run: Annotated[str, typer.Option("--run", help="The run: its row id or config hash.")],
    allow_cpu: Annotated[
        bool, typer.Option("--allow-cpu", help="Re-train a run of a GPU on this CPU anyway.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Train one stored run again from its stored config, in the form it was trained (alone or
    as the same ensemble, same threads), and compare with what the store holds: identical, or
    the largest difference of an accuracy and whether the verdict changed, beside what trained
    each (torch, CPU instructions, threads). Writes nothing; exit 1 when the re-run differs."""
    from simulations.rerun import check_run_name, find_run
    from simulations.store import identify

    check_run_name(run)
    if not Path(store).is_file():
        raise InputError(f"no results store at {store!r}")
    identify(store)

    find_run(store, run)  # a bad or missing run is refused before torch is loaded
    from simulations.rerun import rerun

    result = rerun(store, run, allow_cpu)
    if as_json:
        print_json(result)
    else:
        for side in ("stored", "rerun"):
            shown = {k: v for k, v in result[side].items() if k != "curve"}
            print(f"{side:>6}: {shown}")
        print(f"form: {result['form']}")
        changed = result["environment"]["differs_in"]
        print(f"environment: {'; '.join(changed) if changed else 'the same where it decides'}")
        if result["identical"]:
            print("identical")
        else:
            verdict = "changed" if result["verdict_changed"] else "unchanged"
            print(
                f"differs in {', '.join(result['differences'])}: largest difference "
                f"{result['max_difference']:.4g}, verdict {verdict}"
            )
    if not result["identical"]:
        raise typer.Exit(1)


@app.command("runs")
def runs_cmd(
    store: Annotated[str, typer.Option("--store", help="SQLite results store.")],
    task: Annotated[str | None, typer.Option("--task", help="Only the runs of this task.")] = None,
    arch: Annotated[
        str | None, typer.Option("--arch", help="Only the runs of this architecture.")
    ] = None,
    verdict: Annotated[
        str | None,
        typer.Option(
            "--verdict", help="Only runs with this verdict: reached, plateaued or undecided."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per run, one per line.")
    ] = False,
) -> None:
    """The runs a results store holds, oldest first: a table, or with --json one JSON object per
    run and line (every stored field, its JSON columns decoded). Reads only."""
    from simulations.store import identify, runs
    from simulations.verdicts import VERDICTS

    if verdict is not None and verdict not in VERDICTS:
        raise InputError(f"--verdict must be one of {', '.join(VERDICTS)}, got {verdict!r}")
    if not Path(store).is_file():
        raise InputError(f"no results store at {store!r}")
    identify(store)
    filters = {k: v for k, v in {"task": task, "arch": arch}.items() if v is not None}
    found = [r for r in runs(store, **filters) if verdict is None or r["verdict"] == verdict]
    if as_json:
        for run in found:
            print_json(run)
        return
    from rich.table import Table

    table = Table(title=f"{len(found)} runs in {store}")
    columns = ("id", "task", "arch", "width", "layers", "length", "lr", "seed", "steps",
               "best accuracy", "verdict")  # fmt: skip
    for column in columns:
        table.add_column(column)
    for r in found:
        table.add_row(
            *(
                str(r[k])
                for k in ("id", "task", "arch", "width", "layers", "length", "lr", "seed", "steps")
            ),
            f"{r['best_accuracy']:.3f}",
            str(r["verdict"]),
        )
    print_table(table)


@app.command("threshold")
def threshold_cmd(
    store: Annotated[str, typer.Option("--store", help="SQLite results store.")] = (
        "results/ccx.db"
    ),
    target: Annotated[float, ranged(limits.ACCURACY, "--target", help="Accuracy to reach.")] = 0.99,
    precision: Annotated[
        int, ranged(limits.BITS, "--precision", help="p for the bounds of float runs.")
    ] = 32,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Exit 1 naming every run trained at p bits that reached the target at a "
            "length its own bound rules out at its p, with why (an error on inputs never drawn, "
            "or a bug; on uniform inputs its accuracy ceiling says which).",
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Empirical length thresholds per (task, arch, size), next to the proved bound (a run
    trained at p bits: its own bound at its own p). Each length's point carries its verdict; a
    threshold that a run still improving when its budget ran out would decide is "undecided"
    (with the length it is at least), never a length."""
    if check:
        _check_bounds(store, target, as_json)
        return
    from simulations.thresholds import thresholds

    rows = thresholds(store, target=target, precision=precision)
    if as_json:
        print_json({"thresholds": rows})
        return
    from rich.table import Table

    table = Table(title=f"Thresholds (target {target}, bounds at p = {precision})")
    options = any("options" in r or "shape" in r for r in rows)  # loops, hops, heads, experts
    columns = ("task", "arch", "width", "layers", *(("options",) if options else ()),
               "threshold N", "bound N", "bound")  # fmt: skip
    for column in columns:
        table.add_column(column)
    for r in rows:
        named = {**r.get("shape", {}), **r.get("options", {})}
        shown = (" ".join(f"{k}={v}" for k, v in named.items()),) if options else ()
        threshold = str(r["threshold_length"])
        if threshold == "undecided":
            threshold += (
                "" if r["threshold_at_least"] is None else f" (>= {r['threshold_at_least']})"
            )
        table.add_row(
            *map(
                cell,
                (
                    r["task"],
                    r["arch"],
                    r["width"],
                    r["layers"],
                    *shown,
                    threshold,
                    r["bound_length"],
                    r["bound_id"],
                ),
            )
        )
    print_table(table)


def _check_bounds(store: str, target: float, as_json: bool) -> None:
    """``ccx threshold --check``: exit 1 and list the runs beyond their own bounds."""
    from simulations.store import runs
    from simulations.thresholds import beyond_bounds

    found = beyond_bounds(store, target)
    checked = sum(1 for r in runs(store) if r["config"].get("precision") is not None)
    if as_json:
        print_json({"checked": checked, "target": target, "beyond_bounds": found})
    else:
        print(f"{checked} runs trained at p bits checked against their bounds at target {target}")
        for r in found:
            print(
                f"run {r['id']} ({r['config_hash']}): {r['arch']} width {r['width']} at "
                f"p = {r['precision']} reached {r['best_accuracy']:.3f} at N = {r['length']}, "
                f"beyond {r['bound_id']}'s N = {r['bound_length']}: {r['why']}"
            )
    if found:
        raise typer.Exit(1)


# --------------------------------------------------------------------------------- figures

FigureOut = Annotated[str, written("folder", "--out", help="Output folder.")]
FigureStore = Annotated[
    str | None, typer.Option("--store", help="Plot this results store; runs nothing.")
]
FigureProfile = Annotated[
    str | None,
    typer.Option("--profile", help="Run or resume this profile into results/<profile>.db."),
]


def _check_figure_outputs(out: str, store: str | None, profile: str | None = None) -> None:
    """The output folder and a given store, checked before the plotting stack is imported: the
    folder may not be the store, nor hold it under a name a figure or the report writes. A
    store and a profile are not both given (a store records the profiles that wrote it)."""
    from ccomplexity.files import check_not_input, check_output_folder
    from simulations.store import identify

    if store is not None and profile is not None:
        raise InputError(
            "--profile does not apply with --store (the store records the profiles that wrote "
            "it): give one of them"
        )
    check_output_folder(out, "figure folder", inputs=[store])
    if store is not None and Path(store).exists():
        if Path(store).suffix in (".png", ".pdf", ".csv", ".html"):
            check_not_input(Path(out) / Path(store).name, "figure file", [store])
        identify(store)


@app.command("figure")
def figure_cmd(
    name: Annotated[str, typer.Argument(help=f"The figure: {', '.join(FIGURES)}.")],
    out: FigureOut = "results/figures",
    store: FigureStore = None,
    profile: FigureProfile = None,
    as_json: JsonFlag = False,
) -> None:
    """Draw one figure: PNG, PDF and the CSV of the numbers it plots."""
    _check_figure_outputs(out, store, profile)
    from paper_figures import make_figure

    emit(make_figure(name, out, store=store, profile=profile), as_json, f"Figure {name}")


@app.command("report")
def report_cmd(
    out: FigureOut = "results/report",
    store: FigureStore = None,
    profile: FigureProfile = None,
    as_json: JsonFlag = False,
) -> None:
    """Every figure and one HTML page (OUT/index.html) with their captions."""
    _check_figure_outputs(out, store, profile)
    from paper_figures.report import write_report

    index = write_report(out, store=store, profile=profile)
    emit({"report": str(index)}, as_json, "Report")
