#!/usr/bin/env bash
# bench_runtime_scale.sh APP TALLY_RUN PYTHON PKGDIR [NP...] - N ranks x 4
# threads x 2000 regions (2 visits each) under tally-run; reads the file
# with tally.read (PYTHON: the configured interpreter, PKGDIR: the tally
# package's folder), checks every (rank, thread, region) row's visits and
# prints the file's write time (write_seconds).  Fails on a wrong count.
set -u
app=$1 run=$2 py=$3 pkg=$4; shift 4
nps=("$@"); [ ${#nps[@]} -gt 0 ] || nps=(2 4 8 16)
"$py" -c "import h5py, pandas" 2>/dev/null || { echo "$py lacks h5py or pandas"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=4 OMP_WAIT_POLICY=passive KMP_BLOCKTIME=0 ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
rc=0
for np in "${nps[@]}"; do
  t0=$(date +%s.%N)
  timeout 600 mpirun --oversubscribe -np "$np" "$run" --output-name=s$np.h5 --libomp=auto -- "$app" || { echo "np $np: job failed"; rc=1; continue; }
  t1=$(date +%s.%N)
  "$py" - "$pkg" "s$np.h5" "$np" "$t0" "$t1" <<'PY' || rc=1
import collections, os, sys
sys.path.insert(0, sys.argv.pop(1))
import tally
run = tally.read(sys.argv[1]); np_ = int(sys.argv[2])
paths = dict(zip(run.tables["regions"]["id"].astype(int), run.tables["regions"]["path"]))
st = run.tables["region_stats"]
bad = 0
per = collections.Counter()
for reg, rank, thread, visits in zip(st["region"], st["rank"], st["thread"], st["visits"]):
    leaf = paths[int(reg)].rsplit(" / ", 1)[-1]
    if leaf.startswith("r") and leaf[1:].isdigit():
        per[(int(rank), int(thread))] += 1
        if int(visits) != 2:
            bad += 1
th = run.tables["threads"]
want = set(zip(th["rank"].astype(int), th["thread"].astype(int)))
ok = (int(run.meta["nranks"]) == np_ and len(want) == 4 * np_ and set(per) == want
      and all(v == 2000 for v in per.values()) and bad == 0)
print("ranks %2d  threads %3d  region rows %7d  file %6.1f MB  write %8.3f s  job %6.1f s  %s" % (
    np_, len(want), len(st), os.path.getsize(sys.argv[1]) / 1e6, float(run.meta["write_seconds"]),
    float(sys.argv[4]) - float(sys.argv[3]), "ok" if ok else "FAILED (bad visits %d, threads %d)" % (bad, len(want))))
sys.exit(0 if ok else 1)
PY
done
exit $rc
