"""Bad input to every command: exit status 2 (``ccx verify``: 1 or 2), exactly one line on
stderr, no traceback, nothing created or changed in the working folder, within seconds.

Each row of :data:`CASES` is (command line, a fragment of the expected message). Every case runs
in-process (the ``ccx`` fixture) in a fresh folder holding the fixtures of :func:`_fixtures`:
``adir/`` (an empty folder), ``afile.txt`` (a text file), ``other.db`` (someone else's SQLite
database), ``nan.pt`` (a checkpoint whose weights hold a NaN), spec files and certificates of
every hostile kind. Memory is capped during a case, so a command that allocates before it
checks fails here instead of swapping. (``kill -9`` of a running sweep is in test_workers.py.)

Beside these hand rows, the table is generated from the CLI's own definition (every command,
subcommand and option, walked from the click tree): each numeric option declares its range
(``ccx.app.ranged``) and each written path its kind (``ccx.app.written``), and is tried
below and above the range, at huge values, on unwritable paths. A new option needs only its
declared range; a new command adds hand rows only for what declarations cannot say (files,
stores, certificates).
Every statement of ``ccx bound`` is tried at hostile values, and each writing command with its
own input as output. One file, longer than most, because it is one table.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

BIG = "1" + "0" * 29  # a 30-digit number
SECONDS = 10.0
"""Budget per case (generous: the suite runs on loaded machines; most take well under 1 s)."""
HEADROOM = 4 << 30
"""Address space a case may add to the test process before an allocation fails."""

_TOML = """[baseline]
task = "index-lookup"
arch = "lstm"
width = 16
layers = 1
length = 10
steps = 10
"""

_KG_TOML = """[sweep]
grow = "relations"
grow_by = 2
grow_to = 8

[baseline]
task = "kg-path"
arch = "transformer"
width = 8
layers = 1
length = 1
heads = 2
steps = 10
entities = 8
relations = 2
"""

FIXTURES_TEXT = {
    "afile.txt": "hello\n",
    "nested.json": "[" * 100_000 + "]" * 100_000,
    "dupkeys.json": '{"format": "ccomplexity-certificate", "format": "x"}',
    "nan.json": '{"format": NaN}',
    "bigint.json": '{"format_version": ' + "9" * 5000 + "}",
    "version_true.json": json.dumps(
        {"format": "ccomplexity-certificate", "format_version": True, "kind": "rank"}
    ),
    "note.json": json.dumps(
        {"format": "ccomplexity-certificate", "format_version": 1, "kind": "rank",
         "note": "this proves 999 bits"}
    ),
    "big_grid.toml": _TOML + "[grid]\nseed = " + str(list(range(1000))) + "\nlr = "
    + str([10.0**-i for i in range(1, 12)]) + "\n",
    "huge_grid.toml": _TOML + "[grid]\nseed = " + str(list(range(1001))) + "\nlr = "
    + str([1.0 / i for i in range(1, 1001)]) + "\n",
    "long.toml": _TOML + "[grid]\nlength = [1000000000]\n",
    "wide.toml": _TOML + "[grid]\nwidth = [1000000]\n",
    "batch.toml": _TOML + "[grid]\nbatch = [1000000000]\n",
    "heads.toml": _TOML.replace('"lstm"', '"transformer"') + "heads = 3\n",
    "samples.toml": _TOML + "eval_samples = 1000000000000\n",
    "nested.toml": "a = " + "[" * 100_000 + "]" * 100_000 + "\n",
    "nan.toml": _TOML + "lr = nan\n",
    "grow_field.toml": _KG_TOML.replace('grow = "relations"', 'grow = "gate"'),
    "grow_partial.toml": _KG_TOML.replace("grow_by = 2\n", ""),
    "grow_start.toml": _KG_TOML.replace("grow_to = 8", "grow_to = 1"),
    "grow_huge.toml": _KG_TOML.replace("grow_to = 8", "grow_to = 100000000"),
    "grow_vocab.toml": _KG_TOML.replace("grow_to = 8", "grow_to = 2000000"),
    "ok.csv": "1,0\n0,1\n",
    "protocol.json": json.dumps(
        {"format": "ccomplexity-certificate", "format_version": 1, "kind": "protocol_rnn",
         "software": {"name": "ccomplexity", "version": "0"}, "claim": {"bits_sent": 1}}
    ),
    "ragged.csv": "1,0\n0,1,1\n",
    "badentry.csv": "1,0\n0,2\n",
}  # fmt: skip
FIXTURES_BYTES = {
    "nonutf8.json": b'{"format": "\xff\xfe"}',
    "nonutf8.toml": b"[baseline]\ntask = '\xff'\n",
    "nonutf8.csv": b"1,0\n\xff,1\n",
    "random.pt": bytes(range(256)) * 64,
}

V = ("verify",)
L2P = ("protocol", "attention", "--one-way", "--task", "length2-path")
CASES: list[tuple[tuple[str, ...], str]] = [
    # top level
    (("nosuch",), "No such command"),
    (("tour", "--bogus"), "No such option"),
    # Typer's own parser says "a valid integer", click's (older Typer) "not a valid int."
    (("dyck", "count", "--types", "x", "--depth", "2", "--length", "4"), "valid int"),
    # dyck
    (("dyck", "count", "--types", "0", "--depth", "2", "--length", "4"), "--types must be"),
    (("dyck", "count", "--types", BIG, "--depth", "2", "--length", "4"), "exceeds the limit"),
    (("dyck", "count", "--types", "2", "--depth", "2", "--length", BIG), "--length"),
    (("dyck", "count", "--types", "32768", "--depth", "1048576", "--length", "1048576"),
     "counting Dyck-(32768,1048576)"),
    (("dyck", "count", "--types", "2", "--depth", "-1", "--length", "4"), "--depth"),
    (("dyck", "enumerate", "--types", BIG, "--depth", "2", "--length", "4"), "--types"),
    (("dyck", "enumerate", "--types", "2", "--depth", "2", "--length", "1000"), "enumeration"),
    (("dyck", "sample", "--types", "2", "--depth", "2", "--length", "10", "--batch", BIG),
     "--batch"),
    (("dyck", "sample", "--types", "2", "--depth", "2", "--length", "10", "--seed", "-1"),
     "--seed"),
    (("dyck", "sample", "--types", "2", "--depth", "2", "--length", "1000000", "--batch",
      "65536"), "numbers at once"),
    (("dyck", "sample", "--types", "2", "--depth", "2", "--length", "10", "--reading", "x"),
     "--reading"),
    (("dyck", "sample", "--types", "2", "--depth", "2", "--length", "10", "--generator", "x"),
     "--generator"),
    # dfa
    (("dfa", "dyck", "--types", "2", "--depth", "1000000"), "live states"),
    (("dfa", "dyck", "--types", "2", "--depth", "1000000000"), "--depth"),
    (("dfa", "dyck", "--types", BIG, "--depth", "2"), "--types"),
    (("dfa", "equality", "--half", BIG), "--half"),
    (("dfa", "equality", "--half", "500000"), "states"),
    (("dfa", "equality", "--half", "0"), "--half"),
    (("dfa", "task", "nosuch", "--length", "4"), "no loaded plugin"),
    (("--plugin", "missing.py", "dfa", "task", "nosuch"), "missing.py"),
    (("dfa", "equality", "--half", "3", "--alphabet", "0"), "--alphabet"),
    # fooling
    (("fooling", "--problem", "dyck", "--types", "2", "--depth", "2", "--length", "1000000000"),
     "exceeds the limit of 1048576"),
    (("fooling", "--problem", "dyck", "--types", "1", "--depth", "40", "--length", "1000000"),
     "steps; the limit is 4294967296"),
    (("fooling", "--problem", "equality", "--half", BIG), "--half"),
    (("fooling", "--problem", "equality", "--half", "3", "--alphabet", BIG), "--alphabet"),
    (("fooling", "--problem", "equality", "--half", "3", "--certificate", "adir"), "is a folder"),
    (("fooling", "--problem", "equality", "--half", "3", "--certificate", "afile.txt/c.json"),
     "lies under afile.txt"),
    (("fooling", "--problem", "equality", "--half", "3", "--certificate", "nodir/c.json"),
     "does not exist"),
    (("fooling", "--problem", "nosuch"), "unknown problem"),
    (("fooling", "--problem", "dyck", "--types", "2", "--depth", "2", "--length", "12",
      "--partition", "alice:1,99"), "distinct positions"),
    (("fooling", "--problem", "dyck", "--types", "2", "--depth", "2", "--length", "12",
      "--partition", "prefix:" + BIG), "longer than any position"),
    # matrix and random problems (fooling, cc)
    (("fooling", "--problem", "matrix", "--file", "missing.csv"), "does not exist"),
    (("fooling", "--problem", "matrix", "--file", "adir"), "not a file"),
    (("fooling", "--problem", "matrix", "--file", "ragged.csv"), "equal length"),
    (("fooling", "--problem", "matrix", "--file", "badentry.csv"), "must be 0 or 1"),
    (("fooling", "--problem", "matrix", "--file", "nonutf8.csv"), "UTF-8"),
    (("fooling", "--problem", "matrix", "--file", "huge.csv"), "the limit is 33554432"),
    (("fooling", "--problem", "matrix", "--file", "ok.csv", "--certificate", "adir"),
     "is a folder"),
    (("fooling", "--problem", "matrix", "--exact", "--file", "ok.csv", "--nodes", "-1"),
     "--nodes"),
    (("fooling", "--problem", "matrix", "--exact", "--file", "ok.csv", "--seconds", "nan"),
     "--seconds"),
    (("fooling", "--problem", "random", "--rows", BIG, "--cols", "3", "--seed", "0"), "--rows"),
    (("fooling", "--problem", "random", "--rows", "3", "--cols", "-3", "--seed", "0"), "--cols"),
    (("fooling", "--problem", "random", "--rows", "3", "--cols", "3", "--seed", "-1"), "--seed"),
    (("fooling", "--problem", "random", "--rows", "3", "--cols", "3", "--seed", BIG), "--seed"),
    (("fooling", "--problem", "random", "--rows", "3", "--cols", "3", "--seed", "0",
      "--density", "2"), "--density"),
    (("fooling", "--problem", "random", "--rows", "3", "--cols", "3"), "needs --seed"),
    (("fooling", "--problem", "random", "--exact", "--rows", "4096", "--cols", "4096",
      "--seed", "0"), "limited to 1048576 entries"),
    (("cc", "oneway", "--problem", "matrix", "--file", "ragged.csv"), "equal length"),
    (("cc", "oneway", "--problem", "random", "--rows", "3", "--cols", "3", "--seed", "0",
      "--certificate", "afile.txt/x.json"), "lies under"),
    (("cc", "rank", "--problem", "random", "--rows", "3", "--cols", "3", "--seed", "0",
      "--prime", "4"), "prime"),
    (("cc", "rank", "--problem", "random", "--rows", "3", "--cols", "3", "--seed", "0",
      "--prime", BIG), "prime"),
    (("cc", "rank", "--problem", "matrix", "--file", "huge.csv"), "the limit is 33554432"),
    (("cc", "exact", "--problem", "random", "--rows", "1000", "--cols", "1000", "--seed", "0"),
     "16 distinct rows"),
    (("cc", "exact", "--problem", "equality", "--half", "12"), "limited to 1048576 entries"),
    (("cc", "exact", "--problem", "matrix", "--file", "nonutf8.csv"), "UTF-8"),
    # knowledge graphs: kg sample / products / split, dfa kg
    (("kg", "sample", "--entities", BIG, "--relations", "2", "--hops", "2"), "--entities"),
    (("kg", "sample", "--entities", "8", "--relations", "2", "--hops", BIG), "--hops"),
    (("kg", "sample", "--entities", "8", "--relations", "2", "--hops", "2", "--batch", "-1"),
     "--batch"),
    (("kg", "sample", "--entities", "8", "--relations", "2", "--hops", "2", "--seed", "-1"),
     "--seed"),
    (("kg", "sample", "--entities", "65536", "--relations", "65536", "--hops", "2"),
     "a knowledge graph of 65536 entities"),
    (("kg", "products", "--entities", "8", "--relations", BIG, "--hops", "2"), "--relations"),
    (("kg", "products", "--entities", "8", "--relations", "2", "--hops", "0"), "--hops"),
    (("kg", "products", "--entities", "4096", "--relations", "4096", "--hops", "3"),
     "the limit is 33554432"),
    (("kg", "split", "--entities", "8", "--relations", "2", "--hops", "2", "--cut", BIG),
     "--cut"),
    (("kg", "split", "--entities", "8", "--relations", "2", "--hops", "2", "--cut", "5"),
     "--cut K"),
    (("kg", "split", "--entities", "8", "--relations", "-2", "--hops", "2", "--cut", "1"),
     "--relations"),
    (("kg", "split", "--entities", "8", "--relations", "2", "--hops", "4000", "--cut", "1"),
     "reach 2^62"),
    (("kg", "split", "--entities", "8", "--relations", "2", "--hops", "2", "--cut", "1",
      "--certificate", "adir"), "is a folder"),
    (("kg", "split", "--entities", "8", "--relations", "2", "--hops", "2", "--cut", "1",
      "--certificate", "afile.txt/c.json"), "lies under"),
    (("dfa", "kg", "--entities", BIG, "--relations", "2"), "--entities"),
    (("dfa", "kg", "--entities", "8", "--relations", "2", "--hops", "0"), "--hops"),
    (("dfa", "kg", "--entities", "8", "--relations", "2", "--seed", "-1"), "--seed"),
    (("dfa", "kg", "--entities", "65536", "--relations", "256"), "the limit is 4194304"),
    # looped-reasoning: rounds, cut tables, automata, task samples
    (("looped", "rounds", "--task", "group-composition", "--group", "S5", "--length", BIG),
     "--length"),
    (("looped", "rounds", "--task", "group-composition", "--group", "Q9", "--length", "10"),
     "unknown group"),
    (("looped", "rounds", "--task", "p-hop", "--hops", "0", "--length", "10"), "hops"),
    (("looped", "rounds", "--task", "nosuch", "--length", "4"), "--task must be"),
    (("looped", "rounds", "--task", "p-hop", "--hops", "2", "--length", "10", "--generator",
      "bogus"), "--generator must be"),
    (("looped", "rounds", "--task", "p-hop", "--hops", "8", "--length", "10"), "2p + 1 = 17"),
    (("bound", "--theorem", "looped.lemmaB_2", "--dim", "9" * 70, "--precision", "8"), "digits"),
    (("bound", "--theorem", "looped.lemmaB_3", "--alphabet", "0", "--model-dim", "4",
      "--precision", "8"), "alphabet"),
    (("bound", "--theorem", "looped.lemmaB_4", "--precision", "0"), "precision"),
    (("bound", "--theorem", "looped.lemmaB_5", "--model-dim", "1"), "d must be >= 2"),
    (("bound", "--theorem", "looped.appA1_examples", "--length", "4"), "takes no parameter"),
    (("bound", "--theorem", "looped.appA1_examples", "--operands", "0"), "operands"),
    (("looped", "comm", "--task", "p-hop", "--alphabet", "2", "--length", "100", "--hops", "3"),
     "4194304"),
    (("looped", "comm", "--task", "p-hop", "--alphabet", "0", "--length", "10", "--hops", "3"),
     "--alphabet"),
    (("looped", "comm", "--task", "group-composition", "--group", "S5", "--length", "30"),
     "2^62"),
    (("dfa", "group", "--group", "S100"), "at most 40"),
    (("dfa", "group", "--group", "S9"), "at most 720"),
    (("dfa", "addition", "--operands", "0"), "operands"),
    (("dfa", "addition", "--operands", BIG), "--operands"),
    (("task", "nosuch", "--length", "4"), "unknown task"),
    (("task", "p-hop", "--length", BIG), "--length"),
    (("task", "p-hop", "--length", "16", "--hops", "-1"), "hops"),
    (("task", "p-hop", "--length", "16", "--batch", BIG), "--batch"),
    (("task", "p-hop", "--length", "16", "--seed", "-1"), "--seed"),
    (("task", "addition", "--length", "4", "--digits", "12"), "digits"),
    (("task", "group-composition", "--length", "16", "--group", "Z0"), "k must be"),
    (("task", "p-hop", "--hops", "2"), "needs --length"),
    (("task", "i-gsm", "--query-depth", "65"), "query_depth"),
    (("task", "i-gsm", "--query-depth", "deep"), "query_depth"),
    (("task", "i-gsm", "--query-depth", BIG), "query_depth"),
    (("task", "i-gsm", "--depth", "2"), "the model's depth is layers"),
    (("task", "i-gsm", "--query-depth", "2", "--modulus", "9"), "prime"),
    (("task", "i-gsm", "--query-depth", "2", "--modulus", BIG), "modulus"),
    (("task", "i-gsm", "--length", "600"), "statements"),
    (("task", "i-gsm", "--length", "3", "--query-depth", "4"), "query_depth + 1"),
    (("task", "i-gsm", "--length", "512", "--batch", "4096"), "use a smaller --batch"),
    (("train", "--task", "i-gsm", "--arch", "looped", "--width", "8", "--length", "8",
      "--query-depth", "-1"), "query_depth"),
    (("train", "--task", "i-gsm", "--arch", "looped", "--width", "8", "--length", "8",
      "--query-depth", BIG), "query_depth"),
    (("train", "--task", "i-gsm", "--arch", "looped", "--width", "8", "--length", "8",
      "--depth", "2"), "the model's depth is --layers"),
    (("construct", "--task", "group-composition", "--length", "64", "--loops", "-1"), "loops"),
    (("construct", "--task", "group-composition", "--length", "64", "--group", "S20"),
     "at most 720"),
    # cc
    (("cc", "oneway", "--problem", "index", "--length", BIG), "--length"),
    (("cc", "oneway", "--problem", "index", "--length", "10", "--certificate", "adir"),
     "is a folder"),
    (("cc", "rank", "--problem", "equality", "--half", "3", "--certificate", "afile.txt/c.json"),
     "lies under"),
    (("cc", "rank", "--problem", "equality", "--half", BIG), "--half"),
    (("cc", "exact", "--problem", "equality", "--half", "0"), "--half"),
    (("cc", "exact", "--problem", "disjointness", "--half", BIG), "--half"),
    # bound, claims, codes
    (("bound", "--theorem", "nosuch"), "nosuch"),
    (("bound", "--theorem", "separations.thm3", "--width", "-1", "--precision", "64"), "width"),
    (("bound", "--theorem", "kg.thm5_1", "--entities", "8", "--relations", "4", "--hops", "-3"),
     "hops"),
    (("bound", "--theorem", "parrots.thm3_1", "--vertices", "-5", "--precision", "16",
      "--width", "8"), "vertices"),
    (("bound", "--theorem", "kg.thm5_1", "--entities", "8", "--relations", "4"), "give"),
    (("bound", "--theorem", "kg.prop_b6", "--model-dim", "0", "--mlp-width", "8"), "model_dim"),
    (("bound", "--theorem", "kg.cor_b7", "--model-dim", "8", "--mlp-width", "8"), "give"),
    (("bound", "--theorem", "kg.cor_b7", "--model-dim", "8", "--mlp-width", "8", "--layers",
      "1" + "0" * 70), "digits"),
    (("bound", "--theorem", "kg.prop_b8", "--model-dim", "8", "--mlp-width", "2.5"),
     "mlp_width"),
    (("bound", "--theorem", "kg.prop_b9", "--model-dim", "8", "--mlp-width", "-1"), "mlp_width"),
    (("bound", "--theorem", "parrots.thmA_11", "--examples", "10", "--length", "8", "--dim",
      "8", "--delta", "2"), "delta"),
    (("bound", "--theorem", "parrots.thmA_12", "--examples", "10", "--length", "8", "--dim",
      "8", "--experts", "0"), "experts"),
    (("bound", "--theorem", "parrots.thmA_12", "--examples", "10", "--length", "8", "--dim",
      "8"), "give"),
    (("bound", "--theorem", "parrots.thm3_1_exact", "--vertices", "0", "--precision", "16"),
     "vertices"),
    (("bound", "--theorem", "parrots.thm3_1_exact", "--vertices", "16", "--precision", "1"),
     "precision p"),
    (("claims", "--task", "nosuch"), "no claim on task"),
    (("claims", "--family", "nosuch"), "no claim on family"),
    (("codes", "--length", "1000000000"), "exceeds the limit of 16384"),
    (("codes", "--length", "16000"), "Gram products"),
    (("codes", "--length", "100", "--gamma", "1e-300"), "use a larger gamma"),
    (("codes", "--length", "100", "--seed", "-1"), "seed"),
    (("codes", "--length", "1"), "--length"),
    # verify (exit 1 or 2)
    ((*V, "missing.json"), "does not exist"),
    ((*V, "adir"), "not a file"),
    ((*V, "afile.txt"), "not valid JSON"),
    ((*V, "nested.json"), "nested"),
    ((*V, "nonutf8.json"), "UTF-8"),
    ((*V, "dupkeys.json"), "duplicate key"),
    ((*V, "nan.json"), "NaN"),
    ((*V, "bigint.json"), "digits"),
    ((*V, "version_true.json"), "format_version"),
    ((*V, "note.json"), "unknown field"),
    ((*V, "huge.json"), "the limit is"),
    # models, construct
    (("models", "--width", "1000000"), "exceeds the limit of 16384"),
    (("models", "--layers", BIG), "layers"),
    (("models", "--width", "4096", "--layers", "64"), "would hold"),
    (("models", "--precision", "0"), "--precision"),
    (("models", "--vocab-size", BIG), "--vocab-size"),
    (("construct", "--task", "index-lookup", "--length", BIG), "length"),
    (("construct", "--task", "dyck", "--length", "16", "--seed", "-1"), "seed"),
    (("construct", "--task", "equality", "--length", "16", "--samples", BIG), "samples"),
    (("construct", "--task", "nosuch", "--length", "4"), "unknown construction task"),
    (("construct", "--task", "dyck", "--length", "16", "--depth", BIG), "--depth"),
    (("construct", "--task", "dyck", "--length", "16", "--depth", "1000000"), "live states"),
    (("construct", "--task", "length2-path", "--vertices", BIG), "--vertices"),
    (("construct", "--task", "length2-path", "--vertices", "-1"), "--vertices"),
    (("construct", "--task", "length2-path", "--vertices", "8", "--samples", BIG), "--samples"),
    (("construct", "--task", "memorize", "--examples", "64", "--dim", BIG), "--dim"),
    (("construct", "--task", "memorize", "--examples", "64", "--dim", "8", "--trials",
      "100000"), "--trials"),
    (("construct", "--task", "memorize", "--examples", "64", "--dim", "8", "--experts", "0"),
     "--experts"),
    (("construct", "--task", "memorize", "--examples", "1000000", "--dim", "16000"),
     "the memoriser of 1000000"),
    (("construct", "--task", "memorize", "--vertices", "8"), "has no option"),
    (("construct", "--task", "kg-path", "--entities", "8", "--relations", "2", "--hops", BIG),
     "--hops"),
    (("construct", "--task", "kg-path", "--entities", "8", "--relations", "2", "--hops",
      "1000"), "hops must be at most 64"),
    (("construct", "--task", "kg-path", "--entities", "65536", "--relations", "256", "--hops",
      "4"), "the limit is 262144"),
    (("construct", "--task", "kg-path", "--entities", "8", "--relations", "2", "--hops", "2",
      "--experts", "100"), "at most E = 8 experts"),
    (("models", "--experts", BIG), "--experts"),
    (("models", "--experts", "0"), "--experts"),
    # protocol rnn / attention / reduce / bits-used
    (("protocol", "rnn", "--arch", "lstm", "--width", BIG, "--length", "10", "--cut", "5",
      "--precision", "16"), "width"),
    (("protocol", "rnn", "--arch", "lstm", "--width", "8", "--length", BIG, "--cut", "5",
      "--precision", "16"), "length"),
    (("protocol", "rnn", "--arch", "lstm", "--width", "8", "--length", "10", "--cut", "5",
      "--precision", "16", "--samples", BIG), "samples"),
    (("protocol", "rnn", "--arch", "lstm", "--width", "8", "--length", "10", "--cut", "5",
      "--precision", "16", "--seed", "-1"), "seed"),
    (("protocol", "rnn", "--arch", "lstm", "--width", "8", "--length", "10", "--cut", "5",
      "--precision", "100"), "precision"),
    (("protocol", "rnn", "--arch", "lstm", "--width", "8", "--length", "10", "--cut", "5",
      "--precision", "16", "--certificate", "adir"), "is a folder"),
    (("protocol", "rnn", "--arch", "lstm", "--width", "8", "--length", "10", "--cut", "5",
      "--precision", "16", "--layers", "256", "--samples", "10000000"), "numbers at once"),
    (("protocol", "rnn", "--checkpoint", "nan.pt", "--length", "10", "--cut", "5",
      "--precision", "16"), "NaN"),
    (("protocol", "rnn", "--checkpoint", "afile.txt", "--length", "10", "--cut", "5",
      "--precision", "16"), "not a readable checkpoint"),
    (("protocol", "attention", "--width", "8", "--heads", "2", "--length", BIG, "--partition",
      "odd-even", "--precision", "16"), "length"),
    (("protocol", "attention", "--width", "8", "--heads", "3", "--length", "10", "--partition",
      "odd-even", "--precision", "16"), "multiple of heads"),
    (("protocol", "attention", "--width", "8", "--heads", "2", "--length", "100000",
      "--partition", "odd-even", "--precision", "40", "--samples", "100000"),
     "numbers at once"),
    (("protocol", "attention", "--width", "8", "--heads", "2", "--length", "10", "--partition",
      "odd-even", "--precision", "16", "--certificate", "afile.txt/c.json"), "lies under"),
    (("protocol", "reduce", "--reduction", "index", "--arch", "lstm", "--width", BIG,
      "--length", "10", "--precision", "16"), "width"),
    (("protocol", "reduce", "--reduction", "index", "--arch", "lstm", "--width", "8",
      "--length", BIG, "--precision", "16"), "length"),
    (L2P + ("--vertices", BIG, "--width", "8", "--precision", "16"), "vertices"),
    (L2P + ("--vertices", "8", "--width", "8", "--precision", "16", "--experts", BIG),
     "experts"),
    (L2P + ("--vertices", "8", "--width", "8", "--precision", "16", "--experts", "2",
            "--samples", "-5"), "samples"),
    (L2P + ("--vertices", "8", "--width", "8", "--precision", "16", "--experts", "2",
            "--certificate", "adir"), "is a folder"),
    (L2P + ("--vertices", "8", "--precision", "16", "--checkpoint", "nan.pt"), "NaN"),
    (L2P + ("--vertices", "8", "--precision", "16", "--checkpoint", "afile.txt"),
     "not a readable checkpoint"),
    (("protocol", "attention", "--width", "8", "--heads", "2", "--length", "10", "--partition",
      "odd-even", "--precision", "16", "--experts", "4"), "--experts does not apply"),
    (("protocol", "attention", "--width", "8", "--heads", "2", "--length", "10", "--partition",
      "odd-even", "--precision", "16", "--query-token", "3"), "--query-token does not apply"),
    (L2P + ("--vertices", "8", "--width", "8", "--precision", "16", "--length", "8"),
     "--length does not apply"),
    (("protocol", "attention", "--one-way", "--task", "nosuch", "--vertices", "8", "--width",
      "8", "--precision", "16"), "--task must be length2-path"),
    (("protocol", "attention", "--width", "8", "--heads", "2", "--length", "10", "--partition",
      "odd-even", "--precision", "16", "--one-way", "--query-token", "-1"), "query_token"),
    (("protocol", "attention", "--width", "8", "--heads", "2", "--length", "10", "--partition",
      "odd-even", "--precision", "16", "--one-way", "--query-token", BIG), "query_token"),
    (("protocol", "attention", "--width", "8", "--heads", "2", "--length", "10", "--partition",
      "odd-even", "--precision", "16", "--one-way", "--single-output"), "different protocols"),
    (("protocol", "attention", "--width", "8", "--heads", "2", "--length", "10", "--partition",
      "odd-even", "--precision", "16", "--single-output", "--certificate", "afile.txt/c.json"),
     "lies under"),
    (("protocol", "attention", "--checkpoint", "nan.pt", "--length", "10", "--partition",
      "odd-even", "--precision", "16"), "NaN"),
    (("protocol", "reduce", "--reduction", "length2-path", "--vertices", BIG, "--precision",
      "16"), "--vertices"),
    (("protocol", "reduce", "--reduction", "length2-path", "--vertices", "8", "--precision",
      "16", "--experts", "-3"), "--experts"),
    (("protocol", "reduce", "--reduction", "length2-path", "--vertices", "8", "--precision",
      "16", "--heads", BIG), "--heads"),
    (("protocol", "reduce", "--reduction", "length2-path", "--vertices", "8", "--precision",
      "16", "--checkpoint", "nan.pt"), "NaN"),
    (("protocol", "reduce", "--reduction", "dyck", "--checkpoint", "nan.pt", "--precision",
      "16"), "NaN"),
    (("protocol", "reduce", "--reduction", "index", "--checkpoint", "afile.txt", "--precision",
      "16"), "not a readable checkpoint"),
    (("protocol", "reduce", "--reduction", "index", "--checkpoint", "adir", "--precision", "16"),
     "no such file"),
    (("protocol", "bits-used", "--checkpoint", "nan.pt", "--cut", "5"), "NaN"),
    (("protocol", "bits-used", "--arch", "lstm", "--width", "8", "--length", "10", "--cut",
      "5", "--samples", BIG), "samples"),
    # train
    (("train", "--task", "index-lookup", "--arch", "lstm", "--width", "1000000", "--length",
      "10"), "width"),
    (("train", "--task", "index-lookup", "--arch", "lstm", "--width", "8", "--length",
      "1000000000"), "length"),
    (("train", "--task", "index-lookup", "--arch", "lstm", "--width", "8", "--length", "10",
      "--device", "foo"), "unknown device"),
    (("train", "--task", "index-lookup", "--arch", "lstm", "--width", "8", "--length", "10",
      "--checkpoint-dir", "afile.txt"), "is a file, not a folder"),
    (("train", "--task", "index-lookup", "--arch", "lstm", "--width", "8", "--length", "10",
      "--batch", BIG), "batch"),
    (("train", "--task", "index-lookup", "--arch", "lstm", "--width", "8", "--length", "10",
      "--threads", "0"), "threads"),
    (("train", "--task", "index-lookup", "--arch", "transformer", "--width", "16", "--heads",
      "3", "--length", "10"), "multiple of heads"),
    (("train", "--task", "addition", "--arch", "looped", "--width", "16", "--length", "4",
      "--digits", "10"), "digits"),
    (("train", "--task", "addition", "--arch", "looped", "--width", "16", "--length", "4",
      "--digits", "0"), "digits"),
    (("train", "--task", "dyck", "--arch", "lstm", "--width", "8", "--length", "8",
      "--optimizer", "sgd"), "optimizer must be one of"),
    (("train", "--task", "dyck", "--arch", "lstm", "--width", "8", "--length", "8",
      "--steps", "10", "--warmup", "10"), "warmup"),
    (("train", "--task", "dyck", "--arch", "lstm", "--width", "8", "--length", "8",
      "--weight-decay", "2"), "weight_decay"),
    (("train", "--task", "dyck", "--arch", "lstm", "--width", "8", "--length", "8",
      "--clip", "-1"), "clip"),
    # rerun
    (("rerun", "--store", "nosuch.db", "--run", "1"), "no results store"),
    (("rerun", "--store", "other.db", "--run", "1"), "another application"),
    (("rerun", "--store", "ok.db", "--run", "../x"), "row id or a config hash"),
    (("rerun", "--store", "ok.db", "--run", "\u0661\u0662"), "row id or a config hash"),
    # sweep
    (("sweep", "--profile", "smoke", "--store", "ok.db", "--extend-undecided", "11"),
     "extend-undecided"),
    (("sweep", "--profile", "smoke", "--store", "other.db"), "another application"),
    (("sweep", "--profile", "smoke", "--store", "adir"), "is a folder"),
    (("sweep", "--profile", "smoke", "--store", "afile.txt"), "not an SQLite file"),
    (("sweep", "--profile", "smoke", "--store", "afile.txt/x.db"), "lies under"),
    (("sweep", "--profile", "smoke", "--store", "ok.db", "--checkpoint-dir", "afile.txt"),
     "is a file, not a folder"),
    (("sweep", "--profile", "smoke", "--store", "ok.db", "--workers", "0"), "workers"),
    (("sweep", "--profile", "smoke", "--store", "ok.db", "--backend", "slurm"), "backend"),
    (("sweep", "--profile", "nosuch", "--store", "ok.db"), "not a file and not a profile"),
    (("sweep", "big_grid.toml", "--store", "ok.db"), "--allow-large-grid"),
    (("sweep", "huge_grid.toml", "--store", "ok.db", "--allow-large-grid"), "split it"),
    (("sweep", "long.toml", "--store", "ok.db"), "length"),
    (("sweep", "wide.toml", "--store", "ok.db"), "width"),
    (("sweep", "batch.toml", "--store", "ok.db"), "batch"),
    (("sweep", "heads.toml", "--store", "ok.db"), "multiple of heads"),
    (("sweep", "samples.toml", "--store", "ok.db"), "eval_samples"),
    (("sweep", "nested.toml", "--store", "ok.db"), "TOML"),
    (("sweep", "nan.toml", "--store", "ok.db"), "lr"),
    (("sweep", "nonutf8.toml", "--store", "ok.db"), "UTF-8"),
    (("sweep", "missing.toml", "--store", "ok.db"), "does not exist"),
    (("sweep", "--profile", "smoke", "--store", "ok.db", "--ensemble", "0"), "--ensemble"),
    (("sweep", "--profile", "smoke", "--store", "ok.db", "--ensemble", BIG), "--ensemble"),
    (("sweep", "--profile", "smoke", "--store", "other.db", "--dry-run"), "another application"),
    (("sweep", "--profile", "smoke", "--store", "adir", "--dry-run"), "is a folder"),
    (("sweep", "--profile", "smoke", "--store", "afile.txt", "--dry-run"), "not an SQLite file"),
    (("sweep", "--profile", "smoke", "--store", "ok.db", "--dry-run", "--workers", "0"),
     "--workers"),
    (("sweep", "--profile", "smoke", "--store", "ok.db", "--dry-run", "--ensemble", "-1"),
     "--ensemble"),
    (("sweep", "big_grid.toml", "--store", "ok.db", "--dry-run"), "--allow-large-grid"),
    (("sweep", "long.toml", "--store", "ok.db", "--dry-run"), "length"),
    (("sweep", "nonutf8.toml", "--store", "ok.db", "--dry-run"), "UTF-8"),
    # capacity searches (kg): grow keys
    (("sweep", "grow_field.toml", "--store", "ok.db"), "integer TrainConfig field"),
    (("sweep", "grow_partial.toml", "--store", "ok.db"), "grow, grow_by and grow_to together"),
    (("sweep", "grow_start.toml", "--store", "ok.db"), "below the start"),
    (("sweep", "grow_huge.toml", "--store", "ok.db"), "use fewer relations"),
    (("sweep", "grow_huge.toml", "--store", "ok.db", "--dry-run"), "use fewer relations"),
    (("sweep", "grow_vocab.toml", "--store", "ok.db"), "vocab_size"),
    (("sweep", "--profile", "kg", "--store", "other.db"), "another application"),
    (("kg", "capacity", "--store", "other.db"), "another application"),
    (("kg", "capacity", "--store", "missing.db"), "no results store"),
    (("kg", "capacity", "--store", "afile.txt"), "not an SQLite file"),
    (("kg", "capacity", "--store", "adir"), "no results store"),
    (("figure", "kg-capacity", "--store", "other.db"), "another application"),
    (("figure", "fig2", "--store", "other.db", "--profile", "smoke"), "--profile does not apply"),
    (("report", "--store", "other.db", "--profile", "smoke"), "--profile does not apply"),
    (("sweep", "--profile", "smoke", "--dry-run", "--backend", "garbage"), "unknown --backend"),
    (("sweep", "--profile", "smoke", "--store", "s.db", "--checkpoint-dir", "s.db",
      "--dry-run"), "is the results store's path"),
    (("sweep", "--profile", "smoke", "--store", "a" * 300 + ".db", "--dry-run"), "NAME_MAX"),
    (("dyck", "count", "--types", "3", "--depth", "5", "--length", "1048576"),
     "CCX_WORK_BUDGET"),
    (("construct", "--task", "memorize", "--examples", "1048576", "--dim", "4"),
     "CCX_MEMORY_BUDGET"),
    (("figure", "kg-capacity", "--store", "missing.db"), "no results store"),
    (("figure", "kg-capacity", "--profile", "kg", "--out", "afile.txt"), "is a file"),
    # runs
    (("runs", "--store", "missing.db"), "no results store"),
    (("runs", "--store", "other.db"), "another application"),
    (("runs", "--store", "adir"), "no results store"),
    (("runs", "--store", "other.db", "--verdict", "won"), "--verdict must be one of"),
    # threshold, figure, report
    (("threshold", "--store", "other.db"), "another application"),
    (("threshold", "--store", "missing.db"), "no results store"),
    (("threshold", "--store", "afile.txt"), "not an SQLite file"),
    (("threshold", "--store", "adir"), "is a folder"),
    (("threshold", "--store", "other.db", "--precision", "0"), "--precision"),
    (("figure", "fig2", "--store", "other.db"), "another application"),
    (("figure", "fig2", "--store", "missing.db"), "no results store"),
    (("figure", "bounds", "--out", "afile.txt"), "is a file, not a folder"),
    (("figure", "bounds", "--out", "afile.txt/sub"), "lies under"),
    (("figure", "bounds", "--store", "other.db"), "another application"),
    (("figure", "nosuch"), "unknown figure"),
    # options that do not apply, empty or unknown values: refused, never ignored
    (("fooling", "--problem", "equality", "--half", "3", "--partition", ""), "is empty"),
    (("fooling", "--problem", "equality", "--half", "3", "--partition", "foo"), "unknown"),
    (("fooling", "--problem", "equality", "--half", "3", "--types", "2"), "takes no --types"),
    (("cc", "oneway", "--problem", "index", "--length", "4", "--partition", "foo"),
     "takes no --partition"),
    (("cc", "oneway", "--problem", "index", "--length", "4", "--cut", "-1"), "--cut"),
    (("looped", "rounds", "--task", "p-hop", "--hops", "2", "--length", "8", "--group", "S3"),
     "does not apply"),
    (("looped", "rounds", "--task", "group-composition", "--group", "S3", "--length", "8",
      "--alphabet", "3"), "does not apply"),
    (("looped", "comm", "--task", "addition", "--operands", "3", "--length", "5"),
     "does not apply"),
    (("looped", "rounds", "--task", "group-composition", "--group", "S3", "--length", "8",
      "--samples", "20", "--rounds", "100000000"), "--rounds"),
    (("looped", "rounds", "--task", "p-hop", "--hops", "2", "--length", "8", "--seed", "-1"),
     "--seed"),
    (("looped", "rounds", "--task", "p-hop", "--hops", "4096", "--length", "10000",
      "--samples", "100000"), "symbols; the limit is 10000000"),
    (("task", "p-hop", "--length", "8", "--alphabet", BIG), "--alphabet"),
    (("task", "var-assign", "--length", "8", "--variables", "100000000000000"), "--variables"),
    # floats: overflow and strict JSON
    (("bound", "--theorem", "parrots.lemmaA_7", "--examples", "1000", "--dim", "16", "--delta",
      "0.1", "--sigma", "1e200"), "float range"),
    (("bound", "--theorem", "parrots.lemmaA_8", "--examples", "1000", "--dim", "16", "--delta",
      "0.1", "--sigma", "1e308", "--json"), "not a finite float"),
    # files that need no torch to be refused
    (("protocol", "rnn", "--checkpoint", "random.pt", "--length", "10", "--cut", "5",
      "--precision", "16"), "not a zip archive"),
    ((*V, "protocol.json"), "field"),
    ((*V, "huge.fooling.json"), "the limit for that kind"),
    (("report", "--store", "other.db"), "another application"),
    (("report", "--out", "afile.txt"), "is a file, not a folder"),
]  # fmt: skip


@pytest.fixture(scope="module")
def nan_checkpoint(tmp_path_factory) -> bytes:
    """The bytes of a genuine LSTM checkpoint with one weight set to NaN."""
    import torch

    from simulations.checkpoints import save_checkpoint
    from simulations.training import TrainConfig, build_model

    config = TrainConfig.of(task="index-lookup", arch="lstm", width=8, layers=1, length=10)
    model, _ = build_model(config)
    with torch.no_grad():
        next(model.parameters()).view(-1)[0] = float("nan")
    return save_checkpoint(model, config, tmp_path_factory.mktemp("nan")).read_bytes()


def _fixtures(folder: Path, nan_pt: bytes) -> None:
    (folder / "adir").mkdir()
    for name, text in FIXTURES_TEXT.items():
        (folder / name).write_text(text)
    for name, data in FIXTURES_BYTES.items():
        (folder / name).write_bytes(data)
    (folder / "nan.pt").write_bytes(nan_pt)
    for name, size in (("huge.json", 64 << 20), ("huge.csv", 32 << 20)):
        with open(folder / name, "wb") as handle:  # sparse: large, but no disk is used
            handle.truncate(size + 1)
    with open(folder / "huge.fooling.json", "wb") as handle:  # its kind's cap, not the global
        handle.write(b'{"kind": "fooling_set", "witness": ')
        handle.truncate((16 << 20) + 1)
    conn = sqlite3.connect(folder / "other.db")
    with conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
        conn.execute("INSERT INTO invoices (amount) VALUES (12.5)")
    conn.close()


def snapshot(folder: Path) -> dict[str, tuple[int, str]]:
    """Every path under ``folder`` with its size and (for files) a hash of its bytes."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.name.startswith("huge."):
            out[str(path.relative_to(folder))] = (path.stat().st_size, _digest(path))
        else:
            out[str(path.relative_to(folder))] = (0, "folder" if path.is_dir() else "sparse")
    return out


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@contextlib.contextmanager
def bounded(seconds: float):
    """A case may add at most HEADROOM bytes of address space and run at most ``seconds``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as handle:
        current = int(handle.read().split()[0]) * resource.getpagesize()
    cap = current + HEADROOM
    capped = hard == resource.RLIM_INFINITY or cap < hard

    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    if capped:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if capped:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize(("args", "fragment"), CASES, ids=[" ".join(a)[:70] for a, _ in CASES])
def test_bad_input_is_one_line_and_writes_nothing(
    args, fragment, ccx, tmp_path, monkeypatch, nan_checkpoint
):
    _fixtures(tmp_path, nan_checkpoint)
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    start = time.perf_counter()
    with bounded(60.0):
        code, out, err = ccx(*args)
    elapsed = time.perf_counter() - start
    assert code in ((1, 2) if args[0] == "verify" else (2,)), (code, out, err)
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert fragment in err, err
    assert snapshot(tmp_path) == before
    assert elapsed < SECONDS, f"{elapsed:.1f} s"


def test_every_command_has_rows():
    """Each command and subcommand of ``ccx`` appears in the table."""
    import typer

    from ccx.app import app

    group = typer.main.get_command(app)
    names = set()
    for name, command in group.commands.items():
        subs = getattr(command, "commands", None)
        names |= {f"{name} {s}" for s in subs} if subs else {name}
    covered = {" ".join(args[:2]) for args, _ in CASES} | {args[0] for args, _ in CASES}
    assert names <= covered, sorted(names - covered)


CCX = str(Path(sys.executable).parent / "ccx")


@pytest.mark.parametrize(
    "args",
    [
        ("dfa", "dyck", "--types", "2", "--depth", "1000000000"),
        ("models", "--layers", BIG),
        (
            "protocol",
            "attention",
            "--width",
            "8",
            "--heads",
            "2",
            "--length",
            BIG,
            "--partition",
            "odd-even",
            "--precision",
            "16",
        ),
    ],
)
def test_the_installed_command_refuses_at_once(args, tmp_path):
    """The console script itself, as a user runs it: one line, exit 2, quickly."""
    start = time.perf_counter()
    proc = subprocess.run([CCX, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr and list(tmp_path.iterdir()) == []
    assert time.perf_counter() - start < 60


# Every command that writes a file, with that file given as one of its own inputs.
INPUT_AS_OUTPUT = [
    ("fooling", "--problem", "matrix", "--file", "in.csv", "--certificate", "in.csv"),
    ("fooling", "--problem", "matrix", "--exact", "--file", "in.csv", "--certificate", "./in.csv"),
    ("cc", "oneway", "--problem", "matrix", "--file", "in.csv", "--certificate", "in.csv"),
    ("cc", "rank", "--problem", "matrix", "--file", "in.csv", "--certificate", "in.csv"),
    ("protocol", "rnn", "--checkpoint", "m.pt", "--length", "10", "--cut", "5", "--precision",
     "16", "--certificate", "m.pt"),
    ("protocol", "attention", "--checkpoint", "m.pt", "--length", "10", "--partition",
     "odd-even", "--precision", "16", "--certificate", "m.pt"),
    ("sweep", "in.toml", "--store", "in.toml"),
    ("sweep", "in.toml", "--store", "in.toml", "--dry-run"),
    ("sweep", "in.toml", "--store", "new.db", "--checkpoint-dir", "in.toml"),
    ("figure", "bounds", "--store", "s.db", "--out", "s.db"),
    ("figure", "bounds", "--store", "bounds.csv", "--out", "."),
    ("report", "--store", "s.db", "--out", "./s.db"),
]  # fmt: skip


@pytest.mark.parametrize("args", INPUT_AS_OUTPUT, ids=[" ".join(a)[:60] for a in INPUT_AS_OUTPUT])
def test_an_input_is_never_overwritten(args, ccx, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.csv").write_text("1,0\n0,1\n")
    (tmp_path / "m.pt").write_bytes(bytes(range(256)))
    (tmp_path / "in.toml").write_text(_TOML)
    (tmp_path / "s.db").write_bytes(b"not yet a store")
    (tmp_path / "bounds.csv").write_bytes(b"not yet a store")
    before = snapshot(tmp_path)
    code, out, err = ccx(*args)
    assert code == 2 and err.count("\n") == 1, (code, out, err)
    folder_on_a_file = args[-2] in ("--out", "--checkpoint-dir") and args[-1] != "."
    why = "is a file, not a folder" if folder_on_a_file else "is an input of this command"
    assert why in err, err
    assert snapshot(tmp_path) == before


# --- the table generated from the CLI's own definition ------------------------------------------
#
# Every command and subcommand is walked; each numeric option must declare its range
# (``ccx.app.ranged``) and each written path its kind (``ccx.app.written``). The cases below
# are built from those declarations, so a new option is fuzzed as soon as it declares its range. The
# option under test comes first on the command line: the parser checks it before any other
# option and before a missing required one, so no valid base command is needed.


def _commands():
    """(path of names, click command) of every leaf command of ``ccx``."""
    import typer

    from ccx.app import app

    def walk(command, path):
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in sorted(subs.items()):
                yield from walk(sub, (*path, name))
        else:
            yield path, command

    return list(walk(typer.main.get_command(app), ()))


def _kind(param) -> type | None:
    """int or float for a numeric option (possibly Optional), else None: from the annotation
    where Typer keeps one (``type_descriptor``), else from the parameter's click type."""
    import typing

    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None:
        kinds = [c for c in type(param.type).__mro__ if c.__name__ in NUMERIC_PARAM_TYPES]
        return NUMERIC_PARAM_TYPES[kinds[0].__name__] if kinds else None
    annotation = descriptor.annotation
    kinds = [t for t in (typing.get_args(annotation) or (annotation,)) if t is not type(None)]
    return kinds[0] if kinds and kinds[0] in (int, float) else None


NUMERIC_PARAM_TYPES = {"FloatParamType": float, "IntParamType": int}


_ATTENTION = ("--width", "8", "--heads", "2", "--length", "8", "--partition", "odd-even",
              "--precision", "16", "--samples", "4")  # fmt: skip
_PARROTS = ("--task", "length2-path", "--one-way", "--vertices", "4", "--width", "4",
            "--experts", "2", "--precision", "8", "--samples", "4")  # fmt: skip
SPEC_BASES = {
    ("train",): ("--task", "dyck", "--arch", "lstm", "--width", "8", "--length", "8"),
    ("protocol", "rnn"): (
        "--arch",
        "lstm",
        "--width",
        "8",
        "--length",
        "8",
        "--cut",
        "4",
        "--precision",
        "16",
        "--samples",
        "4",
    ),
    ("protocol", "attention"): _ATTENTION,
    ("protocol", "attention", "--vertices"): _PARROTS,
    ("protocol", "attention", "--experts"): _PARROTS,
    ("protocol", "attention", "--query-token"): (*_ATTENTION, "--one-way"),
}
"""A valid command line of each command whose options set the fields of a spec or request
(``ccx.app.field_option``; keyed by the command, or by the command and the option where that
option needs others): the spec checks them, once the command has all it needs to make it, so
each bad value is tried on this line (in place of the option's own value there)."""


def _with(base: tuple[str, ...], option: str, value: str) -> tuple[str, ...]:
    """``base`` with ``option`` set to ``value`` (replaced where ``base`` gives it)."""
    if option in base:
        at = base.index(option)
        return (*base[:at], option, value, *base[at + 2 :])
    return (*base, option, value)


def _generated() -> list[tuple[tuple[str, ...], str]]:
    cases = []
    for path, command in _commands():
        for param in command.params:
            name = param.opts[0]
            limit = getattr(param.callback, "limit", None)
            if _kind(param) is not None and limit is not None:
                if _kind(param) is int:
                    values = [limit.least - 1, limit.most + 1, "-" + BIG, BIG]
                else:
                    values = [limit.least - 1, limit.most * 2 + 1, "nan", "inf", "-1e309"]
                field = getattr(param.callback, "field", None)
                if field is not None:  # checked by the spec the command makes: named by field
                    base = SPEC_BASES.get((*path, name), SPEC_BASES[path])
                    cases += [((*path, *_with(base, name, str(v))), field) for v in values]
                else:
                    cases += [((*path, name, str(v)), name) for v in values]
            writes = getattr(param.callback, "writes", None)
            if writes is not None:
                cases += [((*path, name, "/proc/ccx-missing/out"), "/proc/ccx-missing")]
                cases += [((*path, name, ""), name)]
    return cases


GENERATED = _generated()


def test_every_numeric_option_declares_its_range():
    """A numeric option without a declared range (``ccx.app.ranged``) would escape the table."""
    missing = [
        f"{' '.join(path)} {param.opts[0]}"
        for path, command in _commands()
        for param in command.params
        if _kind(param) is not None and getattr(param.callback, "limit", None) is None
    ]
    assert not missing, missing


def test_every_written_path_is_declared():
    """Options that name an output (certificates, stores, checkpoint and figure folders) are
    declared with ``ccx.app.written``; any option whose name says it writes must be one of them."""
    undeclared = [
        f"{' '.join(path)} {param.opts[0]}"
        for path, command in _commands()
        for param in command.params
        if param.opts[0] in ("--certificate", "--out", "--checkpoint-dir")
        and getattr(param.callback, "writes", None) is None
    ]
    assert not undeclared, undeclared
    assert sum(a[-2] == "--certificate" for a, _ in GENERATED) >= 2 * 6


def test_the_generated_table_is_large():
    """Every numeric option of every command, each at least below and above its range."""
    options = {(args[:-1]) for args, _ in GENERATED}
    assert len(options) >= 150 and len(GENERATED) >= 4 * 150


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs Linux /proc")
def test_generated_cases_refuse_at_once(ccx, tmp_path, monkeypatch):
    """All generated cases in one test (hundreds; each refused while parsing, in milliseconds):
    exit 2, one line naming the option, no traceback, nothing written, within 2 s each."""
    monkeypatch.chdir(tmp_path)
    failures = []
    for args, fragment in GENERATED:
        start = time.perf_counter()
        with bounded(60.0):
            code, out, err = ccx(*args)
        elapsed = time.perf_counter() - start
        ok = code == 2 and err.endswith("\n") and err.count("\n") == 1 and fragment in err
        if not ok or "Traceback" in err or elapsed > 2.0 or list(tmp_path.iterdir()):
            failures.append(f"{' '.join(args)} -> {code} {err.strip()!r} {elapsed:.2f}s")
    assert not failures, "\n".join(failures[:40]) + f"\n({len(failures)} of {len(GENERATED)})"


HOSTILE_NUMBERS = ("-1", "0", "1", "2", "0.5", "1e308", "1e-308", "-1e308", BIG, str(2**63), "S5")


def _strict_json(text: str) -> dict:
    def refuse(constant: str):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_every_statement_at_hostile_values(ccx, tmp_path, monkeypatch):
    """Every statement of ``ccx bound``, every parameter set to each hostile value at once:
    strict JSON (exit 0) or one line (exit 2); never a traceback, NaN or Infinity."""
    from ccomplexity import bounds

    monkeypatch.chdir(tmp_path)
    failures = []
    for b in bounds.all_bounds():
        for value in HOSTILE_NUMBERS:
            args = ["bound", "--theorem", b.id, *(x for p in b.params for x in (f"--{p}", value))]
            start = time.perf_counter()
            code, out, err = ccx(*args, "--json")
            elapsed = time.perf_counter() - start
            try:
                ok = (code == 0 and isinstance(_strict_json(out), dict)) or (
                    code == 2 and err.count("\n") == 1 and not out
                )
            except ValueError:
                ok = False
            if not ok or "Traceback" in err or elapsed > 2.0:
                failures.append(f"{' '.join(args)} -> {code} {(err or out)[:200]!r}")
    assert not failures, "\n".join(failures[:30]) + f"\n({len(failures)} failures)"


def test_a_tampered_store_is_read_without_its_bad_run(ccx, ccx_json, tmp_path, monkeypatch):
    """A run whose curve is not JSON: ``threshold`` skips it with one warning naming its id."""
    from simulations.store import Store

    monkeypatch.chdir(tmp_path)
    config = {"task": "index-lookup", "arch": "lstm", "width": 16, "layers": 1, "lr": 1e-3,
              "seed": 0, "heads": 4, "steps": 10}  # fmt: skip
    with Store("t.db") as store:
        for length in (10, 20):
            store.add_run(
                {
                    "config": {**config, "length": length},
                    "config_hash": str(length),
                    "accuracy": 1.0,
                    "best_accuracy": 1.0,
                    "curve": [],
                }
            )
    conn = sqlite3.connect("t.db")
    with conn:
        conn.execute("UPDATE runs SET curve = '{not json' WHERE length = 20")
    conn.close()
    code, out, err = ccx("threshold", "--store", "t.db", "--json")
    assert code == 0 and err.count("\n") == 1 and "run 2 is malformed" in err, err
    rows = _strict_json(out)["thresholds"]
    assert [r["lengths"] for r in rows] == [{"10": 1.0}]


@pytest.mark.parametrize(
    "args",
    [
        (
            "protocol",
            "rnn",
            "--checkpoint",
            "random.pt",
            "--length",
            "10",
            "--cut",
            "5",
            "--precision",
            "16",
        ),
        (
            "protocol",
            "reduce",
            "--reduction",
            "index",
            "--checkpoint",
            "random.pt",
            "--precision",
            "16",
        ),
        ("verify", "protocol.json"),
        ("task", "p-hop", "--length", "8", "--alphabet", BIG),
        (
            "looped",
            "rounds",
            "--task",
            "group-composition",
            "--group",
            "S3",
            "--length",
            "8",
            "--samples",
            "20",
            "--rounds",
            "100000000",
        ),
    ],
)
def test_refusals_that_need_no_torch_never_import_it(args, tmp_path):
    """The refusal comes before torch is imported (a fresh interpreter, torch not loaded)."""
    (tmp_path / "random.pt").write_bytes(FIXTURES_BYTES["random.pt"])
    (tmp_path / "protocol.json").write_text(FIXTURES_TEXT["protocol.json"])
    code = (
        "import sys; from ccx import main; rc = main(sys.argv[1:]); "
        "sys.exit(10 if 'torch' in sys.modules else rc)"
    )
    root = str(Path(__file__).resolve().parents[2])
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": root, "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode in (1, 2), (proc.returncode, proc.stderr)
    assert proc.stderr.count("\n") == 1, proc.stderr
