#!/usr/bin/env python3
"""Tests of fortran/gen_fheaders.py (with fbind.py) and fortran/gen_papif.py
on small inputs whose right output is known (table rows carry their line),
and of the module's bind(C) interfaces generated from the real papi.h.
usage: test_generators.py FORTRAN_SOURCE_DIR"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done  # noqa: E402


HEADER = """
#define PAPI_A 0x80000000
#define PAPI_B ((int)0xC0000000)
#define PAPI_MK(a, b) (((a) << 8) | (b))
#define PAPI_C PAPI_MK(1, 2)
#define PAPI_D (PAPI_C & 0xff00) /* comment */
#define PAPI_NEG -21
#define PAPI_LONG_EXPR \\
	(PAPI_NEG + 1)
#define PAPI_STR "text"
#define PAPI_X_idx 3
#define OTHER_NAME 4
#define PAPI_IS(x) ((x) && 1)
enum { PAPI_E0, PAPI_E1 = 5, PAPI_E2 };
"""
# name, fortran value text, source line of the row
EXPECT = [
    ("PAPI_A", "(-2147483647-1)", __import__("inspect").currentframe().f_lineno),
    ("PAPI_B", "(-1073741824)", __import__("inspect").currentframe().f_lineno),
    ("PAPI_C", "258", __import__("inspect").currentframe().f_lineno),
    ("PAPI_D", "256", __import__("inspect").currentframe().f_lineno),
    ("PAPI_NEG", "(-21)", __import__("inspect").currentframe().f_lineno),
    ("PAPI_LONG_EXPR", "(-20)", __import__("inspect").currentframe().f_lineno),
    ("PAPI_E0", "0", __import__("inspect").currentframe().f_lineno),
    ("PAPI_E1", "5", __import__("inspect").currentframe().f_lineno),
    ("PAPI_E2", "6", __import__("inspect").currentframe().f_lineno),
]
ABSENT = ["PAPI_STR", "PAPI_X_idx", "OTHER_NAME", "PAPI_MK", "PAPI_IS"]

SPEC = """
# comment
PAPIF_demo | int EventSet, str_in name, str_out out, ll[] values, int check | *check = demo(*EventSet, name_c, out_c, values);
TALLYF_other | float x | custom
"""


def gen(cmd):
    return subprocess.run([sys.executable] + cmd, capture_output=True, text=True)


def test_fheaders(src, tmp):
    h = os.path.join(tmp, "h.h")
    open(h, "w").write(HEADER)
    r = gen([os.path.join(src, "gen_fheaders.py"), tmp, h])
    check(r.returncode == 0, f"gen_fheaders failed: {r.stderr}", 0)
    f90 = open(os.path.join(tmp, "f90papi.h")).read()
    f77 = open(os.path.join(tmp, "f77papi.h")).read()
    cpp = open(os.path.join(tmp, "fpapi.h")).read()
    for name, val, line in EXPECT:
        check(f"      INTEGER, PARAMETER :: {name} = {val}\n" in f90, f"f90papi.h {name} = {val}", line)
        check(f"      PARAMETER ({name}={val})\n" in f77, f"f77papi.h {name}={val}", line)
        check(f"#define {name} {val}\n" in cpp, f"fpapi.h {name} {val}", line)
    for name in ABSENT:
        check(f" {name} " not in f90 and f"({name}=" not in f77, f"{name} must not be written", 0)
    check("do not edit" in f90 and "do not edit" in f77 and "do not edit" in cpp, "banner", 0)
    big = os.path.join(tmp, "big.h")
    open(big, "w").write("#define PAPI_BIG 0x100000000\n")
    check(gen([os.path.join(src, "gen_fheaders.py"), tmp, big]).returncode != 0,
          "a value beyond 32 bits is an error", 0)


def test_papif(src, tmp):
    spec = os.path.join(tmp, "spec.txt")
    open(spec, "w").write(SPEC)
    outs = [os.path.join(tmp, n) for n in ("w.c", "custom.h", "i.inc")]
    r = gen([os.path.join(src, "gen_papif.py"), spec] + outs)
    check(r.returncode == 0, f"gen_papif failed: {r.stderr}", 0)
    c, h, inc = (open(p).read() for p in outs)
    params = ("int *EventSet, const char *name, char *out, long long *values, int *check, "
              "size_t name_len, size_t out_len")
    check(f"static void tly_fw_papif_demo({params})" in c, "implementation prototype", 0)
    for s in ("papif_demo", "papif_demo_", "papif_demo__", "PAPIF_DEMO"):
        check(f'PAPI_EXPORT void {s}({params}) __attribute__((alias("tly_fw_papif_demo")));' in c,
              f"alias {s}", 0)
    check("tly_fstr_in(name_c, sizeof name_c, name, name_len)" in c, "input string converted", 0)
    check("tly_fstr_out(out, out_len, out_c);" in c, "output string copied out", 0)
    check("tly_fc_tallyf_other(x);" in c and "void tly_fc_tallyf_other(float *x);" in h, "custom routine", 0)
    check("TALLYF_OTHER(float *x)" in c, "TALLYF upper-case name", 0)
    check("subroutine PAPIF_demo(EventSet, name, out, values, check)" in inc
          and "character(len=*), intent(out) :: out" in inc
          and "integer(c_long_long) :: values(*)" in inc, "module interface", 0)
    for bad in ("PAPIF_x | double y | *y = 0;", "PAPIF_x | int a, int a | ;",
                "PAPIF_x | int a", "papif_lower | int a | ;"):
        open(spec, "w").write(bad + "\n")
        check(gen([os.path.join(src, "gen_papif.py"), spec] + outs).returncode != 0,
              f"bad spec rejected: {bad}", 0)


PROTOS = """
PAPI_EXPORT int PAPI_f(int EventSet, long long *values, const char *Name);
PAPI_EXPORT long long PAPI_t(void);
PAPI_EXPORT void PAPI_v(void);
PAPI_EXPORT char *PAPI_s(int code, char *out, int *n);
PAPI_EXPORT unsigned long PAPI_id(void);
PAPI_EXPORT double PAPI_bad(void);
"""
BIND_WANT = [
    ("function PAPI_f(eventset, values, name) bind(C, name='PAPI_f') result(rc)", "int, ll[], str in"),
    ("      import :: c_int, c_long_long, c_char\n", "kinds imported once each"),
    ("      integer(c_int), value :: eventset\n", "int by value"),
    ("      integer(c_long_long) :: values(*)\n", "long long * is an array"),
    ("      character(kind=c_char), intent(in) :: name(*)\n", "const char * is a C string in"),
    ("function PAPI_t() bind(C, name='PAPI_t') result(t)\n      import :: c_long_long\n"
     "      integer(c_long_long) :: t\n", "long long result"),
    ("    subroutine PAPI_v() bind(C, name='PAPI_v')\n    end subroutine PAPI_v\n", "void: subroutine"),
    ("      character(kind=c_char) :: out(*)\n      integer(c_int) :: n\n      type(c_ptr) :: p\n",
     "char * out, int * by reference, char * result a pointer"),
    ("      integer(c_long) :: id\n", "unsigned long result"),
]


def test_fbind(src, tmp):
    sys.path.insert(0, src)
    import fbind
    protos = fbind.prototypes(PROTOS)
    inc = fbind.interfaces(protos, ["PAPI_f", "PAPI_t", "PAPI_v", "PAPI_s", "PAPI_id"])
    for text, what in BIND_WANT:
        check(text in inc, f"bind(C): {what}", 0)
    for names in (["PAPI_bad"], ["PAPI_missing"]):
        try:
            fbind.interfaces(protos, names)
            check(False, f"{names[0]} must be an error", 0)
        except SystemExit:
            pass
    # the real headers: every bound function, as the module had it by hand
    inc_dir = os.path.join(src, "..", "src", "include")
    head = os.path.join(tmp, "std.h")
    open(head, "w").write("#define PAPI_STD 1\n")
    r = gen([os.path.join(src, "gen_fheaders.py"), tmp, os.path.join(inc_dir, "papi.h"), head,
             os.path.join(inc_dir, "tally.h")])
    check(r.returncode == 0, f"gen_fheaders on papi.h failed: {r.stderr}", 0)
    real = open(os.path.join(tmp, "papi_bindc.inc")).read()
    check(real.count("bind(C, name=") == len(fbind.BIND), "one interface per bound function", 0)
    for text in ("function PAPI_read(eventset, values) bind(C, name='PAPI_read') result(rc)",
                 "function PAPI_event_name_to_code(in, out)",
                 "function PAPI_strerror(errorcode) bind(C, name='PAPI_strerror') result(p)",
                 "function tally_region_begin(name) bind(C, name='tally_region_begin') result(rc)",
                 "function PAPI_thread_id() bind(C, name='PAPI_thread_id') result(id)"):
        check(text in real, f"papi_bindc.inc: {text}", 0)


def main(src):
    with tempfile.TemporaryDirectory() as tmp:
        test_fheaders(src, tmp)
        test_papif(src, tmp)
        test_fbind(src, tmp)
    return done("test_generators")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
