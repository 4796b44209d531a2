"""settings.py - Tally's settings table for Python: generated from
src/settings/settings.def by src/settings/gen_settings_py.py; do not edit:
change the table and run the script (ctest settings_py checks it).
The one place the tally package reads the environment (ctest layout_getenv):
raw/flag/count/text read a row with the C grammar (a bad value is one line
on stderr, then the default), env_raw another program's variable."""
import os
import sys

# ENV_NAME: (kind, default, max, choices)
ROWS = {
    'TALLY_EVENTS': ('LIST', '', 0, ''),
    'TALLY_OUTPUT_DIR': ('STR', '.', 0, ''),
    'TALLY_OUTPUT_NAME': ('STR', '', 0, ''),
    'TALLY_OUTPUT_REPLACE': ('BOOL', '0', 0, ''),
    'TALLY_OUTPUT_GATHER': ('INT', '64', 1000000, ''),
    'TALLY_MPI': ('BOOL', '1', 0, ''),
    'TALLY_MPI_REGIONS': ('BOOL', '1', 0, ''),
    'TALLY_MPI_COUNTERS': ('BOOL', '0', 0, ''),
    'TALLY_MPI_CALLSITES': ('INT', '0', 999999, ''),
    'TALLY_OMPT': ('BOOL', '1', 0, ''),
    'TALLY_OMP_COUNTERS': ('BOOL', '1', 0, ''),
    'TALLY_BUDGET': ('STR', '3', 0, ''),
    'TALLY_REGIONS': ('BOOL', '1', 0, ''),
    'TALLY_REGION_COUNTERS': ('BOOL', '1', 0, ''),
    'TALLY_MAX_DEPTH': ('INT', '64', 999999, ''),
    'TALLY_MAX_REGIONS': ('INT', '100000', 999999, ''),
    'TALLY_TRACE': ('BOOL', '0', 0, ''),
    'TALLY_TRACE_COUNTERS': ('BOOL', '0', 0, ''),
    'TALLY_TRACE_BUFFER': ('SIZE', '4M', 1073741824, ''),
    'TALLY_TRACE_MAX_EVENTS': ('INT', '0', 1000000000000, ''),
    'TALLY_TRACE_MAX_DEPTH': ('INT', '0', 999999, ''),
    'TALLY_TRACE_MIN_NS': ('INT', '0', 1000000000000, ''),
    'TALLY_TRACE_TEST_LOSE': ('INT', '0', 65536, ''),
    'TALLY_TRACE_EXCLUDE': ('LIST', '', 0, ''),
    'TALLY_TRACE_KINDS': ('LIST', '', 0, ''),
    'TALLY_SERIAL': ('BOOL', '1', 0, ''),
    'TALLY_EXCLUDE': ('LIST', 'mpirun,mpiexec,orterun,orted,prterun,prted,srun,hydra_pmi_proxy,sh,bash,dash,env,tally-run,timeout,nohup,time,xargs,torchrun,torch.distributed.run,torch.distributed.launch', 0, ''),
    'TALLY_CHILDREN': ('CHOICE', 'exclude', 0, 'exclude,measure'),
    'TALLY_SIGNALS': ('BOOL', '1', 0, ''),
    'TALLY_EXIT_TIMEOUT': ('INT', '20', 999999, ''),
    'TALLY_VERBOSE': ('INT', '1', 999999, ''),
    'TALLY_DISABLE': ('BOOL', '0', 0, ''),
    'TALLY_LIBOMP': ('STR', 'off', 0, ''),
    'TALLY_PRELOAD': ('STR', '', 0, ''),
    'TALLY_NVTX': ('BOOL', '1', 0, ''),
    'TALLY_NVTX_MAX_MARKS': ('INT', '100000', 999999, ''),
    'TALLY_NVTX_DOMAINS': ('LIST', '', 0, ''),
    'TALLY_NVTX_COUNTERS': ('BOOL', '1', 0, ''),
    'TALLY_PASS_MODE': ('CHOICE', 'auto', 0, 'auto,off'),
    'TALLY_PASS_REGION': ('STR', '', 0, ''),
    'TALLY_PASSES': ('STR', '', 0, ''),
    'TALLY_PASS_INDEX': ('STR', '', 0, ''),
    'TALLY_PASS_IMAGE': ('STR', '', 0, ''),
    'TALLY_PCSAMP': ('BOOL', '0', 0, ''),
    'TALLY_PCSAMP_PERIOD': ('INT', '0', 999999, ''),
    'TALLY_PCSAMP_MODE': ('CHOICE', 'continuous', 0, 'continuous,serialized,kernel-serialized,kernel'),
    'TALLY_PCSAMP_STALLS': ('LIST', '', 0, ''),
    'TALLY_PCSAMP_SCRATCH': ('SIZE', '0', 1099511627776, ''),
    'TALLY_PCSAMP_HWBUF': ('SIZE', '0', 1099511627776, ''),
    'TALLY_PCSAMP_START': ('BOOL', '1', 0, ''),
    'TALLY_PCSAMP_MAX_PCS': ('INT', '4096', 16777216, ''),
    'TALLY_PCSAMP_DRAIN_MS': ('INT', '0', 3600000, ''),
    'TALLY_PCSAMP_WORKER_SLEEP_MS': ('INT', '0', 3600000, ''),
    'TALLY_PCSAMP_SHARE': ('CHOICE', 'one', 0, 'one,all'),
    'TALLY_SAMPLING': ('STR', 'off', 0, ''),
    'TALLY_SAMPLING_SOURCE': ('CHOICE', 'auto', 0, 'auto,perf,timer'),
    'TALLY_SAMPLING_EVENT': ('STR', '', 0, ''),
    'TALLY_SAMPLING_STACK': ('SIZE', '16k', 1048576, ''),
    'TALLY_SAMPLING_BUFFER': ('SIZE', '1M', 1073741824, ''),
    'TALLY_PYTHON': ('STR', '', 0, ''),
    'TALLY_OTF2_DUMP': ('STR', '', 0, ''),
    'TALLY_DEBUG': ('BOOL', '0', 0, ''),
    'TALLY_SCHEMA': ('STR', '', 0, ''),
    'TALLY_PROBE_TIMEOUT': ('INT', '120', 86400, ''),
    'TALLY_NO_PROBE': ('BOOL', '0', 0, ''),
    'TALLY_CUPTI': ('CHOICE', 'tally', 0, 'tally,app'),
    'TALLY_CUDA_CACHE': ('CHOICE', 'flush', 0, 'none,flush'),
    'TALLY_CUDA_GRANULARITY': ('CHOICE', 'kernel', 0, 'kernel,region'),
    'TALLY_CUDA_REGION_DEPTH': ('INT', '0', 999999, ''),
    'TALLY_CUDA_SCOPE': ('CHOICE', 'process', 0, 'process,thread'),
    'TALLY_CUDA_START': ('CHOICE', 'inline', 0, 'inline,background'),
    'TALLY_PERF_MAX_COUNTERS': ('INT', '0', 999999, ''),
    'TALLY_PERF_RDPMC': ('BOOL', '1', 0, ''),
    'TALLY_PRESETS_GENERIC': ('BOOL', '0', 0, ''),
    'TALLY_NVML_LIB': ('STR', '', 0, ''),
    'TALLY_CUPTI_LIB': ('STR', '', 0, ''),
    'TALLY_CUDA_REPLAY': ('CHOICE', '', 0, 'kernel'),
    'TALLY_CUDA_RANGES': ('INT', '0', 65536, ''),
    'TALLY_CUDA_NO_CACHE': ('BOOL', '0', 0, ''),
    'TALLY_CUDA_TIMING': ('BOOL', '0', 0, ''),
    'TALLY_QUIET': ('BOOL', '0', 0, ''),
    'PAPI_NO_WARNING': ('BOOL', '0', 0, ''),
    'PAPI_EVENTS': ('LIST', '', 0, ''),
}

def env_raw(name):
    """Another program's variable (PATH, ...): its value or None."""
    return os.environ.get(name)


def raw(name):
    """The value of a row's variable; None when unset or empty."""
    ROWS[name]
    v = os.environ.get(name)
    return v if v else None


def parse_bool(s):
    """1 for yes, 0 for no, -1 for neither (1/0 yes/no on/off true/false, any case)."""
    s = (s or '').lower()
    return 1 if s in ('1', 'yes', 'on', 'true') else 0 if s in ('0', 'no', 'off', 'false') else -1


def _unit(u):
    if u.lower() == 'b':
        return 1
    if u and u[0].lower() in 'kmg' and u[1:].lower() in ('', 'b', 'ib'):
        return 1 << (10 * ('kmg'.index(u[0].lower()) + 1))
    return 0


def parse_num(s, size, mx):
    """The number s spells (decimal; sizes also 0x hex and k/M/G suffixes), None if malformed."""
    if not s or not '0' <= s[0] <= '9':
        return None
    hexa = size and s[:2].lower() == '0x'
    digits = '0123456789abcdefABCDEF' if hexa else '0123456789'
    body = s[2:] if hexa else s
    n = 0
    while n < len(body) and body[n] in digits:
        n += 1
    if n == 0:
        return None
    x, unit = int(body[:n], 16 if hexa else 10), 1
    if body[n:]:
        unit = _unit(body[n:]) if size else 0
        if not unit:
            return None
    x *= unit
    return x if x <= mx else None


def quote(v, limit=160):
    """The value as the C parser shows it: control bytes escaped, long values cut."""
    out, n = [], 0
    for c in v:
        k = {'\n': '\\n', '\t': '\\t', '\r': '\\r'}.get(c)
        if k is None:
            k = '\\x%02x' % ord(c) if ord(c) < 0x20 or ord(c) == 0x7f else c
        if n + len(k.encode()) + 4 > limit:
            out.append('...')
            break
        out.append(k)
        n += len(k.encode())
    return ''.join(out)


def check(name, v):
    """None when v is well-formed for the row (or empty), else the sentence."""
    kind, default, mx, words = ROWS[name]
    if not v:
        return None
    q = quote(v)
    if kind == 'BOOL' and parse_bool(v) < 0:
        return "%s='%s' is not a valid yes/no value (1/0, yes/no, on/off, true/false)" % (name, q)
    if kind == 'INT' and parse_num(v, False, mx) is None:
        return "%s='%s' is not a valid whole number (0..%d)" % (name, q, mx)
    if kind == 'SIZE' and parse_num(v, True, mx) is None:
        return ("%s='%s' is not a valid size (bytes, with an optional k, M or G suffix; "
                "at most %d)" % (name, q, mx))
    if kind == 'CHOICE' and v.lower() not in [w.lower() for w in words.split(',')]:
        return "%s='%s' is not one of %s" % (name, q, words or '(none)')
    return None


_said = set()


def _say(name, why):
    """A malformed value, said once per process, as the library says it."""
    if name not in _said:
        _said.add(name)
        sys.stderr.write("tally: %s; using the default '%s'\n" % (why, ROWS[name][1]))


def _value(name):
    v = raw(name)
    why = check(name, v)
    if why:
        _say(name, why)
        return ROWS[name][1]
    return v if v is not None else ROWS[name][1]


def flag(name):
    """A yes/no row's value (a bad value: said once, the default)."""
    return parse_bool(_value(name)) == 1


def count(name):
    """A whole-number or size row's value (a bad value: said once, the default)."""
    kind, default, mx, words = ROWS[name]
    x = parse_num(_value(name), kind == 'SIZE', mx)
    return x if x is not None else 0


def text(name):
    """A text, list or choice row's value (a choice in the table's spelling)."""
    kind, default, mx, words = ROWS[name]
    v = _value(name)
    if kind == 'CHOICE' and v:
        return next(w for w in words.split(',') if w.lower() == v.lower())
    return v
