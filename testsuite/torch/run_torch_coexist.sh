#!/bin/sh
# run_torch_coexist.sh TALLY_RUN [PYTHON] - torch.profiler (a CUPTI tool of
# the application's own) under tally-run.  Without GPU events Tally takes
# no CUPTI subscription: torch.profiler must record as many CUDA events as
# without Tally; with TALLY_CUPTI=app and a cuda::: event too (Tally
# yields); with a cuda::: event and Tally holding CUPTI, the conflict must
# be reported by name, and the refusal said once at the default verbosity.  77 without a GPU or a PyTorch that sees it.
torch_needs=
. "$(dirname "$0")/torch_setup.sh"
count() { sed -n 's/^CUDA_EVENTS //p' "$1" | head -1; }
fails=0
"$py" "$here/torch_profiler_count.py" > "$dir/plain.log" 2>&1
"$run" --output-dir="$dir" --verbose=2 -- "$py" "$here/torch_profiler_count.py" > "$dir/none.log" 2>&1
TALLY_CUPTI=app "$run" --output-dir="$dir" --verbose=2 --events=cuda:::smsp__inst_executed.sum -- \
  "$py" "$here/torch_profiler_count.py" > "$dir/app.log" 2>&1
"$run" --output-dir="$dir" --verbose=2 --events=cuda:::smsp__inst_executed.sum -- \
  "$py" "$here/torch_profiler_count.py" > "$dir/held.log" 2>&1
n0=$(count "$dir/plain.log") n1=$(count "$dir/none.log") n2=$(count "$dir/app.log") n3=$(count "$dir/held.log")
echo "torch.profiler CUDA events: without Tally $n0; tally-run, no GPU feature $n1; TALLY_CUPTI=app with a cuda::: event $n2; Tally holding CUPTI $n3"
[ -n "$n0" ] && [ "$n0" -gt 0 ] || { echo "FAIL: no CUDA events without Tally"; cat "$dir/plain.log"; exit 1; }
[ "$n1" = "$n0" ] || { echo "FAIL: tally-run without GPU events changed torch.profiler's count"; cat "$dir/none.log"; fails=1; }
[ "$n2" = "$n0" ] || { echo "FAIL: TALLY_CUPTI=app: torch.profiler's count changed"; cat "$dir/app.log"; fails=1; }
grep -q "TALLY_CUPTI=app leaves CUPTI" "$dir/app.log" || { echo "FAIL: TALLY_CUPTI=app not said"; fails=1; }
if [ "$n3" != "$n0" ]; then
  grep -q "Tally holds CUPTI's subscription" "$dir/held.log" ||
    { echo "FAIL: torch.profiler lost events while Tally held CUPTI, and nothing said so"; cat "$dir/held.log"; fails=1; }
  # issue 50: the refusal itself, at the default verbosity, naming --cupti=app
  "$run" --output-dir="$dir" --events=cuda:::smsp__inst_executed.sum -- \
    "$py" "$here/torch_profiler_count.py" > "$dir/held1.log" 2>&1
  grep -q "another CUPTI tool of this program.*was refused.*--cupti=app" "$dir/held1.log" ||
    { echo "FAIL: the refused CUPTI tool not said at the default verbosity"; cat "$dir/held1.log"; fails=1; }
fi
grep -h "CUPTI" "$dir"/*.log | sort | uniq -c | head -20
exit $fails
