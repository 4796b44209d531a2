#!/usr/bin/env python3
"""Generate papiStdEventDefs.h and preset_defs.c from presets.csv.

usage: gen_presets.py presets.csv OUT_HEADER OUT_C
The CSV order is the preset index order (PAPI_<name>_idx); codes are
PAPI_PRESET_MASK | index.  Categories name PAPI_PRESET_ENUM_* suffixes.
"""
import re
import sys

BANNER = "/* generated from src/presets/presets.csv by gen_presets.py - do not edit */\n"
CATEGORIES = ("MSC", "INS", "IDL", "BR", "CND", "MEM", "CACH", "L1", "L2", "L3", "TLB", "FP")


def parse(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split(";", 3)
            if len(parts) != 4:
                raise SystemExit(f"{path}:{lineno}: expected 4 ';'-separated fields")
            sym, cats, short, long_ = (p.strip() for p in parts)
            if not sym.startswith("PAPI_"):
                raise SystemExit(f"{path}:{lineno}: symbol must start with PAPI_")
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", sym):
                raise SystemExit(f"{path}:{lineno}: symbol is not a C identifier: {sym!r}")
            for c in cats.split("|"):
                if c not in CATEGORIES:
                    raise SystemExit(f"{path}:{lineno}: unknown category {c!r}")
            if len(short) >= 64:
                raise SystemExit(f"{path}:{lineno}: short description longer than 63")
            if len(long_) >= 1024:  # PAPI_event_info_t.long_descr is PAPI_HUGE_STR_LEN
                raise SystemExit(f"{path}:{lineno}: long description longer than 1023")
            if any(r[0] == sym for r in rows):
                raise SystemExit(f"{path}:{lineno}: duplicate symbol {sym}")
            rows.append((sym, cats.split("|"), short, long_))
    if not rows:
        raise SystemExit(f"{path}: no presets")
    return rows


def cstr(s):
    # '?' is escaped too: the library builds as strict C11, where "??x" is a trigraph
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("?", "\\?") + '"'


def header(rows):
    out = [BANNER, "#ifndef TALLY_PAPISTDEVENTDEFS_H\n#define TALLY_PAPISTDEVENTDEFS_H\n\n",
           "#ifndef PAPI_PRESET_MASK\n#define PAPI_PRESET_MASK ((int)0x80000000)\n#endif\n\n",
           "enum {\n"]
    for i, r in enumerate(rows):
        out.append(f"\t{r[0]}_idx = {i},\n")
    out.append("\tPAPI_END_idx\n};\n\n")
    for r in rows:
        out.append(f"#define {r[0]} ({r[0]}_idx | PAPI_PRESET_MASK)\n")
    out.append("#define PAPI_END (PAPI_END_idx | PAPI_PRESET_MASK)\n\n#endif\n")
    return "".join(out)


def table(rows):
    out = [BANNER, '#include "core/preset_types.h"\n\n',
           "const struct tly_preset_def tly_preset_defs[PAPI_END_idx] = {\n"]
    for sym, cats, short, long_ in rows:
        mask = " | ".join(f"TLY_PCAT({c})" for c in cats)
        out.append(f"\t{{{cstr(sym)}, {cstr(short)}, {cstr(long_)}, {mask}}},\n")
    out.append("};\n")
    return "".join(out)


def main(argv):
    if len(argv) != 4:
        raise SystemExit(__doc__)
    rows = parse(argv[1])
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(header(rows))
    with open(argv[3], "w", encoding="utf-8") as f:
        f.write(table(rows))


if __name__ == "__main__":
    main(sys.argv)
