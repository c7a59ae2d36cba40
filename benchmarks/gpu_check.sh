#!/usr/bin/env bash
# One stretch on a machine with one CUDA GPU: install the project from carried wheels, run the full
# test suite with CUDA available, then the GPU benchmarks, and put logs and results into one folder.
#
#   bash benchmarks/gpu_check.sh OUT_DIR                    # on the GPU machine, in the repo root
#   GPU_CHECK_TOY=1 bash benchmarks/gpu_check.sh /tmp/gpu   # a dry run at toy sizes on the CPU
#   PHASES="suite ensemble" ENSEMBLE="--archs lstm --update" bash benchmarks/gpu_check.sh OUT_DIR
#
# PHASES (default: suite mamba profile ensemble) picks the phases; MAMBA, PROFILE and ENSEMBLE add
# arguments to those benchmarks (later ones win); ENSEMBLE_LIMIT sets the ensemble phase's time
# limit in seconds (default 270). On an H200, 400 steps took
# 370 s for eight of the nine architectures (about 46 s each); 1,000 steps need an estimated
# 8-9 minutes, so that phase runs alone in a stretch.
#
# The GPU machine has torch (CUDA) and Triton but no package registry: the folder .whl/ carries
# the wheels of what it lacks (python-sat, automata-lib with frozendict and cached-method,
# mambapy, setuptools; docs/development.md says how to fetch them). Each phase has its own time
# limit, so one that hangs does not take the others with it; OUT_DIR gets summary.txt (versions,
# each phase's exit status and last lines), one log per phase and results.tar (the files each
# phase wrote under benchmarks/results/), refreshed after every phase.
set -uo pipefail
out=${1:?usage: bash benchmarks/gpu_check.sh OUT_DIR}
mkdir -p "$out"
py=${PYTHON:-python3}
toy=${GPU_CHECK_TOY:-}
phases=" ${PHASES:-suite mamba profile ensemble} "
export PYTHONUNBUFFERED=1

log() { echo "== $(date +%T) $*" | tee -a "$out/summary.txt"; }
pack() {
  (cd benchmarks/results && tar -cf "$out/results.tar" --ignore-failed-read \
    ./*_cuda.* gpu_steps* gpu_tests.md 2>/dev/null) || true
}
phase() {  # phase NAME SECONDS COMMAND...: its output into NAME.log, its status into the summary
  local name=$1 limit=$2
  shift 2
  [[ $phases == *" $name "* ]] || return 0
  log "start $name (limit ${limit} s): $*"
  timeout "$limit" "$@" >"$out/$name.log" 2>&1
  log "end $name: exit $?"
  tail -n 4 "$out/$name.log" | sed 's/^/    /' >>"$out/summary.txt"
  pack
}

if [ -z "$toy" ]; then
  log "install"
  site=/tmp/site
  "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$site" .whl/*.whl >>"$out/summary.txt" 2>&1 || log "wheel install failed"
  export PYTHONPATH="$site:$PWD"
  # an editable install puts the ccx command beside python3, as make setup does
  "$py" -m pip install -q --no-index --no-deps --no-build-isolation -e . >>"$out/summary.txt" 2>&1 \
    || log "editable install failed"
  device=cuda
  workers=16
else
  export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
  device=cpu
  workers=2
fi

log "machine"
{
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv
  "$py" - <<'EOF'
import torch
print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())
if torch.cuda.is_available():
    print("gpu", torch.cuda.get_device_name(), torch.cuda.get_device_properties(0))
try:
    import triton
    print("triton", triton.__version__)
except ImportError:
    print("triton: not installed")
EOF
  nproc
} >>"$out/summary.txt" 2>&1

if [ -z "$toy" ]; then
  phase suite 180 "$py" -m pytest -n "$workers" --dist loadgroup -rfEs --tb=short \
    -p no:cacheprovider --timeout 150
  mamba_args=(--device cuda --widths 64 256 --lengths 200 500 1000 2000 --steps 8 --warmup 3)
  profile_args=(--steps 30)
  ensemble_args=(--device cuda --workers "$workers" --shapes small --steps 60 200)
else
  phase suite 240 "$py" -m pytest -n "$workers" --dist loadgroup -rfEs --tb=short \
    -p no:cacheprovider tests/simulations/test_ensemble.py tests/models/test_scan_triton.py
  mamba_args=(--widths 16 --lengths 20 --steps 2 --warmup 1)
  profile_args=(--device cpu --archs transformer --steps 2 --no-mamba)
  ensemble_args=(--workers 2 --archs transformer --shapes tiny --steps 6 3 --baseline-steps 1)
fi
[[ $phases == *" suite "* ]] && "$py" - "$out/suite.log" "$device" <<'EOF'
import re, sys
from pathlib import Path
import torch
log, device = Path(sys.argv[1]).read_text(), sys.argv[2]
ends = [line for line in log.splitlines() if re.search(r"\d+ (passed|failed)", line)]
failed = [line for line in log.splitlines() if line.startswith(("FAILED", "ERROR"))]
skipped = [line for line in log.splitlines() if line.startswith("SKIPPED")]
name = torch.cuda.get_device_name() if device == "cuda" else "cpu (a dry run)"
try:
    import triton
    tri = triton.__version__
except ImportError:
    tri = "not installed"
lines = [
    f"# The test suite on {name}",
    "",
    f"torch {torch.__version__}, CUDA {torch.version.cuda}, Triton {tri}; "
    "`python -m pytest -n 16 --dist loadgroup -rfEs --tb=short --timeout 150` with CUDA "
    "available (every `device=\"auto\"` in the suite runs on the GPU).",
    "",
    f"Summary line: `{ends[-1].strip('= ') if ends else 'none: the run did not finish'}`",
    "",
    "## Failures" if failed else "No test failed.",
    *([""] + [f"- `{f}`" for f in failed] if failed else []),
    "",
    "## Skipped (with reasons)",
    "",
    *[f"- `{s}`" for s in skipped],
]
Path("benchmarks/results/gpu_tests.md").write_text("\n".join(lines) + "\n")
EOF
pack
# shellcheck disable=SC2086  # the overrides are word lists
phase mamba 120 "$py" benchmarks/mamba_speed.py "${mamba_args[@]}" ${MAMBA:-}
# shellcheck disable=SC2086
phase profile 90 "$py" benchmarks/gpu_steps.py "${profile_args[@]}" ${PROFILE:-}
# shellcheck disable=SC2086
phase ensemble "${ENSEMBLE_LIMIT:-270}" "$py" benchmarks/ensemble_speed.py "${ensemble_args[@]}" ${ENSEMBLE:-}
log "done"
