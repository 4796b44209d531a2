#!/usr/bin/env bash
# run_name_bytes.sh APP TALLY_RUN TALLY_REPORT [NAME] - a region named with
# markup and bytes that are no UTF-8 (issue 47: `--format markdown` kept
# `<script>` raw; invalid UTF-8 in a region name gave a 13-line traceback
# in the trace export).  APP's PAPI_hl region is named NAME (default
# '<script>alert(1)</script>' + bytes ff fe + '|x'), measured under
# tally-run --trace; then tally-report --format markdown and --html show
# it escaped (&lt;script&gt;, never the raw tag) and --trace-export
# perfetto exits 0 with no traceback, its JSON holding the name with the
# bytes escaped (\xff\xfe).  Planted: NAME without markup: the checks of
# the escaped name fail ("not escaped").  Bounded: each step 120 s.
set -u
app=$1 run=$2 report=$3
name=${4-$'<script>alert(1)</script>\xff\xfe|x'}
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
unset TALLY_PYTHONPATH
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
bad() { echo "FAILED: $*"; fail=1; }
SAFETY_REGION=$name timeout 120 "$run" --trace --output-name=n.h5 -- "$app" 0 hl >/dev/null 2>err.txt \
  || { cat err.txt; echo "FAILED: the run"; exit 1; }
[ -f n.h5 ] && [ -d n.trace ] || { cat err.txt; echo "FAILED: no file or no trace"; exit 1; }
timeout 120 "$report" --format markdown n.h5 >md.txt 2>md.err; rc=$?
[ $rc = 0 ] || bad "markdown: exit $rc: $(head -3 md.err)"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' md.txt || bad "markdown: the region's name is not escaped"
grep -q '<script' md.txt && bad "markdown: a raw <script> tag"
timeout 120 "$report" --html page.html n.h5 >/dev/null 2>html.err; rc=$?
[ $rc = 0 ] || bad "html: exit $rc: $(head -3 html.err)"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' page.html || bad "html: the region's name is not escaped"
grep -q '<script>alert' page.html && bad "html: the planted <script> tag raw"
timeout 120 "$report" n.h5 --trace-export perfetto out.json >ex.out 2>ex.err; rc=$?
[ $rc = 0 ] || bad "trace export: exit $rc: $(head -3 ex.err)"
grep -q Traceback ex.err ex.out && bad "trace export: a traceback: $(wc -l <ex.err) lines"
/usr/bin/python3 - <<'PY' || bad "trace export: the name with its bytes escaped is not in the JSON (not escaped)"
import json
doc = json.load(open("out.json", encoding="utf-8"))
names = {e.get("name") for e in doc.get("traceEvents", []) if isinstance(e, dict)}
want = "<script>alert(1)</script>\\xff\\xfe|x"
print("trace export: %d events, the region's name %s" % (len(doc.get("traceEvents", [])), want in names))
raise SystemExit(0 if want in names else 1)
PY
[ $fail = 0 ] && echo "a region named with markup and invalid UTF-8: escaped in markdown, HTML and the trace export"
exit $fail
