#!/usr/bin/env bash
# bench_runtime_scale.sh APP TALLY_RUN [NP...] - N ranks x 4 threads x 2000
# regions (2 visits each) under tally-run; checks every (rank, thread, region)
# row's visits and prints the file's write time (write_seconds).
set -u
app=$1 run=$2; shift 2
nps=("$@"); [ ${#nps[@]} -gt 0 ] || nps=(2 4 8 16)
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "python3-h5py missing"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=4 OMP_WAIT_POLICY=passive KMP_BLOCKTIME=0 ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
rc=0
for np in "${nps[@]}"; do
  t0=$(date +%s.%N)
  timeout 600 mpirun --oversubscribe -np "$np" "$run" --output-name=s$np.h5 --libomp=auto -- "$app" || { echo "np $np: job failed"; rc=1; continue; }
  t1=$(date +%s.%N)
  /usr/bin/python3 - "s$np.h5" "$np" "$t0" "$t1" <<'PY' || rc=1
import sys, h5py, collections
f = h5py.File(sys.argv[1], "r"); np_ = int(sys.argv[2])
paths = {int(r["id"]): r["path"].decode() for r in f["regions"][:]}
st = f["region_stats"][:]
bad = 0
per = collections.Counter()
for r in st:
    p = paths[int(r["region"])]
    leaf = p.rsplit(" / ", 1)[-1]
    if leaf.startswith("r") and leaf[1:].isdigit():
        per[(int(r["rank"]), int(r["thread"]))] += 1
        if int(r["visits"]) != 2:
            bad += 1
th = f["threads"][:]
want = {(int(t["rank"]), int(t["thread"])) for t in th}
ok = (f.attrs["nranks"] == np_ and len(want) == 4 * np_ and set(per) == want
      and all(v == 2000 for v in per.values()) and bad == 0)
print("ranks %2d  threads %3d  region rows %7d  file %6.1f MB  write %8.3f s  job %6.1f s  %s" % (
    np_, len(want), len(st), f.id.get_filesize() / 1e6, f.attrs["write_seconds"],
    float(sys.argv[4]) - float(sys.argv[3]), "ok" if ok else "FAILED (bad visits %d, threads %d)" % (bad, len(want))))
sys.exit(0 if ok else 1)
PY
done
exit $rc
