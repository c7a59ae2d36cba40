"""``make demo``: the quick sweep, certified headline lower bounds, and the HTML report.

Steps: (1) run the ``quick`` profile into ``results/quick.db`` (runs already stored are skipped,
so an interrupted demo resumes); (2) write and independently re-check certificates of the
lower bounds behind Thm 5 (Dyck-(2,2), Lemma 1, N = 1000, symbolic), Thm 11 (equality, Fact 2)
and Thm 8 (disjointness) with ``ccx fooling --certificate`` and ``ccx verify``; (3) draw every
figure and ``results/report/index.html``.  About 11 minutes on 2 cores, almost all of it the
sweep.  Run as ``python -m paper_figures.demo``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ccomplexity.errors import InputError

PROFILE = "quick"
RESULTS = Path("results")
CERTIFICATES: dict[str, list[str]] = {
    "dyck_2_2_N1000": ["--problem", "dyck", "--types", "2", "--depth", "2", "--length", "1000"],
    "equality_H10": ["--problem", "equality", "--half", "10", "--alphabet", "2"],
    "disjointness_H10": ["--problem", "disjointness", "--half", "10"],
}


def _ccx(*args: str) -> None:
    """Run one ``ccx`` command in this process; InputError if it fails."""
    from simulations.cli import main as ccx

    print(f"$ ccx {' '.join(args)}", flush=True)
    code = ccx(list(args))
    if code != 0:
        raise InputError(f"`ccx {' '.join(args)}` exited with status {code}")


def main() -> int:
    """Run the demo; return the exit status (0 on success, 2 on a one-line error)."""
    from paper_figures import profile_store
    from simulations.report import write_report

    start = time.perf_counter()
    try:
        store = profile_store(PROFILE)
        print(f"[1/3] sweep {PROFILE!r} into {store} (resumes if interrupted)", flush=True)
        _ccx("sweep", "--profile", PROFILE, "--store", str(store))
        print("[2/3] certify the headline lower bounds", flush=True)
        folder = RESULTS / "certificates"
        folder.mkdir(parents=True, exist_ok=True)
        for name, args in CERTIFICATES.items():
            path = str(folder / f"{name}.json")
            _ccx("fooling", *args, "--certificate", path)
            _ccx("verify", path)
        print("[3/3] figures and report", flush=True)
        index = write_report(RESULTS / "report", store=store, profile=PROFILE)
    except InputError as err:
        print(f"demo: error: {err}", file=sys.stderr)
        return 2
    minutes = (time.perf_counter() - start) / 60
    print(f"\nReport: {index.resolve()}  ({minutes:.1f} min)")
    print(f"Certificates: {(RESULTS / 'certificates').resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
