#!/bin/sh
# Stands in for gtv-run in the run panel's tests, without LibTorch: takes gtv-run's arguments and speaks its
# --report-fd protocol (app/run/run_report.h) on stdout. GTV_FAKE_RUN says what it does:
#   ok     three progress lines, the trace $GTV_FAKE_TRACE copied to the -o path, `wrote`, exit 0
#   fail   a progress line, `failed out of memory (fake)`, exit 1
#   crash  a message on stderr and exit 3 with no `failed` line
#   hang   a progress line "timed loop", then waits until a signal ends it
#   loop   the phase lines, then two of four iterations of the timed loop, then waits until a signal ends it
# With GTV_FAKE_ARGS set, its arguments go to that file first, one line.
if [ -n "$GTV_FAKE_ARGS" ]; then echo "$@" > "$GTV_FAKE_ARGS"; fi
out=""
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then out="$2"; shift; fi
  shift
done
case "${GTV_FAKE_RUN:-ok}" in
  ok)
    echo "progress building model 0 on cpu"
    echo "progress warm-up"
    echo "progress timed loop"
    cp "$GTV_FAKE_TRACE" "$out" || exit 1
    echo "wrote 1 $out"
    echo "wrote $out" >&2
    exit 0 ;;
  fail)
    echo "progress building model 0 on cpu"
    echo "gtv-run: out of memory (fake)" >&2
    echo "failed out of memory (fake)"
    exit 1 ;;
  crash)
    echo "fake runner: gave up" >&2
    exit 3 ;;
  hang)
    echo "progress timed loop"
    exec sleep 600 ;;
  loop)
    echo "progress building model 0 on cpu"
    echo "progress warm-up"
    echo "progress timed loop"
    echo "progress timed loop: 1 of 4 iterations"
    echo "progress timed loop: 2 of 4 iterations"
    exec sleep 600 ;;
esac
exit 2
