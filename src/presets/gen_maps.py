#!/usr/bin/env python3
"""Embed the preset map files into a C source file.

usage: gen_maps.py OUT.c MAP1.csv [MAP2.csv ...]

Each map becomes one {"maps/<name>.csv", "<text>"} entry of
tly_preset_maps[] (src/core/preset_maps.h), in file-name order; the runtime
parses the text with the parser PAPI_encode_events uses.  This script only
checks what would make the embedding wrong or the build fail late: files
must be readable ASCII text, every line a comment, a CPU line or a PRESET
line, and PRESET lines must follow a CPU line.  Errors name file:line and
exit with status 1; no output file is written then.
"""
import os
import sys

BANNER = "/* generated from the preset maps (src/presets/maps) by gen_maps.py - do not edit */\n"


def check(path, text):
    seen_cpu = False
    for lineno, raw in enumerate(text.split("\n"), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        head = line.split(",", 1)[0].strip()
        if head == "CPU":
            if len(line.split(",")) < 2 or not line.split(",")[1].strip():
                raise SystemExit(f"{path}:{lineno}: CPU line names no PMU")
            seen_cpu = True
        elif head == "PRESET":
            if not seen_cpu:
                raise SystemExit(f"{path}:{lineno}: PRESET line before any CPU line")
            if len(line.split(",")) < 4:
                raise SystemExit(f"{path}:{lineno}: PRESET line needs a symbol, a kind and natives")
        else:
            raise SystemExit(f"{path}:{lineno}: line is neither CPU nor PRESET: {head!r}")
        if len(raw) >= 1024:
            raise SystemExit(f"{path}:{lineno}: line longer than 1023 characters")


def load(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise SystemExit(f"{path}: cannot read: {e.strerror}")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise SystemExit(f"{path}:{line}: not ASCII text")
    if "\0" in text:
        raise SystemExit(f"{path}: contains a NUL byte")
    check(path, text)
    return text


def cstr_lines(text):
    """The text as adjacent C string literals, one per line."""
    out = []
    for line in text.splitlines(keepends=True):
        s = line.replace("\\", "\\\\").replace('"', '\\"').replace("?", "\\?")
        s = s.replace("\t", "\\t").replace("\r", "\\r").replace("\n", "\\n")
        out.append(f'\t  "{s}"\n')
    return "".join(out) if out else '\t  ""\n'


def generate(paths):
    names = {}
    for p in paths:
        base = os.path.basename(p)
        if not base.endswith(".csv"):
            raise SystemExit(f"{p}: map files must be named <family>.csv")
        if base in names:
            raise SystemExit(f"{p}: a map named {base} was already given ({names[base]})")
        names[base] = p
    out = [BANNER, '#include "core/preset_maps.h"\n\n',
           "const struct tly_preset_map tly_preset_maps[] = {\n"]
    for base in sorted(names):
        text = load(names[base])
        out.append(f'\t{{"maps/{base}",\n{cstr_lines(text)}\t}},\n')
    out.append('\t{0, 0}\n};\n\n')
    out.append(f"const int tly_num_preset_maps = {len(names)};\n")
    return "".join(out)


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    text = generate(argv[2:])
    tmp = argv[1] + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(text)
    os.replace(tmp, argv[1])


if __name__ == "__main__":
    main(sys.argv)
