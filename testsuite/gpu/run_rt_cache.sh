#!/usr/bin/env bash
# run_rt_cache.sh APP TALLY_RUN - cache control by default agrees with ncu:
# dram__bytes_read.sum of a copy kernel reading TG_COPY_MIB=32 MiB (less
# than the L2, so a warm cache would hide most of it), per launch, from
# ncu (its default cache control: flush) and from tally-run with default
# settings as a one-pass metric, under kernel replay (a 3-pass list),
# under --passes=auto (application replay of that list): each within 2%
# of ncu's.  APP is test_rt_multi (mode copy).  77 without a GPU, ncu or h5py.
set -u
analysis=${TLY_TEST_PYTHONPATH:-$(cd "$(dirname "$0")/../../analysis" && pwd)}   # tally.raw reads the files
app=$1 run=$2
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
app=$(abs "$app") run=$(abs "$run")
. "$(dirname "$0")/gpu_present.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TG_COPY_MIB=32
command -v ncu >/dev/null || { echo "SKIP: no ncu"; exit 77; }
py=
for c in ${TALLY_PYTHON:-} python3 /usr/bin/python3; do "$c" -c "import h5py" 2>/dev/null && { py=$c; break; }; done
[ -n "$py" ] || { echo "SKIP: no python3 with h5py"; exit 77; }
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; cd "$dir" || exit 1
D=cuda:::dram__bytes_read.sum
M=$D,cuda:::smsp__inst_executed.sum,cuda:::smsp__thread_inst_executed.sum,cuda:::sm__warps_launched.sum
M=$M,cuda:::sm__ctas_launched.sum,cuda:::smsp__inst_executed_op_global_ld.sum,cuda:::l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
M=$M,cuda:::smsp__inst_executed_op_global_st.sum,cuda:::l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
timeout 120 ncu --csv --metrics dram__bytes_read.sum mpirun -np 1 "$app" copy > ncu.csv 2> ncu.err ||
  timeout 120 ncu --csv --target-processes all --metrics dram__bytes_read.sum mpirun -np 1 "$app" copy > ncu.csv 2>> ncu.err
for j in one:$D kr:$M; do
  timeout 120 mpirun -np 1 "$run" --events=${j#*:} --output-name=${j%%:*}.h5 --verbose=2 -- "$app" copy > ${j%%:*}.log 2>&1 ||
    { cat ${j%%:*}.log; echo "FAIL: job ${j%%:*}"; exit 1; }
done
timeout 300 "$run" --passes=auto --events=$M --output-name=ar.h5 --verbose=2 -- mpirun -np 1 "$app" copy > ar.log 2>&1 ||
  { cat ar.log; echo "FAIL: job ar"; exit 1; }
PYTHONPATH="$analysis" "$py" - <<'PY'
import csv, sys, tally
ncu = [float(r["Metric Value"].replace(",", "")) * {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}.get(r["Metric Unit"], 1)
       for r in csv.DictReader(l for l in open("ncu.csv") if l.startswith('"'))
       if r.get("Metric Name") == "dram__bytes_read.sum" and r.get("Kernel Name", "").startswith("copy")]
if not ncu:
    print("FAIL: no ncu value for the copy kernel"); print(open("ncu.csv").read()[:2000]); sys.exit(1)
ref = sum(ncu) / len(ncu)
ok = True
for name in ("one", "kr", "ar"):
    with tally.raw(name + ".h5") as f:
        rows = [r for r in f["gpu_kernels"][:] if r["kernel"].decode().startswith("copy")
                and r["metric"].decode() == "dram__bytes_read.sum"]
    v = sum(float(r["total"]) for r in rows) / max(1, sum(int(r["launches"]) for r in rows))
    cache = sorted({r["cache"].decode() for r in rows})
    good = rows and abs(v - ref) <= 0.02 * ref
    ok = ok and bool(good)
    print(f"{'ok  ' if good else 'FAIL'} {name}: dram__bytes_read.sum per launch {v:,.0f}, ncu {ref:,.0f} "
          f"({100 * (v - ref) / ref:+.2f}%), cache {cache}, replay {sorted({r['replay'].decode() for r in rows})}")
sys.exit(0 if ok else 1)
PY
