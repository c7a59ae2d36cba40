#!/usr/bin/env bash
# The central experiment of the mixture-of-parrots, looped-reasoning and knowledge-graph papers on
# one CUDA GPU: one stretch of each paper's slice (profiles parrots-gpu, looped-gpu, kg-gpu) one
# after the other, each by benchmarks/gpu_stretch.sh (resumed from shipped/<profile>.db, 8 worker
# processes), into OUT_DIR/parrots, OUT_DIR/looped and OUT_DIR/kg. Back where the repository is
# checked out, record each:
#
#   python benchmarks/gpu_stretch.py OUT_DIR/parrots --profile parrots-gpu --device-seconds S
#   python benchmarks/gpu_stretch.py OUT_DIR/looped --profile looped-gpu --device-seconds S
#   python benchmarks/gpu_stretch.py OUT_DIR/kg --profile kg-gpu --device-seconds S
#
# which ships the runs to shipped/<profile>.db and writes benchmarks/results/gpu_papers.json.
#
#   bash benchmarks/gpu_papers.sh OUT_DIR                       # on the GPU machine, repo root
#   GPU_STRETCH_TOY=1 PYTHON=.venv/bin/python bash benchmarks/gpu_papers.sh /tmp/gp   # the CPU
#
# Each slice: no unit starts after <NAME>_START seconds, stopped at <NAME>_HARD (defaults 100 and
# 160 s; the kg slice is a capacity search, which takes no start limit), so the three fit one
# command of about 9 minutes (tried on the CPU: 45 s of overhead over the three hard limits); a
# slice that does not finish resumes in the next stretch.
set -uo pipefail
out=${1:?usage: bash benchmarks/gpu_papers.sh OUT_DIR}
mkdir -p "$out"
slice() {  # name profile start hard
  echo "== $1 ($2): no start after $3 s, stopped at $4 s"
  PROFILE=$2 START_SECONDS=$3 HARD_SECONDS=$4 bash benchmarks/gpu_stretch.sh "$out/$1"
}
slice parrots parrots-gpu "${PARROTS_START:-100}" "${PARROTS_HARD:-160}"
slice looped looped-gpu "${LOOPED_START:-100}" "${LOOPED_HARD:-160}"
slice kg kg-gpu none "${KG_HARD:-160}"
