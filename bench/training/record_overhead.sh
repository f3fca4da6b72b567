#!/usr/bin/env bash
# What recording costs a training loop, on a machine with a CUDA GPU: each scenario of record_training.py run
# untraced, under `gtv-cli record` (CUPTI injected, the active steps kept with --capture-range cudaProfilerApi)
# and under torch.profiler, REPEATS times each, interleaved. Prints each run's wall time of the active steps
# (synchronized at both ends); gtv's traces go to OUT_DIR.
#
#   bench/training/record_overhead.sh [GTV_CLI] [OUT_DIR] [REPEATS] [SCENARIO ...]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cli=${1:-build-cuda/app/cli/gtv-cli}
out=${2:-/tmp/gtv-overhead}
repeats=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
scenarios=("$@")
((${#scenarios[@]})) || scenarios=(cnn seed3-sequential)
mkdir -p "$out"
script="$here/record_training.py"
wall() { sed -n 's/^active steps wall: \(.*\) ms$/\1/p' | tail -n 1; }
for s in "${scenarios[@]}"; do
  for ((r = 1; r <= repeats; r++)); do
    plain=$(RECORD_TRAINING_PLAIN=1 python3 "$script" --child "$s" /dev/null 2>&1 | wall)
    gtv=$(RECORD_TRAINING_PLAIN=1 "$cli" record -o "$out/$s.gtv.r$r.json.gz" --capture-range cudaProfilerApi -- \
      python3 "$script" --child "$s" /dev/null 2>&1 | wall)
    kineto=$(python3 "$script" --child "$s" "$out/$s.kineto.r$r.json.gz" 2>&1 | wall)
    echo "$s run $r: untraced ${plain:-failed} ms, gtv-cli record ${gtv:-failed} ms, torch.profiler ${kineto:-failed} ms"
  done
done
