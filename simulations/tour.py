"""`ccx tour`: a short printed tour of what the exact core computes, each number recomputed."""

from __future__ import annotations

import time

from rich.table import Table


def run_tour() -> tuple[Table, str]:
    """Compute the headline facts of the separations paper, with timings: the table, and a
    line on how to re-check them (``ccx tour`` prints both)."""
    from ccomplexity import bounds, lower_bounds, problems
    from ccomplexity.automata import dyck_dfa, equality_dfa, minimize, state_counts
    from ccomplexity.languages.dyck import count_dyck

    table = Table(title="ccomplexity: exact lower bounds, recomputed now")
    for column in ("fact", "value", "source", "seconds"):
        table.add_column(column)

    def row(fact: str, compute, source: str) -> None:
        start = time.perf_counter()
        value = compute()
        table.add_row(fact, str(value), source, f"{time.perf_counter() - start:.3f}")

    row("Dyck-(2,2) words of length 14", lambda: count_dyck(2, 2, 14), "App. E: 2^(N-1)")
    row(
        "minimal DFA of Dyck-(2,2): states / live",
        lambda: "{states} / {live_states}".format(**state_counts(minimize(dyck_dfa(2, 2)))),
        "Sec. 4.1 (7 live + sink)",
    )
    row(
        "minimal DFA of {ww : |w| = 3}, binary",
        lambda: state_counts(minimize(equality_dfa(3, 2)))["states"],
        "Lemma 4 / Thm 11",
    )

    def dyck_fooling(n: int) -> str:
        prob = problems.dyck(2, 2, n, "odd-even")
        found = lower_bounds.dyck_fooling_set(prob)
        check = lower_bounds.verify_fooling_set(prob, found.rows, found.cols, found.value)
        return f"|S| = {check.size}, verified = {check.valid}"

    row("Dyck-(2,2) odd-even fooling set, N = 16", lambda: dyck_fooling(16), "Lemma 1")

    def symbolic(n: int) -> str:
        sym = lower_bounds.dyck_fooling_symbolic(2, 2, n)
        return f">= {sym['bits']} bits, verified = {sym['verified']}"

    row("same, symbolic through the automaton, N = 1000", lambda: symbolic(1000), "Lemma 1")
    row(
        "one-way INDEX_10 (Alice -> Bob)",
        lambda: f"{lower_bounds.one_way_bits(problems.index(10)).bits} bits",
        "Fact 3",
    )
    row(
        "rank of EQ_3 over GF(2^31 - 1)",
        lambda: lower_bounds.rank_mod_p(problems.equality(3).matrix()).rank,
        "log-rank",
    )
    row(
        "D(EQ_3) by protocol-tree search",
        lambda: f"{lower_bounds.exact_bits(problems.equality(3).matrix()).bits} bits",
        "Fact 2: n + 1",
    )
    row(
        "RNN, m = 128, p = 64: longest index lookup allowed",
        lambda: f"N <= {bounds.get('separations.thm3').max_length(128, 64)}",
        "Thm 3",
    )
    row(
        "1-layer TF, p = 16, N = 400: Dyck-(2,2) needs mH >=",
        lambda: bounds.get("separations.thm5").min_width(400, 16),
        "Thm 5",
    )
    return table, (
        "Re-check any of these with a certificate: "
        "ccx fooling --problem dyck --types 2 --depth 2 --length 12 --certificate c.json; "
        "ccx verify c.json"
    )
