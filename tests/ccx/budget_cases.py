"""In-range values for every command, each run as a user runs it, within a memory and time limit.

Shared by ``tests/ccx/test_cli_budget.py`` (a few cases in the suite) and
``benchmarks/hostile_inputs.py`` (many). A *family* is a command with the options that choose
what it computes (a problem, a task, an architecture); hypothesis draws every other numeric
option of that family inside the range the option declares (``ccx.app.ranged``, read back from
the command tree), biased to the ends of the range, where the cost is. Each case runs
``python -m ccx ...`` in a fresh folder under an address-space limit (``RLIMIT_AS``) and a
time limit, and must complete (exit 0) or refuse (exit 2, one line on stderr), never with a
traceback, never killed.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
ADDRESS_SPACE = 4 << 30
"""Address space each case may map: 4 GiB."""
SECONDS = 30.0
"""Wall time each case may take."""


@dataclass(frozen=True)
class Family:
    """A command line (``base``) and the numeric options drawn for it; ``torch``: whether the
    command loads torch (slower to start)."""

    base: tuple[str, ...]
    drawn: tuple[str, ...]
    torch: bool = False


def _f(base: str, drawn: str, torch: bool = False) -> Family:
    return Family(tuple(base.split()), tuple(drawn.split()), torch)


FAMILIES = [
    _f("dyck count --json", "--types --depth --length"),
    _f("dyck enumerate --json", "--types --depth --length"),
    _f("dyck sample --json", "--types --depth --length --batch --seed"),
    _f("dfa dyck --json", "--types --depth"),
    _f("dfa equality --json", "--half --alphabet"),
    _f("dfa addition --json", "--operands"),
    _f("dfa kg --json", "--entities --relations --hops --seed"),
    _f("kg sample --json", "--entities --relations --hops --seed --batch"),
    _f("kg products --json", "--entities --relations --hops --seed"),
    _f("kg split --json", "--entities --relations --hops --cut --seed"),
    _f("codes --json", "--length --gamma --seed"),
    _f("fooling --problem dyck --partition odd-even --json", "--types --depth --length"),
    _f("fooling --problem equality --json", "--half --alphabet"),
    _f("fooling --problem random --json", "--rows --cols --seed --density"),
    _f("cc oneway --problem dyck --json", "--types --depth --length --cut"),
    _f("cc oneway --problem index --json", "--length"),
    _f("cc rank --problem equality --json", "--half --alphabet --prime"),
    _f("cc rank --problem random --json", "--rows --cols --seed --density --prime"),
    _f("cc exact --problem index --json", "--length"),
    _f("cc exact --problem dyck --json", "--types --depth --length"),
    _f("cc exact --problem random --json", "--rows --cols --seed --density"),
    _f("looped rounds --task p-hop --json", "--length --hops --alphabet --samples --seed"),
    _f("looped rounds --task group-composition --group S5 --json", "--length --samples --rounds"),
    _f("looped comm --task p-hop --json", "--length --hops --alphabet"),
    _f("looped comm --task group-composition --group S3 --json", "--length"),
    _f("looped comm --task addition --json", "--operands"),
    _f("models --json", "--width --layers --vocab-size --precision --experts"),
    _f("task index-lookup --json", "--length --batch --seed", torch=True),
    _f("construct --task memorize --json", "--examples --dim --trials --seed", torch=True),
    _f("construct --task dyck --json", "--types --depth --length --samples", torch=True),
    _f(
        "protocol rnn --arch lstm --json",
        "--length --cut --precision --width --samples --layers --vocab-size",
        torch=True,
    ),
    _f(
        "protocol attention --arch transformer --partition odd-even --json",
        "--precision --length --width --heads --samples --layers --vocab-size",
        torch=True,
    ),
]
"""The commands and the options drawn for each (the others keep their defaults)."""


def option_limits() -> dict[tuple[str, ...], dict[str, object]]:
    """Each leaf command's path and its numeric options' declared limits (``ranged``)."""
    import typer

    from ccx.app import app

    out: dict[tuple[str, ...], dict[str, object]] = {}

    def walk(command, path):
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, (*path, name))
            return
        out[path] = {
            p.opts[0]: p.callback.limit
            for p in command.params
            if getattr(getattr(p, "callback", None), "limit", None) is not None
        }

    walk(typer.main.get_command(app), ())
    return out


def _values(limit) -> st.SearchStrategy[str]:
    """In-range values of one option, biased to its ends (where the cost is) and to powers of
    two: as the command line spells them."""
    if hasattr(limit, "open_least"):  # an Interval of reals
        low, high = limit.least, limit.most
        inner = st.floats(low, high, exclude_min=limit.open_least, exclude_max=limit.open_most)
        ends = [v for v, open_ in ((low, limit.open_least), (high, limit.open_most)) if not open_]
        return (st.sampled_from(ends) | inner if ends else inner).map(repr)
    low, high = limit.least, limit.most
    powers = st.integers(0, high.bit_length()).map(lambda b: min(high, max(low, 1 << b)))
    return st.one_of(st.sampled_from([low, high]), powers, st.integers(low, high)).map(str)


@st.composite
def cases(draw, torch: bool | None = None) -> list[str]:
    """One command line: a family (with or without torch; None: either) and in-range values
    for each of its drawn options."""
    limits = option_limits()
    families = [f for f in FAMILIES if torch is None or f.torch == torch]
    family = draw(st.sampled_from(families))
    path = tuple(a for a in family.base if not a.startswith("-"))
    while path and path not in limits:
        path = path[:-1]
    argv = list(family.base)
    for option in family.drawn:
        argv += [option, draw(_values(limits[path][option]))]
    return argv


@dataclass(frozen=True)
class Outcome:
    argv: tuple[str, ...]
    code: int | None
    seconds: float
    max_rss: int
    stderr: str
    stdout: str = ""

    def problem(self) -> str | None:
        """Why this outcome breaks the rule (None: it keeps it)."""
        lines = self.stderr.strip().splitlines()
        if self.code is None:
            return f"still running after {SECONDS} s"
        if "Traceback" in self.stderr:
            return f"traceback: {lines[-1] if lines else ''}"
        if self.code not in (0, 2):
            return f"exit {self.code}: {self.stderr.strip()[-200:]}"
        errors = [line for line in lines if not line.startswith("ccx: warning")]
        if self.code == 2 and len(errors) != 1:
            return f"exit 2 with {len(errors)} lines on stderr"
        return None


def _limit_address_space() -> None:
    os.setsid()
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run_case(
    argv: list[str],
    seconds: float = SECONDS,
    folder: str | Path | None = None,
    interrupt: Path | None = None,
) -> Outcome:
    """``python -m ccx *argv`` in a fresh folder (or in ``folder``, prepared by the caller)
    under :data:`ADDRESS_SPACE` and ``seconds``: its exit status (None: killed at the time
    limit), wall time, peak memory and stderr. ``interrupt``: Ctrl-C (SIGINT) once that file
    exists (the command has reached a point the case chose)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as fresh:
        folder = fresh if folder is None else folder
        out, err = Path(fresh, ".stdout"), Path(fresh, ".stderr")
        start = time.perf_counter()
        with out.open("wb") as o, err.open("wb") as e:
            proc = subprocess.Popen(
                [sys.executable, "-m", "ccx", *argv],
                cwd=folder,
                env=env,
                stdout=o,
                stderr=e,
                preexec_fn=_limit_address_space,
            )
            code, rss = None, 0
            while time.perf_counter() - start < seconds:
                if interrupt is not None and interrupt.exists():
                    proc.send_signal(signal.SIGINT)
                    interrupt = None
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    code, rss = os.waitstatus_to_exitcode(status), usage.ru_maxrss << 10
                    proc.returncode = code  # reaped here: Popen must not wait again
                    break
                time.sleep(0.02)
            else:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        took = time.perf_counter() - start
        return Outcome(
            tuple(argv),
            code,
            took,
            rss,
            err.read_text(errors="replace"),
            out.read_text(errors="replace"),
        )
