#!/usr/bin/env bash
# run_trace_test.sh CASE TALLY_RUN OTF2PRINT APP - a traced run, then the
# archive checked against the profile of the same run (check_trace.py),
# exported for Perfetto by tally-report and that JSON checked
# (check_perfetto.py).  Environment: TRACE_REPORT (tally-report),
# TRACE_PYTHONPATH (where the tally package is).
#   serial: trace_serial (3 OpenMP threads) under tally-run --trace
#           --trace-counters; then
#           with --trace-exclude, with --trace-min-ns and with
#           --trace-kinds=user (OpenMP's regions left out, the user
#           regions inside them exact)
#   ring:   trace_ring on 4 MPI ranks (mpirun tally-run --trace); on 8
#           ranks with --trace-kinds=user,openmp (no MPI region, message
#           or collective); on 4 ranks with 3000 receives and 3000 sends
#           pending at once per rank (the trace kept 768 per thread
#           before its request map grew): every request record written,
#           none dropped, no line; --trace-estimate of the
#           4-rank profile within 10% of the archive's events and bytes.  Every check_trace.py run
#           also holds each location's (thread) duration to the profile's.
#   onerank: trace_hybrid (1 MPI rank x 2 OpenMP threads) as a singleton
#           and under mpirun -np 1, on the default libgomp path and with
#           --libomp=auto: the archive is written and every location's
#           enters equal its visits (issue 49: it was left empty)
#   late:   trace_late (no MPI; workers register before the main thread's
#           first event), 20 runs in a row (fewer if 150 s pass, at least
#           5), default path, then 3 with --libomp=auto: every location's
#           enters equal its visits (issue 49: the main thread's were lost)
#   threads: trace_mt on 2 ranks (MPI_THREAD_MULTIPLE): 200 receives and
#           200 sends per rank posted by the main thread and completed by
#           another: each receive written on the completing thread
#           (messages matched), the posting location's 400 missing
#           records counted in tally::dropped_events exactly and said at
#           the end of the job (before: the receives and the count
#           were missing, silently)
#   lulesh: LULESH's shape (bench_lulesh_proxy: 12 OpenMP loops, a halo
#           exchange of Isend/Irecv and an Allreduce per step), 8 ranks x
#           2 threads: every location's enters equal its visits, messages
#           matched; --trace-estimate of its profile within 10% of the
#           archive's events and bytes
#   pair:   two traced runs (a, b; and a 2-rank MPI job r): the file's
#           trace_id is its archive's tally.id (and OTF2 property
#           TALLY::TRACE_ID), different per run; a.h5 exported with b's
#           archive under its name is refused in one line (exit 2), with
#           its own archive exported; the archive named itself exports
#   cap:    10^7 region events with TALLY_TRACE_MAX_EVENTS=100000 and a
#           512k buffer, and 2x10^6 events with no cap (flushed as the
#           buffers fill): peak RSS (VmHWM from /proc) within the buffers
#           plus a constant of the untraced run's, the dropped count exact
set -u
case=$1 run=$2 otf2print=$3 app=$4
here=$(cd "$(dirname "$0")" && pwd)
report=${TRACE_REPORT:?}
/usr/bin/python3 -c "import h5py, otf2" 2>/dev/null || { echo "python3-h5py or python3-otf2 missing"; exit 77; }
[ -x "$otf2print" ] || { echo "otf2-print (otf2-tools) missing"; exit 77; }
export PYTHONPATH=${TRACE_PYTHONPATH:?}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail=0
perfetto() {   # FILE.h5 MIN_FLOWS
  "$report" "$1" --trace-export perfetto "${1%.h5}.json" || return 1
  /usr/bin/python3 "$here/check_perfetto.py" "${1%.h5}.json" "$2"
}
field() { awk -v k="$1" '$0 ~ "^"k" " {print $NF}' "$2"; }
case $case in
serial)
  OMP_NUM_THREADS=3 timeout 120 "$run" --trace --trace-counters --output-name=s.h5 --libomp=auto \
    -- "$app" 20000 > out.txt || fail=1
  cat out.txt
  /usr/bin/python3 "$here/check_trace.py" "$otf2print" s.h5 --metrics \
    --user-events "$(awk '/^user region events/ {print $4}' out.txt)" || fail=1
  perfetto s.h5 0 || fail=1
  # the export without OTF2's Python bindings (a pip-only Python): a venv
  # without system site packages holding every Debian module but otf2's, so
  # tally-report reads the archive through tally-otf2-dump (OTF2's C
  # reader): the same JSON as through the bindings
  /usr/bin/python3 -m venv --without-pip venv || fail=1
  sp=$(venv/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  for m in /usr/lib/python3/dist-packages/*; do
    case ${m##*/} in otf2 | _otf2 | otf2-* | otf2.*) ;; *) ln -s "$m" "$sp/" ;; esac
  done
  if venv/bin/python3 -c 'import otf2' 2>/dev/null || ! venv/bin/python3 -c 'import h5py'; then
    echo "FAIL: the venv without otf2 is not one"; fail=1
  fi
  TALLY_PYTHON=$PWD/venv/bin/python3 "$report" s.h5 --trace-export perfetto n.json || fail=1
  /usr/bin/python3 -c 'import json, sys
a, b = (json.load(open(f))["traceEvents"] for f in sys.argv[1:])
print("export without python3-otf2: %d events, the same as with it: %s" % (len(b), a == b)); sys.exit(a != b)' \
    s.json n.json || fail=1
  # the default path (libgomp's wrappers) too
  OMP_NUM_THREADS=3 timeout 120 "$run" --trace --output-name=g.h5 -- "$app" 20000 > g.txt || fail=1
  /usr/bin/python3 "$here/check_trace.py" "$otf2print" g.h5 \
    --user-events "$(awk '/^user region events/ {print $4}' g.txt)" || fail=1
  # the size before tracing (tally-report --trace-estimate, from the
  # profile) against the archive: events and bytes within 10%
  "$report" g.h5 --trace-estimate 64k > est.txt || fail=1
  cat est.txt
  e_ev=$(awk '/^trace estimate:/ {print $3}' est.txt) e_b=$(awk '/^trace estimate:/ {print $5}' est.txt)
  r_ev=$("$otf2print" g.trace/traces.otf2 | grep -cE '^(ENTER|LEAVE) ') r_b=$(du -sb g.trace | cut -f1)
  echo "estimate $e_ev events, $e_b bytes; archive $r_ev events, $r_b bytes"
  awk -v a="$e_ev" -v b="$r_ev" -v c="$e_b" -v d="$r_b" 'BEGIN { exit !(b > 0 && d > 0 &&
    a >= 0.9 * b && a <= 1.1 * b && c >= 0.9 * d && c <= 1.1 * d) }' || { echo "FAIL: estimate beyond 10%"; fail=1; }
  grep -q "^to fit in 65536 bytes: TALLY_TRACE_EXCLUDE=inner" est.txt || { echo "FAIL: no regions to leave out"; fail=1; }
  # the filters: a name (with what is inside it), a minimum duration
  OMP_NUM_THREADS=3 timeout 120 "$run" --trace --trace-exclude=deep --output-name=x.h5 --libomp=auto \
    -- "$app" 20000 > /dev/null || fail=1
  /usr/bin/python3 "$here/check_trace.py" "$otf2print" x.h5 --exclude deep || fail=1
  OMP_NUM_THREADS=3 timeout 120 "$run" --trace --trace-min-ns=2000 --output-name=m.h5 --libomp=auto \
    -- "$app" 20000 > /dev/null || fail=1
  /usr/bin/python3 "$here/check_trace.py" "$otf2print" m.h5 --min-ns 2000 || fail=1
  # the kinds of records: user regions only (OpenMP's left out, what is inside them kept)
  OMP_NUM_THREADS=3 timeout 120 "$run" --trace --trace-kinds=user --output-name=k.h5 --libomp=auto \
    -- "$app" 20000 > /dev/null || fail=1
  /usr/bin/python3 "$here/check_trace.py" "$otf2print" k.h5 --kinds user || fail=1
  ;;
ring)
  OMP_NUM_THREADS=1 timeout 150 mpirun --oversubscribe -np 4 "$run" --trace --output-name=r.h5 -- "$app" 20 || fail=1
  # per round 4 blocking collectives and 3 non-blocking ones (completed in MPI_Wait/Waitall), and a
  # persistent send per rank (MPI_Startall)
  # and a send freed by MPI_Request_free each round: its end counted dropped (20 a rank)
  /usr/bin/python3 "$here/check_trace.py" "$otf2print" r.h5 --mpi --colls 140,60 --persistent 80 --freed 20 || fail=1
  perfetto r.h5 1 || fail=1
  # the size before tracing on an MPI program: enters, leaves and the MPI records within 10% of the archive's
  "$report" r.h5 --trace-estimate > est.txt || fail=1
  e_ev=$(awk '/^trace estimate:/ {print $3}' est.txt) e_b=$(awk '/^trace estimate:/ {print $5}' est.txt)
  r_ev=$("$otf2print" r.trace/traces.otf2 | grep -cE '^[A-Z_]+ +[0-9]+ +[0-9]+ ') r_b=$(du -sb r.trace | cut -f1)
  echo "MPI ring: estimate $e_ev events, $e_b bytes; archive $r_ev events, $r_b bytes"
  awk -v a="$e_ev" -v b="$r_ev" -v c="$e_b" -v d="$r_b" 'BEGIN { exit !(b > 0 && d > 0 &&
    a >= 0.9 * b && a <= 1.1 * b && c >= 0.9 * d && c <= 1.1 * d) }' || { echo "FAIL: estimate beyond 10%"; fail=1; }
  # the kinds of records: MPI left out (its regions, messages and collectives), on 8 ranks
  OMP_NUM_THREADS=1 timeout 200 mpirun --oversubscribe -np 8 "$run" --trace --trace-kinds=user,openmp \
    --output-name=k.h5 -- "$app" 5 || fail=1
  /usr/bin/python3 "$here/check_trace.py" "$otf2print" k.h5 --kinds user,openmp || fail=1
  # more requests pending at once than the trace's first tables hold (it kept 768 per thread before its
  # map grew): every record written, none dropped, nothing said
  OMP_NUM_THREADS=1 timeout 150 mpirun --oversubscribe -np 4 "$run" --trace --output-name=q.h5 -- "$app" 0 3000 \
    > q.txt 2>&1 || fail=1
  cat q.txt
  /usr/bin/python3 "$here/check_trace.py" "$otf2print" q.h5 --mpi --reqs 3000 || fail=1
  if grep -q "events dropped\|trace is incomplete" q.txt; then echo "FAIL: requests lost"; fail=1; fi
  ;;
pair)
  for n in a b; do
    OMP_NUM_THREADS=2 timeout 120 "$run" --trace --output-name=$n.h5 -- "$app" 2000 > /dev/null || fail=1
  done
  OMP_NUM_THREADS=1 timeout 150 mpirun --oversubscribe -np 2 "$run" --trace --output-name=r.h5 \
    -- "$TRACE_RING" 2 > /dev/null || fail=1
  # the ids, read by the project's reader, against the archives' (and OTF2's own property)
  /usr/bin/python3 - "$otf2print" <<'PY' || fail=1
import subprocess, sys
import tally
ids = {}
for n in "abr":
    mine = tally.read(n + ".h5").meta.get("trace_id")
    theirs = open(n + ".trace/tally.id").read().strip()
    prop = subprocess.run([sys.argv[1], "-I", n + ".trace/traces.otf2"], capture_output=True, text=True).stdout
    in_otf2 = "TALLY::TRACE_ID" in prop and theirs in prop
    print(f"{n}: file trace_id {mine!r}, archive tally.id {theirs!r}, OTF2 property {'the same' if in_otf2 else 'MISSING'}")
    if not mine or mine != theirs or not in_otf2:
        sys.exit(f"FAIL: {n}.h5 and {n}.trace do not carry the same id")
    ids[n] = mine
if len(set(ids.values())) != 3:
    sys.exit("FAIL: two runs' archives carry the same id")
PY
  perfetto a.h5 0 || fail=1
  # another run's archive under a.h5's name: refused, one line, exit 2
  mv a.trace a.own.trace && mv b.trace a.trace
  "$report" a.h5 --trace-export perfetto x.json > x.out 2> x.err; rc=$?
  cat x.err
  if [ $rc != 2 ] || [ "$(wc -l < x.err)" != 1 ] || ! grep -q "is not this file's" x.err || [ -e x.json ]; then
    echo "FAIL: a.h5 with b's archive: exit $rc, $(wc -l < x.err) lines, want 2 and one line saying it is not its own"
    fail=1
  fi
  # an archive without an id (put there, or an older Tally's): refused too
  mv a.trace/tally.id a.trace/id.moved
  "$report" a.h5 --trace-export perfetto x.json 2> x.err; rc=$?
  [ $rc = 2 ] && grep -q "carries no id" x.err || { echo "FAIL: an archive without an id: exit $rc: $(cat x.err)"; fail=1; }
  mv a.trace/id.moved a.trace/tally.id
  # the archive by its own name: exported
  "$report" a.trace --trace-export perfetto b.json > /dev/null || { echo "FAIL: the archive by its name"; fail=1; }
  mv a.trace b.trace && mv a.own.trace a.trace
  perfetto a.h5 0 || fail=1
  [ $fail = 0 ] && echo "trace pairing: each file exported with its own archive only"
  ;;
threads)
  OMP_NUM_THREADS=1 timeout 150 mpirun --oversubscribe -np 2 "$run" --trace --output-name=t.h5 -- "$app" 200 \
    > t.txt 2>&1; rc=$?
  cat t.txt
  [ $rc = 77 ] && exit 77   # the MPI library gives no MPI_THREAD_MULTIPLE
  [ $rc = 0 ] || fail=1
  /usr/bin/python3 "$here/check_trace.py" "$otf2print" t.h5 --mpi --elsewhere 200 || fail=1
  grep -q "trace: 800 events dropped" t.txt || { echo "FAIL: the 2 x 400 records not said"; fail=1; }
  if grep -q "trace is incomplete" t.txt; then echo "FAIL: the check finds messages lost"; fail=1; fi
  ;;
lulesh)
  OMP_NUM_THREADS=2 timeout 300 mpirun --oversubscribe -np 8 "$run" --trace --output-name=l.h5 -- "$app" 10 4096 \
    || fail=1
  /usr/bin/python3 "$here/check_trace.py" "$otf2print" l.h5 --mpi --threads 16 || fail=1
  "$report" l.h5 --trace-estimate > est.txt || fail=1
  e_ev=$(awk '/^trace estimate:/ {print $3}' est.txt) e_b=$(awk '/^trace estimate:/ {print $5}' est.txt)
  r_ev=$("$otf2print" l.trace/traces.otf2 | grep -cE '^[A-Z_]+ +[0-9]+ +[0-9]+ ') r_b=$(du -sb l.trace | cut -f1)
  echo "LULESH shape, 8 x 2: estimate $e_ev events, $e_b bytes; archive $r_ev events, $r_b bytes"
  awk -v a="$e_ev" -v b="$r_ev" -v c="$e_b" -v d="$r_b" 'BEGIN { exit !(b > 0 && d > 0 &&
    a >= 0.9 * b && a <= 1.1 * b && c >= 0.9 * d && c <= 1.1 * d) }' || { echo "FAIL: estimate beyond 10%"; fail=1; }
  ;;
onerank)
  export OMP_NUM_THREADS=2
  for how in "singleton:" "mpirun:" "mpirun:--libomp=auto"; do
    launch=${how%%:*} opt=${how#*:} out=one_${launch}${opt:+_auto}.h5
    if [ "$launch" = singleton ]; then
      timeout 120 "$run" --trace $opt --output-name="$out" -- "$app" 2000 > o.txt 2>&1 || fail=1
    else
      timeout 120 mpirun -np 1 "$run" --trace $opt --output-name="$out" -- "$app" 2000 > o.txt 2>&1 || fail=1
    fi
    cat o.txt
    if grep -q "left incomplete" o.txt; then echo "FAIL: $how: trace left incomplete"; fail=1; fi
    echo "== one rank x 2 threads, $launch $opt"
    /usr/bin/python3 "$here/check_trace.py" "$otf2print" "$out" --mpi --threads 2 || fail=1
  done
  ;;
late)
  export OMP_NUM_THREADS=2
  runs=0 bad=0 t0=$SECONDS
  while [ $runs -lt 20 ] && { [ $runs -lt 5 ] || [ $((SECONDS - t0)) -lt 150 ]; }; do
    rm -rf l.h5 l.trace
    timeout 60 "$run" --trace --output-name=l.h5 -- "$app" 500 > /dev/null || { fail=1; break; }
    /usr/bin/python3 "$here/check_trace.py" "$otf2print" l.h5 --threads 4 > l.txt || { cat l.txt; bad=$((bad + 1)); }
    runs=$((runs + 1))
  done
  echo "late registration, default path: $bad of $runs runs lost events ($((SECONDS - t0)) s)"
  [ $bad -eq 0 ] || fail=1
  # a thread's events lost on purpose (the test setting): the end-of-job
  # line and the file's attribute, shown by tally-report; a whole trace's is empty
  rm -rf d.h5 d.trace
  TALLY_TRACE_TEST_LOSE=2 timeout 60 "$run" --trace --output-name=d.h5 -- "$app" 500 > d.txt 2>&1 || fail=1
  cat d.txt
  grep -q "the trace is incomplete: 502 enters the profile counts are missing" d.txt \
    || { echo "FAIL: no end-of-job line for the lost thread"; fail=1; }
  "$report" d.h5 > d.rep 2>&1 || fail=1
  grep -q "^ *trace .*the trace is incomplete: 502 enters" d.rep \
    || { cat d.rep; echo "FAIL: tally-report does not show the trace's check"; fail=1; }
  /usr/bin/python3 -c 'import sys, tally; m = tally.read(sys.argv[1]).meta; v = str(m.get("trace_check", "?"))
print("trace_check of the whole trace:", repr(v)); sys.exit(v != "")' l.h5 || fail=1
  for k in 1 2 3; do
    rm -rf a.h5 a.trace
    timeout 60 "$run" --trace --libomp=auto --output-name=a.h5 -- "$app" 500 > /dev/null || fail=1
    /usr/bin/python3 "$here/check_trace.py" "$otf2print" a.h5 --threads 4 || fail=1
  done
  ;;
cap)
  export OMP_NUM_THREADS=2
  timeout 300 "$run" --output-name=base.h5 --libomp=auto -- "$app" 5000000 > base.txt || fail=1
  timeout 300 "$run" --trace --trace-max-events=100000 --trace-buffer=512k --output-name=c.h5 --libomp=auto \
    -- "$app" 5000000 > c.txt || fail=1
  timeout 300 "$run" --trace --trace-buffer=512k --output-name=f.h5 --libomp=auto -- "$app" 1000000 > f.txt || fail=1
  cat base.txt c.txt f.txt
  /usr/bin/python3 "$here/check_trace.py" "$otf2print" c.h5 --capped \
    --user-events "$(awk '/^user region events/ {print $4}' c.txt)" || fail=1
  /usr/bin/python3 "$here/check_trace.py" "$otf2print" f.h5 \
    --user-events "$(awk '/^user region events/ {print $4}' f.txt)" || fail=1
  b=$(field vmhwm_kib base.txt) c=$(field vmhwm_kib c.txt) f=$(field vmhwm_kib f.txt)
  # two locations of 512 KiB each, plus 8 MiB: OTF2's own structures and
  # file buffers, malloc's arena of the second thread (measured: 5-7 MiB,
  # the same for 2x10^5 and 6x10^6 events)
  lim=$((b + 2 * 512 + 8192))
  echo "peak RSS: untraced $b KiB, capped 10^7 events $c KiB, uncapped 2x10^6 events $f KiB (limit $lim KiB)"
  if ldd "$(dirname "$run")/libtally-preload.so" 2>/dev/null | grep -q libasan; then
    # ASan keeps freed memory in its quarantine (256 MiB): peak RSS measures that, not the trace
    echo "sanitizer build: the counts are checked, the memory bound is the release build's check"
  else
    [ "$c" -le "$lim" ] && [ "$f" -le "$lim" ] || { echo "FAIL: trace memory beyond its buffers"; fail=1; }
  fi
  ;;
esac
exit $fail
