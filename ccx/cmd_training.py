"""Commands on training: single runs, sweeps, thresholds, figures and the report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ccomplexity import budget, limits
from ccomplexity.errors import InputError
from ccx.app import (
    JsonFlag,
    Layers,
    Length,
    Seed,
    Width,
    app,
    cell,
    emit,
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


@app.command("train")
def train_cmd(
    task: Annotated[str, typer.Option("--task", help="index-lookup, dyck, p-hop, ...")],
    arch: Annotated[str, typer.Option("--arch", help="A model of `ccx models`.")],
    width: Width,
    length: Length,
    layers: Layers = 1,
    steps: Annotated[int, ranged(limits.STEPS, "--steps", help="Most training steps.")] = 1000,
    lr: Annotated[
        float, ranged(limits.LEARNING_RATE, "--lr", help="Learning rate (the schedule's peak).")
    ] = 1e-3,
    seed: Seed = 0,
    batch: Annotated[int, ranged(limits.BATCH, "--batch", help="Fresh examples per step.")] = 64,
    heads: Annotated[int, ranged(limits.HEADS, "--heads", help="Heads (attention models).")] = 4,
    target: Annotated[
        float, ranged(limits.ACCURACY, "--target", help="Early-stop accuracy.")
    ] = 0.99,
    loops: Annotated[int | None, ranged(limits.LOOPS, "--loops", help="Loops L (looped).")] = None,
    hops: Annotated[int | None, ranged(limits.HOPS, "--hops", help="p-hop: hops p.")] = None,
    alphabet: Annotated[
        int | None, ranged(limits.ALPHABET, "--alphabet", help="p-hop: |Sigma|.")
    ] = None,
    group: Annotated[str | None, typer.Option("--group", help="group-composition: G.")] = None,
    depth: Annotated[
        int | None,
        ranged(limits.IGSM_DEPTH, "--depth", help="var-assign: the query's depth."),
    ] = None,
    query_depth: Annotated[
        int | None,
        ranged(
            limits.IGSM_DEPTH,
            "--query-depth",
            help="i-gsm: operations on the query's longest dependency path (the model's depth "
            "is --layers).",
        ),
    ] = None,
    reverse: Annotated[
        bool | None, typer.Option("--reverse/--no-reverse", help="addition: sum LSB first.")
    ] = None,
    digits: Annotated[
        int | None, ranged(limits.DIGITS, "--digits", help="addition: digits per operand (3).")
    ] = None,
    reg_lambda: Annotated[
        float | None,
        ranged(limits.REGULARISER, "--reg-lambda", help="Block-cosine regulariser lambda."),
    ] = None,
    reg_block: Annotated[
        int | None, ranged(limits.WIDTH, "--reg-block", help="Its block size k (transformer).")
    ] = None,
    optimizer: Annotated[
        str, typer.Option("--optimizer", help="adam, adamw or adafactor (torch's own).")
    ] = "adam",
    weight_decay: Annotated[
        float, ranged(limits.WEIGHT_DECAY, "--weight-decay", help="Weight decay (adam: L2).")
    ] = 0.0,
    schedule: Annotated[
        str,
        typer.Option("--schedule", help="Learning rate: constant, warmup-cosine, warmup-linear."),
    ] = "constant",
    warmup: Annotated[int, ranged(limits.WARMUP, "--warmup", help="Steps of linear warm-up.")] = 0,
    clip: Annotated[
        float, ranged(limits.CLIP, "--clip", help="Max gradient norm (0: no clipping).")
    ] = 0.0,
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
    import re

    from ccomplexity.files import check_output_folder

    if not re.fullmatch(r"auto|cpu|cuda(:[0-9]{1,3})?", device):  # before torch is loaded
        raise InputError(f"unknown device {device!r}; use auto, cpu or cuda")
    check_output_folder(checkpoint_dir, "checkpoint folder")
    if task == "i-gsm" and depth is not None:
        raise InputError(
            "i-gsm: the query's depth is --query-depth (the model's depth is --layers)"
        )
    from simulations.recipes import check_recipe

    check_recipe(optimizer, weight_decay, schedule, warmup, clip, steps)  # before torch loads
    from simulations.training import TrainConfig, train

    config = TrainConfig(
        task=task, arch=arch, width=width, layers=layers, length=length, steps=steps, lr=lr,
        seed=seed, batch=batch, heads=heads, target=target, loops=loops, hops=hops,
        alphabet=alphabet, group=group, depth=depth, query_depth=query_depth, reverse=reverse,
        digits=digits, reg_lambda=reg_lambda, reg_block=reg_block, optimizer=optimizer,
        weight_decay=weight_decay, schedule=schedule, warmup=warmup, clip=clip,
    )  # fmt: skip
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

    result = run_sweep(
        spec or profile, store, workers=workers, backend=backend, checkpoint_dir=checkpoint_dir,
        ensemble=ensemble, allow_large_grid=allow_large_grid, extend_undecided=extend_undecided,
        time_limit=time_limit, take_over_leases=take_over_leases,
    )  # fmt: skip
    emit(result, as_json, "Sweep")
    if result["failed"]:
        raise typer.Exit(1)


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
    as the same ensemble, same threads), and compare with what the store holds. Writes
    nothing; exit 1 when the re-run differs."""
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
        print("identical" if result["identical"] else f"differs in {result['differences']}")
    if not result["identical"]:
        raise typer.Exit(1)


@app.command("threshold")
def threshold_cmd(
    store: Annotated[str, typer.Option("--store", help="SQLite results store.")] = (
        "results/ccx.db"
    ),
    target: Annotated[float, ranged(limits.ACCURACY, "--target", help="Accuracy to reach.")] = 0.99,
    precision: Annotated[int, ranged(limits.BITS, "--precision", help="p for the bounds.")] = 32,
    as_json: JsonFlag = False,
) -> None:
    """Empirical length thresholds per (task, arch, size), next to the proved bound. Each
    length's point carries its verdict; a threshold that a run still improving when its budget
    ran out would decide is "undecided" (with the length it is at least), never a length."""
    from simulations.thresholds import thresholds

    rows = thresholds(store, target=target, precision=precision)
    if as_json:
        print_json({"thresholds": rows})
        return
    from rich.table import Table

    table = Table(title=f"Thresholds (target {target}, bounds at p = {precision})")
    options = any("options" in r for r in rows)  # loops, hops, ...: runs that differ in them
    columns = ("task", "arch", "width", "layers", *(("options",) if options else ()),
               "threshold N", "bound N", "bound")  # fmt: skip
    for column in columns:
        table.add_column(column)
    for r in rows:
        shown = (" ".join(f"{k}={v}" for k, v in r.get("options", {}).items()),) if options else ()
        threshold = str(r["threshold_length"])
        if threshold == "undecided":
            threshold += (
                "" if r["threshold_at_least"] is None else f" (>= {r['threshold_at_least']})"
            )
        table.add_row(*map(cell, (
            r["task"], r["arch"], r["width"], r["layers"], *shown,
            threshold, r["bound_length"], r["bound_id"],
        )))  # fmt: skip
    print_table(table)


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
