#!/usr/bin/env python3
"""Generate Tally's Fortran wrappers from papif_spec.txt.

usage: gen_papif.py SPEC OUT_C OUT_CUSTOM_H OUT_INTERFACES_INC

OUT_C               one static implementation per routine and the four
                    external names gfortran, ifort, flang and xlf may call it
                    by (lower, lower_, lower__, UPPER), all aliases of it
OUT_CUSTOM_H        prototypes of the hand-written tly_fc_* implementations
OUT_INTERFACES_INC  explicit interfaces for the Fortran module `papi`
"""
import re
import sys

BANNER_C = "/* generated from fortran/papif_spec.txt by gen_papif.py - do not edit */\n"
BANNER_F = "! generated from fortran/papif_spec.txt by gen_papif.py - do not edit\n"
C_TYPES = {"int": "int *", "int[]": "int *", "ll": "long long *", "ll[]": "long long *",
           "float": "float *", "str_in": "const char *", "str_out": "char *",
           "func": "int (*%s)(void)"}
F_TYPES = {"int": "integer(c_int) :: %s", "int[]": "integer(c_int) :: %s(*)",
           "ll": "integer(c_long_long) :: %s", "ll[]": "integer(c_long_long) :: %s(*)",
           "float": "real(c_float) :: %s", "str_in": "character(len=*), intent(in) :: %s",
           "str_out": "character(len=*), intent(out) :: %s"}
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


class Routine:
    def __init__(self, name, args, body, line):
        self.name, self.args, self.body, self.line = name, args, body, line

    @property
    def stem(self):  # PAPIF_accum -> accum
        return self.name.split("_", 1)[1]

    @property
    def internal(self):  # TALLYF_region_begin -> region_begin; PAPIF_x -> x
        return self.name.split("_", 1)[0].lower() + "_" + self.stem

    def symbols(self):
        low = self.name.lower()
        return [low, low + "_", low + "__", self.name.upper()]

    def strings(self):
        return [n for t, n in self.args if t.startswith("str_")]


def parse_args(text, where):
    args = []
    for a in filter(None, (x.strip() for x in text.split(","))):
        parts = a.split()
        if len(parts) != 2 or parts[0] not in C_TYPES or not IDENT.match(parts[1]):
            raise SystemExit(f"{where}: bad argument {a!r}")
        if parts[1] in [n for _, n in args]:
            raise SystemExit(f"{where}: duplicate argument {parts[1]}")
        args.append((parts[0], parts[1]))
    return args


def parse(path):
    routines = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            where = f"{path}:{lineno}"
            fields = [x.strip() for x in line.split("|")]
            if len(fields) != 3:
                raise SystemExit(f"{where}: expected NAME | ARGUMENTS | BODY")
            name, args, body = fields
            if not re.match(r"(PAPIF|TALLYF)_[a-z0-9_]+$", name):
                raise SystemExit(f"{where}: name must be PAPIF_<lower> or TALLYF_<lower>")
            if any(r.name.lower() == name.lower() for r in routines):
                raise SystemExit(f"{where}: duplicate routine {name}")
            if not body:
                raise SystemExit(f"{where}: empty body")
            routines.append(Routine(name, parse_args(args, where), body, lineno))
    if not routines:
        raise SystemExit(f"{path}: no routines")
    return routines


def c_params(r):
    ps = []
    for t, n in r.args:
        ps.append(C_TYPES[t] % n if t == "func" else C_TYPES[t] + n)
    ps += [f"size_t {n}_len" for n in r.strings()]
    return ", ".join(ps) if ps else "void"


def c_call_args(r):
    return ", ".join([n for _, n in r.args] + [f"{n}_len" for n in r.strings()])


def c_body(r):
    out = []
    has_check = any(n == "check" for _, n in r.args)
    for t, n in r.args:
        if t == "str_in":
            out.append(f"\tchar {n}_c[TLY_FSTR_CAP];\n")
        elif t == "str_out":
            out.append(f"\tchar {n}_c[TLY_FSTR_CAP] = \"\";\n")
    if out:
        out.append("\n")
    for t, n in r.args:
        if t != "str_in":
            continue
        if has_check:
            out.append(f"\tif (tly_fstr_in({n}_c, sizeof {n}_c, {n}, {n}_len) != 0) {{\n"
                       f"\t\t*check = PAPI_EINVAL;\n\t\treturn;\n\t}}\n")
        else:
            out.append(f"\t(void)tly_fstr_in({n}_c, sizeof {n}_c, {n}, {n}_len);\n")
    out.append(f"\t{r.body}\n")
    outs = [n for t, n in r.args if t == "str_out"]
    if outs:
        ind = "\t"
        if has_check:
            out.append("\tif (*check == PAPI_OK) {\n")
            ind = "\t\t"
        for n in outs:
            out.append(f"{ind}tly_fstr_out({n}, {n}_len, {n}_c);\n")
        if has_check:
            out.append("\t}\n")
    return "".join(out)


def gen_c(routines, custom_h):
    out = [BANNER_C, "#include \"papi.h\"\n#include \"tally.h\"\n\n#include <stddef.h>\n\n#include \"papif_support.h\"\n",
           f"#include \"{custom_h}\"\n\n"]
    for r in routines:
        impl = f"tly_fw_{r.internal}"
        out.append(f"/* {r.name} (papif_spec.txt line {r.line}) */\n")
        out.append(f"static void {impl}({c_params(r)})\n{{\n")
        if r.body == "custom":
            out.append(f"\ttly_fc_{r.internal}({c_call_args(r)});\n")
        else:
            out.append(c_body(r))
        out.append("}\n")
        for s in r.symbols():
            out.append(f"PAPI_EXPORT void {s}({c_params(r)}) __attribute__((alias(\"{impl}\")));\n")
        out.append("\n")
    return "".join(out)


def gen_custom_h(routines):
    out = [BANNER_C, "#ifndef TALLY_PAPIF_CUSTOM_H\n#define TALLY_PAPIF_CUSTOM_H\n\n",
           "#include <stddef.h>\n\n"]
    for r in routines:
        if r.body == "custom":
            out.append(f"void tly_fc_{r.internal}({c_params(r)});\n")
    out.append("\n#endif\n")
    return "".join(out)


def f_decl(t, n):
    if t == "func":
        return ("interface\n"
                f"  function {n}() result(id)\n    import :: c_int\n"
                "    integer(c_int) :: id\n"
                f"  end function {n}\nend interface")
    return F_TYPES[t] % n


def gen_interfaces(routines):
    out = [BANNER_F, "interface\n"]
    for r in routines:
        names = ", ".join(n for _, n in r.args)
        out.append(f"  subroutine {r.name}({names})\n")
        kinds = sorted({"c_int" if t in ("int", "int[]", "func") else
                        "c_long_long" if t.startswith("ll") else "c_float"
                        for t, _ in r.args if not t.startswith("str_")})
        if kinds:
            out.append(f"    import :: {', '.join(kinds)}\n")
        for t, n in r.args:
            for ln in f_decl(t, n).split("\n"):
                out.append(f"    {ln}\n")
        out.append(f"  end subroutine {r.name}\n")
    out.append("end interface\n")
    return "".join(out)


def main(argv):
    if len(argv) != 5:
        raise SystemExit(__doc__)
    routines = parse(argv[1])
    custom_h = argv[3].replace("\\", "/").rsplit("/", 1)[-1]
    for path, text in ((argv[2], gen_c(routines, custom_h)), (argv[3], gen_custom_h(routines)),
                       (argv[4], gen_interfaces(routines))):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main(sys.argv)
