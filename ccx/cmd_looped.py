"""Commands of the looped-reasoning paper: the group and carry automata (``ccx dfa group``,
``ccx dfa addition``), the round-counting simulators and the per-cut communication tables
(``ccx looped rounds``, ``ccx looped comm``)."""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer

from ccomplexity import budget, limits
from ccomplexity.errors import InputError
from ccx.app import JsonFlag, Seed, app, emit, ranged, with_options
from ccx.cmd_languages import Show, _dfa_result, dfa_app

looped_app = typer.Typer(
    no_args_is_help=True, help="Looped models: round counts and what crosses a cut."
)
app.add_typer(looped_app, name="looped")

GroupName = Annotated[str, typer.Option("--group", help="A finite group: Sk, Ak, Zk, Dk.")]
Task = Annotated[str, typer.Option("--task", help="group-composition or p-hop.")]
OptGroup = Annotated[str | None, typer.Option("--group", help="group-composition: the group.")]
Hops = Annotated[int | None, ranged(limits.HOPS, "--hops", help="p-hop: hops.")]
Alphabet = Annotated[
    int | None,
    ranged(limits.ALPHABET, "--alphabet", help="p-hop: alphabet size (rounds 4, comm 2)."),
]
Strict = Annotated[bool, typer.Option("--strict", help="p-hop: find_1 with j < i.")]


def task_options(
    group: OptGroup = None, hops: Hops = None, alphabet: Alphabet = None, strict: Strict = False
) -> None:
    """The options of the looped tasks (``TASK_OPTIONS``), declared once for ``looped rounds``
    and ``looped comm`` (``ccx.app.with_options``)."""


Generator = Annotated[
    str,
    typer.Option(
        "--generator", help="p-hop words: planted (App. A.1, the training task's) or uniform."
    ),
]


@dfa_app.command("group")
def dfa_group(group: GroupName, show: Show = False, as_json: JsonFlag = False) -> None:
    """Minimal DFA of the word problem {g_1..g_n in G* : g_1 ∘ ... ∘ g_n = e} over the alphabet
    G (no '#'): |G| states, the running products."""
    from ccomplexity.groups import get_group, word_problem_dfa

    g = get_group(group)
    language = f"{{w in {g.name}* : product of w = e}}"
    result = _dfa_result(word_problem_dfa(g), language, show)
    result.update(group=g.name, group_order=g.order, solvable=g.is_solvable())
    if not show:
        result.pop("alphabet")  # the |G| element names; --show lists them with the table
    emit(result, as_json, f"Minimal DFA of the word problem of {g.name}")


@dfa_app.command("addition")
def dfa_addition(
    operands: Annotated[int, ranged(limits.OPERANDS, "--operands", help="Number of operands n.")],
    show: Show = False,
    as_json: JsonFlag = False,
) -> None:
    """Minimal carry automaton of n-ary addition, column by column: n + 1 states (n live)."""
    from ccomplexity.languages.arithmetic import carry_dfa

    result = _dfa_result(carry_dfa(operands), f"carries of {operands}-ary addition", show)
    if not show:
        result.pop("alphabet")
    result["operands"] = operands
    emit(result, as_json, f"Carry automaton of {operands}-ary addition")


TASK_OPTIONS = {
    "group-composition": ("group", "length"),
    "p-hop": ("hops", "alphabet", "strict", "length"),
    "addition": ("operands",),
}
"""The task options each task of ``looped rounds`` and ``looped comm`` takes; another given
option is refused, never silently ignored."""


def _task_options(task: str, tasks: tuple[str, ...], **given: object) -> None:
    """Refuse an unknown task, a missing option it needs and a given option it does not take
    (None or False: not given)."""
    if task not in tasks:
        raise InputError(f"--task must be {' or '.join(tasks)}, got {task!r}")
    extra = [k for k, v in given.items() if v not in (None, False) and k not in TASK_OPTIONS[task]]
    if extra:
        names = ", ".join("--" + k for k in extra)
        raise InputError(f"{names} does not apply to --task {task}")
    needs = {"group-composition": "group", "p-hop": "hops", "addition": "operands"}[task]
    if given.get(needs) is None:
        raise InputError(f"{task} needs --{needs}")


RoundLength = Annotated[int, ranged(limits.ROUND_LENGTH, "--length", help="Input length N.")]
RoundSamples = Annotated[
    int, ranged(limits.ROUND_SAMPLES, "--samples", help="Random inputs to run.")
]


def _planted_words(samples: int, length: int, hops: int, alphabet: int, strict: bool, seed: int):
    """``samples`` words of the p-hop training task's planted generator (App. A.1)."""
    import torch

    from simulations.tasks.looped import planted_phop

    if length < 2 * hops + 1:
        raise InputError(
            f"the planted generator needs --length >= 2p + 1 = {2 * hops + 1}, got {length}; "
            "or use --generator uniform"
        )
    g = torch.Generator().manual_seed(seed)
    return planted_phop(samples, length, hops, alphabet, strict, g)[0].numpy()


@looped_app.command("rounds")
@with_options(task_options)
def looped_rounds(
    task: Task,
    length: RoundLength,
    rounds: Annotated[
        int | None, ranged(limits.ROUNDS, "--rounds", help="Rounds to run (default: those needed).")
    ] = None,
    generator: Generator = "planted",
    samples: RoundSamples = 1000,
    seed: Seed = 0,
    as_json: JsonFlag = False,
    **options: Any,
) -> None:
    """Run the exact round-counting simulator (Algorithm 2, or pointer doubling for p-hop) on
    random inputs: its accuracy with the rounds given and with one round fewer. Group words
    are uniform; p-hop words come from the planted generator of the training task (App. A.1:
    every chain makes p distinct hops) unless --generator uniform (about a quarter of uniform
    words at |Sigma| = 4 reach a fixed point find_1(i) = i, where fewer rounds still answer)."""
    import numpy as np

    from ccomplexity.groups import get_group
    from ccomplexity.languages.hops import hop_p
    from ccomplexity.rounds import group_doubling, pointer_doubling

    group, hops, alphabet, strict = (options[k] for k in ("group", "hops", "alphabet", "strict"))
    _task_options(
        task,
        ("group-composition", "p-hop"),
        group=group,
        hops=hops,
        alphabet=alphabet,
        strict=strict,
    )
    alphabet = 4 if alphabet is None else alphabet
    if samples * length > limits.ROUND_CELLS:
        raise InputError(
            f"{samples} samples of length {length} are {samples * length} symbols; the limit is "
            f"{limits.ROUND_CELLS}: use fewer samples or a shorter input"
        )
    if generator not in ("planted", "uniform"):
        raise InputError(f"--generator must be planted or uniform, got {generator!r}")
    if task == "p-hop":
        what = f"{samples} p-hop words of length {length} over {alphabet} symbols, {hops} hops"
        budget.check(
            what,
            *budget.pointer_chase(samples, length, hops, alphabet or 4),
            "use fewer samples, a shorter input or fewer hops",
        )
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    result: dict[str, Any] = {"task": task, "length": length}
    if task == "group-composition":
        g = get_group(group)
        words = rng.integers(0, g.order, (samples, length))
        truth = g.compose(words)

        def run(r: int | None):
            return group_doubling(g, words, r)

        result.update(group=g.name, bound="looped.thm2_1")
    else:
        if generator == "planted":
            words = _planted_words(samples, length, hops, alphabet, strict, seed)
        else:
            words = rng.integers(0, alphabet, (samples, length))
        truth = hop_p(words, hops, strict)

        def run(r: int | None):
            return pointer_doubling(words, hops, r, strict)

        result.update(
            hops=hops, alphabet=alphabet, strict=strict, generator=generator, bound="looped.cor2_3"
        )
    done = run(rounds)
    result.update(rounds=done.rounds, rounds_needed=done.rounds_needed)
    result["accuracy"] = float((done.answers == truth).mean())
    if done.rounds >= 1 + (task == "p-hop"):
        fewer = run(done.rounds - 1)
        result["accuracy_one_round_fewer"] = float((fewer.answers == truth).mean())
    result.update(samples=samples, seed=seed, seconds=round(time.perf_counter() - start, 3))
    emit(result, as_json, f"Rounds of the {task} simulator")


@looped_app.command("comm")
@with_options(task_options)
def looped_comm(
    task: Annotated[str, typer.Option("--task", help="group-composition, p-hop or addition.")],
    length: Annotated[int | None, ranged(limits.LENGTH, "--length", help="Input length N.")] = None,
    operands: Annotated[
        int | None, ranged(limits.OPERANDS, "--operands", help="addition: operands.")
    ] = None,
    as_json: JsonFlag = False,
    **options: Any,
) -> None:
    """What must cross each prefix/suffix cut, exactly, next to the loops the paper proves:
    one-way bits and fooling sets per cut (group composition, p-hop) and automaton sizes."""
    from ccomplexity import cut_tables
    from ccomplexity.groups import get_group

    start = time.perf_counter()
    group, hops, alphabet, strict = (options[k] for k in ("group", "hops", "alphabet", "strict"))
    _task_options(
        task,
        tuple(TASK_OPTIONS),
        length=length,
        group=group,
        hops=hops,
        alphabet=alphabet,
        strict=strict,
        operands=operands,
    )
    alphabet = 2 if alphabet is None else alphabet
    if task == "addition":
        result = cut_tables.addition_automaton(operands)
    else:
        if length is None:
            raise InputError(f"{task} needs --length")
        if task == "group-composition":
            result = cut_tables.group_cuts(get_group(group), length)
        else:
            result = cut_tables.phop_cuts(alphabet, length, hops, strict)
    result["seconds"] = round(time.perf_counter() - start, 3)
    if as_json or "cuts" not in result:
        emit(result, as_json, f"Communication across cuts: {task}")
        return
    cuts = result.pop("cuts")
    print(", ".join(f"{k} {v}" for k, v in result.items()))
    header = ("cut", "distinct_rows", "one_way_bits", "fooling_set", "fooling_bits")
    print("  ".join(header))
    for row in cuts:
        print("  ".join(str(row[k]).rjust(len(k)) for k in header))
