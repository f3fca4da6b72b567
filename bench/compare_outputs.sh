#!/bin/bash
# Compares two gtv-cli binaries' reports byte for byte: stdout, stderr and exit code of `analyze` (text, json,
# --all) and `whatif --change C` for several changes, over every bundled recording and test trace that `analyze`
# reads (resources/traces, tests/data: .json, .json.gz, Nsight .sqlite) and any TRACE given. Run from the repository
# root. For speed work, where the output must not change.
#
#   bench/compare_outputs.sh OLD_CLI NEW_CLI [TRACE...]
#
# Prints each difference and the count of cases; exits 1 when any case differs.
set -u
if [ $# -lt 2 ]; then
  echo "usage: bench/compare_outputs.sh OLD_CLI NEW_CLI [TRACE...]" >&2
  exit 2
fi
old=$1
new=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mapfile -t files < <(find resources/traces tests/data -type f \( -name '*.json.gz' -o -name '*.json' -o -name '*.sqlite' \) | sort)
files+=("$@")
commands=("analyze" "analyze --format json" "analyze --all" "whatif --change streams" "whatif --change pinned"
  "whatif --change graphs" "whatif --change no-launch-blocking" "whatif --change processes"
  "whatif --change placement=0,0 --format json")
cases=0
diffs=0
for f in "${files[@]}"; do
  for c in "${commands[@]}"; do
    read -r -a words <<<"$c"
    for side in old new; do
      bin=$old
      [ "$side" = new ] && bin=$new
      "$bin" "${words[0]}" "$f" "${words[@]:1}" >"$out/$side.out" 2>"$out/$side.err"
      echo $? >"$out/$side.rc"
    done
    cases=$((cases + 1))
    for s in out err rc; do
      if ! cmp -s "$out/old.$s" "$out/new.$s"; then
        echo "differs: $f: $c ($s)"
        diffs=$((diffs + 1))
      fi
    done
  done
done
echo "$cases cases, $diffs differences"
[ "$diffs" -eq 0 ]
