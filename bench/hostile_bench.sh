#!/bin/sh
# Times `gtv-cli info` and `gtv-cli analyze` on each trace that bench/hostile_traces.py writes.
#   bench/hostile_bench.sh GTV_CLI DIR [TIMEOUT_S]
# One line per file and command: wall seconds, user + system CPU seconds and peak resident memory (from
# /usr/bin/time), output bytes and exit status; a run killed at TIMEOUT_S (default 120) shows exit status 124.
set -u
cli=$1
dir=$2
limit=${3:-120}
echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') $(uname -srm), nproc $(nproc), loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# cli: $cli"
echo "# file             command   wall_s   cpu_s  peak_MB  out_bytes  exit"
for f in "$dir"/*.json; do
  for cmd in info analyze; do
    /usr/bin/time -f '%e %U %S %M' -o /tmp/hostile_bench.time timeout "$limit" "$cli" "$cmd" "$f" \
      2>/tmp/hostile_bench.err | wc -c >/tmp/hostile_bench.bytes
    rc=$(sed -n 's/^Command exited with non-zero status \([0-9]*\)$/\1/p' /tmp/hostile_bench.time)
    set -- $(tail -1 /tmp/hostile_bench.time)
    printf '%-18s %-8s %7.2f %7.2f %8.0f %10d  %s  %s\n' "$(basename "$f" .json)" "$cmd" "$1" "$(echo "$2 + $3" | bc)" \
      "$(echo "$4 / 1024" | bc)" "$(cat /tmp/hostile_bench.bytes)" "${rc:-0}" "$(head -c 100 /tmp/hostile_bench.err | tr '\n' ' ')"
  done
done
echo "# loadavg after: $(cut -d' ' -f1-3 /proc/loadavg)"
