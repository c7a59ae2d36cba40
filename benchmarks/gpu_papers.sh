#!/usr/bin/env bash
# The central experiment of the mixture-of-parrots, looped-reasoning and knowledge-graph papers on
# one CUDA GPU: one stretch of each paper's slice (profiles parrots-gpu, looped-gpu, kg-gpu) one
# after the other, each by benchmarks/gpu_stretch.sh (resumed from shipped/<profile>.db, 8 worker
# processes). Each slice's folder is packed into one archive, OUT_DIR/<paper>.tgz, as soon as the
# slice ends: a device command brings back at most 8 files, and the three folders hold up to 21.
# Back where the repository is checked out, record each:
#
#   python benchmarks/gpu_stretch.py OUT_DIR/parrots.tgz --profile parrots-gpu --device-seconds S
#   python benchmarks/gpu_stretch.py OUT_DIR/looped.tgz --profile looped-gpu --device-seconds S
#   python benchmarks/gpu_stretch.py OUT_DIR/kg.tgz --profile kg-gpu --device-seconds S
#
# which ships the runs to shipped/<profile>.db and writes benchmarks/results/gpu_papers.json.
#
#   bash benchmarks/gpu_papers.sh OUT_DIR                       # on the GPU machine, repo root
#   GPU_STRETCH_TOY=1 PYTHON=.venv/bin/python bash benchmarks/gpu_papers.sh /tmp/gp   # the CPU
#
# Each slice: no unit starts after <NAME>_START seconds, stopped at <NAME>_HARD (defaults 100 and
# 160 s; the kg slice is a capacity search, which takes no start limit); PAPERS (default
# "parrots looped kg") picks the slices and their order; <NAME>_ARGS adds arguments to its sweep
# (e.g. KG_ARGS="--extend-undecided 1": runs still improving train again with twice the steps;
# <NAME> in capitals) and <NAME>_FORMS the cells gpu_stretch.sh times first by
# benchmarks/gpu_forms.py (e.g. LOOPED_FORMS="p-hop:looped:64:1:40": the stacked Adafactor against
# the members one by one; FORMS_SECONDS caps it). A slice that does not finish resumes in
# the next stretch. Measured on one H200 (benchmarks/results/gpu_pending.md): 15 s of start-up
# per slice beside its hard limit.
set -uo pipefail
out=${1:?usage: bash benchmarks/gpu_papers.sh OUT_DIR}
mkdir -p "$out"
work=$(mktemp -d)
slice() {  # name profile start hard [sweep arguments] [forms cells]
  echo "== $1 ($2): no start after $3 s, stopped at $4 s ${5:-}"
  PROFILE=$2 START_SECONDS=$3 HARD_SECONDS=$4 SWEEP_ARGS=${5:-} FORMS=${6:-} \
    bash benchmarks/gpu_stretch.sh "$work/$1"
  tar czf "$out/$1.tgz.part" -C "$work" "$1" && mv "$out/$1.tgz.part" "$out/$1.tgz"
}
for paper in ${PAPERS:-parrots looped kg}; do
  case $paper in
    parrots)
      slice parrots parrots-gpu "${PARROTS_START:-100}" "${PARROTS_HARD:-160}" \
        "${PARROTS_ARGS:-}" "${PARROTS_FORMS:-}" ;;
    looped)
      slice looped looped-gpu "${LOOPED_START:-100}" "${LOOPED_HARD:-160}" \
        "${LOOPED_ARGS:-}" "${LOOPED_FORMS:-}" ;;
    kg) slice kg kg-gpu none "${KG_HARD:-160}" "${KG_ARGS:-}" "${KG_FORMS:-}" ;;
    *) echo "unknown paper $paper (parrots, looped or kg)" >&2; exit 2 ;;
  esac
done
rm -rf "$work"
