"""Commands on languages and automata: Dyck-(n,k) counts, words and samples; minimal DFAs."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ccomplexity import limits
from ccomplexity.errors import InputError
from ccx.app import JsonFlag, app, emit, print_json, ranged

dyck_app = typer.Typer(no_args_is_help=True, help="Bounded Dyck languages Dyck-(n,k).")
dfa_app = typer.Typer(no_args_is_help=True, help="Minimal DFAs and their state counts.")
app.add_typer(dyck_app, name="dyck")
app.add_typer(dfa_app, name="dfa")

Types = Annotated[int, ranged(limits.TYPES, "--types", help="Number of bracket types n.")]
WordLength = Annotated[
    int, ranged(limits.WORD_LENGTH, "--length", help="Word length N (0: the empty word).")
]
Depth = Annotated[int, ranged(limits.DEPTH, "--depth", help="Maximum depth.")]

# --------------------------------------------------------------------------------- dyck


@dyck_app.command("count")
def dyck_count(types: Types, depth: Depth, length: WordLength, as_json: JsonFlag = False) -> None:
    """Exact number of Dyck-(n,k) words of length N (dynamic programming, any N)."""
    from ccomplexity.languages.dyck import count_dyck

    count = count_dyck(types, depth, length)
    result = {"types": types, "depth": depth, "length": length, "count": count}
    result["log2_count"] = count.bit_length() - 1 if count and count & (count - 1) == 0 else None
    emit(result, as_json, f"Dyck-({types},{depth}) words of length {length}")


@dyck_app.command("enumerate")
def dyck_enumerate(
    types: Types, depth: Depth, length: WordLength, as_json: JsonFlag = False
) -> None:
    """Every Dyck-(n,k) word of length N, in lexicographic order (small N only)."""
    from ccomplexity.languages.dyck import dyck_alphabet, enumerate_dyck

    names = dyck_alphabet(types)
    words = ["".join(names[s] for s in w) for w in enumerate_dyck(types, depth, length).tolist()]
    if as_json:
        print_json({"types": types, "depth": depth, "length": length, "words": words})
    else:
        print("\n".join(words))


@dyck_app.command("sample")
def dyck_sample(
    types: Types,
    depth: Depth,
    length: WordLength,
    batch: Annotated[int, ranged(limits.BATCH, "--batch", help="Number of words.")] = 5,
    seed: Annotated[int, ranged(limits.SEED, "--seed")] = 0,
    generator: Annotated[
        str,
        typer.Option(
            "--generator",
            help="uniform (over members), h1-positive, h1-negative (App. H.1, Dyck-(2,2)).",
        ),
    ] = "uniform",
    reading: Annotated[
        str, typer.Option("--reading", help="App. H.1 step rule: three-way or half.")
    ] = "three-way",
    as_json: JsonFlag = False,
) -> None:
    """Sample words: uniform over members of length N, or the paper's App. H.1 generators."""
    import numpy as np

    from ccomplexity.languages import dyck

    limits.check_numbers(batch * length, f"{batch} words of length {length}")
    if reading not in ("three-way", "half"):
        raise InputError(f"--reading must be three-way or half, got {reading!r}")
    rng = np.random.default_rng(seed)
    if generator == "uniform":
        words = dyck.sample_dyck(types, depth, length, batch, rng)
    elif generator in ("h1-positive", "h1-negative"):
        if (types, depth) != (2, 2):
            raise InputError("the App. H.1 generators are defined for Dyck-(2,2) only")
        make = dyck.positive_h1 if generator == "h1-positive" else dyck.negative_h1
        words = make(length, batch, rng, reading=reading)
    else:
        raise InputError(f"unknown --generator {generator!r}: uniform, h1-positive, h1-negative")
    names = dyck.dyck_alphabet(types)
    text = ["".join(names[s] for s in w) for w in np.asarray(words).tolist()]
    members = dyck.is_dyck(np.asarray(words), types, depth).tolist()
    if as_json:
        print_json({"generator": generator, "seed": seed, "words": text, "member": members})
    else:
        print(
            "\n".join(
                f"{w}  {'member' if m else 'non-member'}"
                for w, m in zip(text, members, strict=True)
            )
        )


# --------------------------------------------------------------------------------- dfa


def _dfa_result(dfa, language: str, show: bool) -> dict[str, Any]:
    from ccomplexity.automata import minimize, state_counts

    minimal = minimize(dfa)
    result: dict[str, Any] = {"language": language, **state_counts(minimal)}
    result["alphabet"] = list(minimal.alphabet)
    if show:
        result["start"] = minimal.start
        result["accepting"] = [int(q) for q in minimal.accepting.nonzero()[0]]
        result["transitions"] = minimal.transitions.tolist()
    return result


Show = Annotated[bool, typer.Option("--show", help="Include the transition table.")]


@dfa_app.command("dyck")
def dfa_dyck(types: Types, depth: Depth, show: Show = False, as_json: JsonFlag = False) -> None:
    """Minimal complete DFA of Dyck-(n,k): states with the sink, and live states."""
    from ccomplexity.automata import dyck_dfa

    result = _dfa_result(dyck_dfa(types, depth), f"Dyck-({types},{depth})", show)
    emit(result, as_json, f"Minimal DFA of Dyck-({types},{depth})")


@dfa_app.command("equality")
def dfa_equality(
    half: Annotated[int, ranged(limits.HALF, "--half", help="H: the language is {ww : |w| = H}.")],
    alphabet: Annotated[
        int, ranged(limits.ALPHABET, "--alphabet", help="Alphabet size |Sigma|.")
    ] = 2,
    show: Show = False,
    as_json: JsonFlag = False,
) -> None:
    """Minimal complete DFA of the equality language {ww : |w| = H} over A symbols."""
    from ccomplexity.automata import equality_dfa

    result = _dfa_result(equality_dfa(half, alphabet), f"{{ww : |w| = {half}}}", show)
    result.update(half=half, alphabet_size=alphabet)
    emit(result, as_json, "Minimal DFA of the equality language")


@dfa_app.command("task")
def dfa_task(
    name: Annotated[
        str, typer.Argument(help="A plugin task (ccx --plugin FILE.py dfa task NAME).")
    ],
    length: Annotated[
        int | None,
        ranged(
            limits.LENGTH,
            "--length",
            help="Build from the word function at exactly this length (a task without a DFA), "
            "or check the given DFA against it.",
        ),
    ] = None,
    show: Show = False,
    as_json: JsonFlag = False,
) -> None:
    """Minimal complete DFA of a plugin task: from its own DFA, or from its word function at a
    bounded length (the DFA of L ∩ Sigma^N)."""
    from ccomplexity import plugin_problems

    result = plugin_problems.dfa_summary(name, length)
    if show:
        dfa, _ = plugin_problems.minimal_dfa(name, None if result["method"] == "given" else length)
        result.update(
            start=dfa.start,
            accepting=[int(q) for q in dfa.accepting.nonzero()[0]],
            transitions=dfa.transitions.tolist(),
        )
    emit(result, as_json, f"Minimal DFA of {name}")
