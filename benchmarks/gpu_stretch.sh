#!/usr/bin/env bash
# One stretch of a long sweep on a machine with one CUDA GPU (the `gpu` profile by default): resume
# from the runs shipped so far, sweep with a time limit, and put the store (runs only), the sweep's
# log and the GPU's utilisation into one folder. Back where the repository is checked out,
# `python benchmarks/gpu_stretch.py OUT_DIR --device-seconds S` ships the runs and records the
# stretch (benchmarks/results/gpu_profile.json and gpu_stretches.md).
#
#   bash benchmarks/gpu_stretch.sh OUT_DIR                      # on the GPU machine, in the repo root
#   GPU_STRETCH_TOY=1 bash benchmarks/gpu_stretch.sh /tmp/gs    # a dry run on the CPU (smoke profile)
#
# PROFILE (default gpu); RESUME (the store whose runs are skipped, default shipped/$PROFILE.db when
# it exists); WORKERS (processes sharing the GPU, default 8); START_SECONDS (no unit starts after
# this, default 270; "none" for a capacity search, which takes no --time-limit); HARD_SECONDS
# (the sweep is stopped then, losing the units still training, default 470); FORMS (cells
# task:arch:width:layers:N for benchmarks/gpu_forms.py, run first
# for at most FORMS_SECONDS, default 90; "all" for every cell; unset: not run). The store is
# copied into OUT_DIR every 30 s, so a stretch cut short still brings back every run it stored.
# OUT_DIR gets at most 7 files: the store, log.txt (machine, install), sweep.log, sweep.json,
# stretch.json, gpu_util.csv and forms.json. ENSEMBLE caps the members of one ensemble (smaller
# ensembles finish sooner: for the longest cells, whose ensemble of 14 outlasts a stretch).
# SWEEP_ARGS: further arguments of `ccx sweep` (e.g. "--extend-undecided 1").
# MPS=1 runs the workers under CUDA's multi-process service, so that their kernels share the GPU's
# multiprocessors at once instead of taking turns (small models' steps are bound by kernel
# launches, each far from filling the GPU); it falls back to plain processes, saying why in
# log.txt, when the service is missing or a CUDA probe through it fails within 60 s.
set -uo pipefail
out=${1:?usage: bash benchmarks/gpu_stretch.sh OUT_DIR}
mkdir -p "$out"
py=${PYTHON:-python3}
toy=${GPU_STRETCH_TOY:-}
export PYTHONUNBUFFERED=1
work=$(mktemp -d)

if [ -z "$toy" ]; then
  profile=${PROFILE:-gpu}
  workers=${WORKERS:-8}
  start_s=${START_SECONDS:-270}
  hard_s=${HARD_SECONDS:-470}
  "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl >>"$out/log.txt" 2>&1 || echo "wheel install failed" >>"$out/log.txt"
  export PYTHONPATH="/tmp/site:$PWD"
else
  profile=${PROFILE:-smoke}
  workers=${WORKERS:-2}
  start_s=${START_SECONDS:-15}
  hard_s=${HARD_SECONDS:-90}
  export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
fi
resume=${RESUME:-shipped/$profile.db}
store="$work/$profile.db"
[ -f "$resume" ] && cp "$resume" "$store"

{
  date -u +"start %FT%TZ"
  echo "profile $profile, workers $workers, no start after $start_s s, stop at $hard_s s ${SWEEP_ARGS:-}"
  echo "resumed from: $([ -f "$resume" ] && echo "$resume" || echo "nothing")"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null
  "$py" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, \
torch.cuda.get_device_name() if torch.cuda.is_available() else 'no GPU')"
  nproc
} >>"$out/log.txt" 2>&1

copy_store() {  # a consistent copy of the store (SQLite's backup), replacing the last one
  [ -f "$store" ] || return 0
  "$py" - "$store" "$out/$profile.db" <<'EOF' 2>>"$out/log.txt"
import sqlite3, sys, os
src, dst = sys.argv[1], sys.argv[2]
part = dst + ".part"
a, b = sqlite3.connect(src, timeout=30), sqlite3.connect(part)
a.backup(b)
b.close(); a.close()
os.replace(part, dst)
EOF
}

if [ -n "${FORMS:-}" ]; then
  cells=()
  [ "$FORMS" != all ] && read -r -a cells <<<"$FORMS"
  forms_args=(--steps 10)
  [ -n "$toy" ] && forms_args=(--device cpu --batched --steps 2)
  echo "forms: ${FORMS}" >>"$out/log.txt"
  timeout -k 10 "${FORMS_SECONDS:-90}" "$py" benchmarks/gpu_forms.py --profile "$profile" \
    "${forms_args[@]}" \
    --budget $((${FORMS_SECONDS:-90} - 30)) ${cells[@]:+--cells "${cells[@]}"} >>"$out/log.txt" 2>&1
  echo "forms: exit $?" >>"$out/log.txt"
  forms_name=gpu_forms
  [ "$profile" = gpu ] || forms_name=gpu_forms_$profile
  [ -n "$toy" ] && forms_name=${forms_name}_cpu
  cp "benchmarks/results/$forms_name.json" "$out/forms.json" 2>/dev/null
fi

mps=off
if [ -z "$toy" ] && [ -n "${MPS:-}" ]; then
  if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
    export CUDA_MPS_PIPE_DIRECTORY="$work/mps-pipe" CUDA_MPS_LOG_DIRECTORY="$work/mps-log"
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    nvidia-cuda-mps-control -d >>"$out/log.txt" 2>&1
    if timeout -k 5 60 "$py" -c "import torch; print(torch.ones(8, device='cuda').sum().item())" \
      >>"$out/log.txt" 2>&1 && [ -n "$(echo get_server_list | nvidia-cuda-mps-control)" ]; then
      mps=on
    else
      echo quit | nvidia-cuda-mps-control >/dev/null 2>&1
      unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
      mps="off: the probe through the service failed"
    fi
  else
    mps="off: no nvidia-cuda-mps-control"
  fi
fi
echo "mps: $mps" >>"$out/log.txt"

if [ -z "$toy" ]; then
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -l 5 \
    >"$out/gpu_util.csv" 2>/dev/null &
  smi=$!
fi
(while sleep 30; do copy_store; done) &
copier=$!

began=$(date +%s.%N)
limit=(--time-limit "$start_s")
[ "$start_s" = none ] && limit=()
timeout -s INT -k 20 "$hard_s" "$py" -m ccx sweep --profile "$profile" --store "$store" \
  --checkpoint-dir "$work/checkpoints" --workers "$workers" ${limit[@]:+"${limit[@]}"} \
  ${ENSEMBLE:+--ensemble "$ENSEMBLE"} ${SWEEP_ARGS:-} --json \
  >"$out/sweep.json" 2>"$out/sweep.log"
rc=$?
ended=$(date +%s.%N)
kill "$copier" 2>/dev/null
[ -n "${smi:-}" ] && kill "$smi" 2>/dev/null
[ "$mps" = on ] && echo quit | nvidia-cuda-mps-control >/dev/null 2>&1
wait 2>/dev/null
copy_store
"$py" -c "import json; print(json.dumps({'exit': $rc, 'sweep_seconds': round($ended - $began, 1), \
'profile': '$profile', 'workers': $workers, 'start_seconds': ${start_s/none/None}, \
'hard_seconds': $hard_s, 'mps': '$mps', 'sweep_args': '${SWEEP_ARGS:-}'}))" \
  >"$out/stretch.json"
cat "$out/stretch.json"
tail -n 3 "$out/sweep.log"
rm -rf "$work"
