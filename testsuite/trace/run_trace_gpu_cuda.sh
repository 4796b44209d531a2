#!/bin/sh
# run_trace_gpu_cuda.sh APP TALLY_RUN OTF2PRINT CHECKER - the trace's GPU
# streams with a small CUDA program (testsuite/gpu/test_rt_nompi_kernels,
# no MPI, no Tally calls), on the device:
#   1. 2,000 launches of its work kernel under tally-run --trace alone (no
#      GPU metric: the trace installs the launch callback itself): 2,000
#      work kernels on the stream track, each with its launch mark,
#      starting at or after it;
#   2. its default run (3 work launches in the NVTX range gpu_phase, one
#      outside) with a GPU metric (the metrics' launch hook tells the
#      trace): the kernels equal the profile's gpu_kernels launches, per
#      region too, each on its stream with its launch mark (the L2 flush
#      queued in the launch carries the launch's correlation id and must
#      not take the kernel's place: issue 49); and the counted
#      instructions per kernel equal those of the same run untraced
#      (exactly: the trace's Activity API must not count);
#   3. the kinds of records (--trace-kinds, issue 49), its default run: with
#      every kind but gpu, no GPU stream and no GPU record while the NVTX
#      range gpu_phase is traced; with gpu alone, the 4 work kernels (3 in
#      gpu_phase, 1 after: the program's launches) each on its stream with
#      its launch mark, and no NVTX region; the archive's TALLY::TRACE_KINDS
#      says which.
# 77 without a GPU or otf2-print.
app=$1 run=$2 otf2print=$3 checker=$4
. "$(dirname "$0")/../gpu/gpu_present.sh"
[ -x "$otf2print" ] || { echo "SKIP: no otf2-print (Debian otf2-tools)"; exit 77; }
PY=${PY:-python3}
# a missing package skips before any check runs, never after a failure (issue 46)
$PY -c "import h5py" 2>/dev/null || { echo "SKIP: $PY has no h5py for the per-region check"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0
timeout 200 "$run" --trace --verbose=2 --output-name=many.h5 -- "$app" 2000 > many.log 2>&1 ||
  { cat many.log; exit 1; }
grep "trace" many.log
grep -q "GPU streams from CUPTI's Activity API" many.log || { echo "FAIL: GPU streams not traced"; fail=1; }
$PY "$checker" "$otf2print" many.trace/traces.otf2 --slack-ns 2000 --kernels 2000 --match "work(" || fail=1
timeout 200 "$run" --trace --verbose=2 --output-name=one.h5 --events=cuda:::smsp__inst_executed.sum -- "$app" \
  > one.log 2>&1 || { cat one.log; exit 1; }
$PY "$checker" "$otf2print" one.trace/traces.otf2 --slack-ns 2000 --h5 one.h5 || fail=1
"$otf2print" one.trace/traces.otf2 | grep -o 'Region: "[^"]*"' | sort | uniq -c | sed 's/^/  regions in the trace: /'
for kinds in user,mpi,openmp,nvtx gpu; do
  out=k_${kinds%%,*}
  timeout 200 "$run" --trace --trace-kinds=$kinds --verbose=2 --output-name=$out.h5 -- "$app" > $out.log 2>&1 ||
    { cat $out.log; exit 1; }
  grep -q "test_rt_nompi_kernels: done" $out.log || { cat $out.log; echo "FAIL: the program did not run"; fail=1; }
  prop=$("$otf2print" -I $out.trace/traces.otf2 | awk '/^Property name/ {n = $NF} /^Property value/ && n == "TALLY::TRACE_KINDS" {print $NF}')
  [ "$prop" = "$kinds" ] || { echo "FAIL: TALLY::TRACE_KINDS is '$prop', want $kinds"; fail=1; }
  nvtx=$("$otf2print" $out.trace/traces.otf2 | grep -c '^ENTER .*Region: "gpu_phase"')
  echo "--trace-kinds=$kinds: $nvtx gpu_phase enters"
  if [ "$kinds" = gpu ]; then
    $PY "$checker" "$otf2print" $out.trace/traces.otf2 --slack-ns 2000 --kernels 4 --match "work(" || fail=1
    [ "$nvtx" = 0 ] || { echo "FAIL: NVTX ranges traced with --trace-kinds=gpu"; fail=1; }
  else
    $PY "$checker" "$otf2print" $out.trace/traces.otf2 --records 0 --streams 0 || fail=1
    [ "$nvtx" = 1 ] || { echo "FAIL: the NVTX range not traced without gpu"; fail=1; }
  fi
done
timeout 200 "$run" --verbose=2 --output-name=plain.h5 --events=cuda:::smsp__inst_executed.sum -- "$app" \
  > plain.log 2>&1 || { cat plain.log; exit 1; }
analysis=${TLY_TEST_PYTHONPATH:-$(cd "$(dirname "$0")/../../analysis" && pwd)}
PYTHONPATH="$analysis" $PY - <<'PY' || fail=1
import sys, tally


def per_kernel(path):
    out = {}
    with tally.raw(path) as f:
        for r in f["gpu_kernels"][:]:
            k = r["kernel"].decode()
            t, n = out.get(k, (0.0, 0))
            out[k] = (t + float(r["total"]), n + int(r["launches"]))
    return out


traced, plain = per_kernel("one.h5"), per_kernel("plain.h5")
ok = bool(traced) and traced == plain
for k in sorted(set(traced) | set(plain)):
    t, p = traced.get(k, (0, 0)), plain.get(k, (0, 0))
    per = (t[0] / t[1] - p[0] / p[1]) if t[1] and p[1] else float("nan")
    print(f"{'ok  ' if t == p else 'FAIL'} {k[:40]}: traced {t[0]:,.0f} in {t[1]} launches, untraced {p[0]:,.0f} "
          f"in {p[1]} (per launch {per:+,.0f})")
sys.exit(0 if ok else 1)
PY
exit $fail
