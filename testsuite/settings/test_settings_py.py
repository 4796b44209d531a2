#!/usr/bin/env python3
"""test_settings_py.py PKGDIR - the tally package's settings module
(analysis/tally/settings.py, generated from settings.def) reads with the C
grammar and says a bad value in the C parser's sentence, once, on one
line, then uses the default: TALLY_DEBUG=0 is off, a bad
TALLY_PROBE_TIMEOUT is one line and 120.  Each case runs in a fresh
interpreter (-I: nothing of the caller's path) with only its variable set."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done  # noqa: E402

PKG = sys.argv[1]
CASES = [   # (variable, value, call, printed value, the stderr line or "")
    ("TALLY_DEBUG", "0", "flag", "False", ""),
    ("TALLY_DEBUG", "", "flag", "False", ""),
    ("TALLY_DEBUG", "On", "flag", "True", ""),
    ("TALLY_DEBUG", "y", "flag", "False",
     "tally: TALLY_DEBUG='y' is not a valid yes/no value (1/0, yes/no, on/off, true/false); using the default '0'"),
    ("TALLY_NO_PROBE", "TRUE", "flag", "True", ""),
    ("TALLY_PROBE_TIMEOUT", "20", "count", "20", ""),
    ("TALLY_PROBE_TIMEOUT", "1.5", "count", "120",
     "tally: TALLY_PROBE_TIMEOUT='1.5' is not a valid whole number (0..86400); using the default '120'"),
    ("TALLY_PROBE_TIMEOUT", "86401", "count", "120",
     "tally: TALLY_PROBE_TIMEOUT='86401' is not a valid whole number (0..86400); using the default '120'"),
    ("TALLY_PROBE_TIMEOUT", "a\nb", "count", "120",
     "tally: TALLY_PROBE_TIMEOUT='a\\nb' is not a valid whole number (0..86400); using the default '120'"),
    ("TALLY_TRACE_BUFFER", "4KiB", "count", "4096", ""),
    ("TALLY_TRACE_BUFFER", "0x10k", "count", "16384", ""),
    ("TALLY_TRACE_BUFFER", "2G", "count", "4194304",
     "tally: TALLY_TRACE_BUFFER='2G' is not a valid size (bytes, with an optional k, M or G suffix; "
     "at most 1073741824); using the default '4M'"),
    ("TALLY_CHILDREN", "MEASURE", "text", "measure", ""),
    ("TALLY_SCHEMA", "/x/schema.def", "text", "/x/schema.def", ""),
]


def main():
    for var, value, call, want, line in CASES:
        env = {"PATH": "/usr/bin:/bin", var: value}
        code = ("import sys; sys.path.insert(0, sys.argv[1]); from tally import settings as s; "
                f"print(s.{call}({var!r})); print(s.{call}({var!r}))")
        p = subprocess.run([sys.executable, "-I", "-c", code, PKG], env=env, capture_output=True, text=True,
                           check=False)
        out = p.stdout.split("\n")
        check(p.returncode == 0 and out[:2] == [want, want], f"{var}={value!r}: {call} gives {want}: {out} {p.stderr}")
        check(p.stderr == (line + "\n" if line else ""), f"{var}={value!r}: stderr {p.stderr!r}, want {line!r} once")
    return done("settings.py")


sys.exit(main())
