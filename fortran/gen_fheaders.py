#!/usr/bin/env python3
"""Generate the Fortran constant headers from the C headers.

usage: gen_fheaders.py OUT_DIR papi.h papiStdEventDefs.h [more C headers]

Writes OUT_DIR/fpapi.h (C preprocessor #defines, for .F files), f77papi.h
(INTEGER + PARAMETER statements), f90papi.h (INTEGER, PARAMETER ::) and
papi_bindc.inc (the bind(C) interfaces of module papi: every function of
fbind.BIND, its prototype read from the headers; not written when the
headers declare no function).
Every object-like macro and enumerator named PAPI_* or PAPIF_* whose value
is an integer constant expression is written, in header order, as the
value a 32-bit Fortran INTEGER holds: codes with bit 31 set (presets,
PAPI_DOM_HWSPEC) become negative, like the C `int` they are passed as.
A header's `#include "x.h"` of a file beside it (papi.h's papi_types.h) is
read in its place, as the preprocessor does; other includes are passed over.
"""
import os
import re
import sys

import fbind

BANNER = "generated from papi.h and papiStdEventDefs.h by\n" \
         "fortran/gen_fheaders.py - do not edit"
NAME = re.compile(r"PAPIF?_[A-Z0-9_]+$")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def to_python(expr):
    """C integer constant expression -> Python expression (or None)."""
    e = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expr)
    e = re.sub(r"\(\s*(?:unsigned\s+)?int\s*\)\s*(0[xX][0-9a-fA-F]+|\d+)", r"_i32(\1)", e)
    # anything else (other casts, strings, logic, attributes) is not a
    # constant the Fortran headers carry
    if re.search(r"[^\w\s()|&^~<>+\-*/%,]", e) or "&&" in e or "||" in e or re.search(r"\(\s*int\s*\)", e):
        return None
    return e.replace("/", "//")


def read_header(path):
    """The text of a C header with its includes of files beside it in place."""
    here = os.path.dirname(os.path.abspath(path))

    def inline(m):
        name = os.path.join(here, m.group(1))
        return read_header(name) if os.path.isfile(name) else m.group(0)
    with open(path, encoding="utf-8") as f:
        return re.sub(r'^[ \t]*#[ \t]*include[ \t]+"([^"/]+)"[^\n]*$', inline, f.read(), flags=re.M)


def wrap32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


class Collector:
    def __init__(self):
        self.order, self.exprs, self.funcs, self.values = [], {}, {}, {}

    def add_header(self, text):
        text = strip_comments(re.sub(r"\\\n", " ", text))
        for m in re.finditer(r"^\s*#\s*define\s+(\w+)\(([^)]*)\)\s*(.*)$", text, re.M):
            py = to_python(m.group(3))
            params = [p.strip() for p in m.group(2).split(",")]
            if py is not None and all(re.match(r"\w+$", p) for p in params):
                self.funcs[m.group(1)] = (params, py)
        for m in re.finditer(r"^\s*#\s*define\s+(\w+)(?:[ \t]+(.*))?$", text, re.M):
            self.define(m.group(1), (m.group(2) or "").strip())
        for m in re.finditer(r"\benum\s*\w*\s*\{([^}]*)\}", text):
            prev = None
            for item in filter(None, (x.strip() for x in m.group(1).split(","))):
                name, _, expr = (p.strip() for p in item.partition("="))
                self.define(name, expr if expr else ("0" if prev is None else f"({prev}) + 1"))
                prev = name

    def define(self, name, expr):
        if name in self.exprs or not expr:
            return
        self.exprs[name] = expr
        self.order.append(name)

    def value(self, name, depth=0):
        if name in self.values:
            return self.values[name]
        if depth > 50 or name not in self.exprs:
            return None
        py = to_python(self.exprs[name])
        if py is None:
            self.values[name] = None
            return None
        env = {"_i32": lambda v: wrap32(v)}
        for ident in set(re.findall(r"\b[A-Za-z_]\w*", py)) - {"_i32"}:
            if ident in self.funcs:
                params, body = self.funcs[ident]
                env[ident] = eval(f"lambda {', '.join(params)}: {body}", {"_i32": env["_i32"]})
            else:
                v = self.value(ident, depth + 1)
                if v is None:
                    self.values[name] = None
                    return None
                env[ident] = v
        try:
            v = eval(py, {"__builtins__": {}}, env)
        except Exception:
            v = None
        if isinstance(v, int):
            if not -(1 << 31) <= v < (1 << 32):
                raise SystemExit(f"{name} = {v} does not fit a 32-bit Fortran INTEGER")
            v = wrap32(v)
        else:
            v = None
        self.values[name] = v
        return v

    def constants(self):
        out = []
        for name in self.order:
            if NAME.match(name) and not name.endswith("_idx"):
                v = self.value(name)
                if v is not None:
                    out.append((name, v))
        return out


def flit(v):
    """A Fortran literal for v: -2**31 has no literal of default kind."""
    if v == -(1 << 31):
        return "(-2147483647-1)"
    return f"({v})" if v < 0 else str(v)


def write(out_dir, consts):
    cpp = ["/* " + BANNER.replace("\n", "\n * ") + " */\n", "#ifndef TALLY_FPAPI_H\n#define TALLY_FPAPI_H\n\n"]
    cpp += [f"#define {n} {flit(v)}\n" for n, v in consts]
    cpp.append("\n/* PAPI 3.5 form PAPIF_perror(code, destination, check), as in C. */\n"
               "#ifdef TALLY_PAPI35_COMPAT\n")
    cpp += [f"#define {s} TALLYF_papi35_perror\n" for s in ("PAPIF_perror", "PAPIF_PERROR", "papif_perror")]
    cpp.append("#endif\n\n#endif\n")
    f77 = ["!     " + BANNER.replace("\n", "\n!     ") + "\n"]
    for n, v in consts:
        f77.append(f"      INTEGER {n}\n      PARAMETER ({n}={flit(v)})\n")
    f90 = ["!     " + BANNER.replace("\n", "\n!     ") + "\n"]
    f90 += [f"      INTEGER, PARAMETER :: {n} = {flit(v)}\n" for n, v in consts]
    for fname, lines in (("fpapi.h", cpp), ("f77papi.h", f77), ("f90papi.h", f90)):
        text = "".join(lines)
        for ln in text.splitlines():
            # fixed form: statements must end by column 72 (directives and
            # comments are not statements)
            if len(ln) > 72 and not ln.startswith(("#", "/*", "!")):
                raise SystemExit(f"{fname}: line longer than 72 columns: {ln.strip()}")
        with open(os.path.join(out_dir, fname), "w", encoding="utf-8") as f:
            f.write(text)


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    col = Collector()
    texts = []
    for path in argv[2:]:
        texts.append(read_header(path))
        col.add_header(texts[-1])
    consts = col.constants()
    if not consts:
        raise SystemExit("no constants found")
    write(argv[1], consts)
    protos = fbind.prototypes(strip_comments("\n".join(texts)))
    if not protos:  # headers of constants alone
        return
    with open(os.path.join(argv[1], "papi_bindc.inc"), "w", encoding="utf-8") as f:
        f.write(fbind.interfaces(protos, fbind.BIND))


if __name__ == "__main__":
    main(sys.argv)
