#!/usr/bin/env python3
"""gen_settings_md.py - docs/settings.md from the settings table
(src/settings/settings.def), so the documentation's table is never kept
by hand.

Usage: gen_settings_md.py settings.def OUT.md      write the page
       gen_settings_md.py --check settings.def OUT.md
                                                   exit 1 when OUT.md differs"""
import re
import sys

ROW = re.compile(r'^TLY_SETTING\((\w+), (\w+), (\w+), ("(?:[^"\\]|\\.)*"), (\d+),\s*'
                 r'((?:"(?:[^"\\]|\\.)*"\s*)+)\)', re.M)
KIND = {
    'BOOL': 'yes/no',
    'INT': 'whole number 0..{max}',
    'SIZE': 'bytes (k, M, G)',
    'STR': 'text',
    'LIST': 'comma-separated names',
    'CHOICE': 'one of {words}',
}
CHOICES = re.compile(r'^TLY_CHOICES\((\w+), "([^"]*)"\)', re.M)


def c_string(lit):
    """The text of one or more adjacent C string literals."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', lit)
    return ''.join(bytes(p, 'utf-8').decode('unicode_escape') for p in parts)


def rows(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    words = dict(CHOICES.findall(text))
    for field, env, kind, default, mx, help_ in ROW.findall(text):
        if kind == 'CHOICE' and field not in words:
            raise SystemExit(f'{env}: a CHOICE row without its TLY_CHOICES line')
        yield env, kind, c_string(default), int(mx), c_string(help_), words.get(field, '')


def cell(s):
    """Table-cell text: no column break, no HTML tag (<uid> stays text)."""
    return s.replace('|', '\\|').replace('<', '\\<').replace('\n', ' ')


def page(text):
    lines = [
        '# Settings',
        '',
        '<!-- generated from src/settings/settings.def by src/settings/gen_settings_md.py;',
        '     do not edit: change the table and run the script (ctest settings_doc checks it) -->',
        '',
        'Every setting is an environment variable; each `TALLY_*` one is also a',
        '`tally-run` flag (`TALLY_OUTPUT_DIR=d` is `--output-dir d` or',
        '`--output-dir=d`; yes/no settings also take `--NAME` and `--no-NAME`).',
        'One parser reads them all, for the library and the runtime alike',
        '(`src/settings/settings.c`), with one grammar:',
        '',
        '- **yes/no**: `1`/`0`, `yes`/`no`, `on`/`off`, `true`/`false`, in any case;',
        '- **whole number**: decimal digits, at most the row\'s limit;',
        '- **bytes**: a whole number (decimal, or hexadecimal after `0x`) with an',
        '  optional `k`, `M` or `G` suffix',
        '  (binary multiples; `kB`, `KiB`, `MiB`... too), at most 1 TiB;',
        '- **one of** a row\'s words: one of them, in any case;',
        '- an empty value is the same as an unset one: the default.',
        '',
        'Anything else is refused with one sentence naming the variable and what',
        'it accepts, and the default is used: the runtime says it once per job,',
        'the library (rows marked *library*) once per process, and the GPU',
        'entry points that take these settings return `PAPI_EINVAL` with that',
        'sentence (`PAPI_perror`).',
        '',
        '| setting | kind | default | meaning |',
        '|---|---|---|---|',
    ]
    for env, kind, default, mx, help_, words in rows(text):
        shown = f'`{default}`' if default else '(none)'
        what = KIND[kind].format(max=mx, words=', '.join(f'`{w}`' for w in words.split(',')))
        lines.append(f'| `{env}` | {what} | {shown} | {cell(help_)} |')
    return '\n'.join(lines) + '\n'


def main(argv):
    check = argv[1:2] == ['--check']
    args = argv[2:] if check else argv[1:]
    if len(args) != 2:
        print(__doc__)
        return 2
    with open(args[0], encoding='utf-8') as f:
        want = page(f.read())
    if want.count('\n| `') < 40:
        print(f'{args[0]}: too few rows parsed')
        return 1
    if check:
        try:
            with open(args[1], encoding='utf-8') as f:
                have = f.read()
        except OSError as e:
            have = str(e)
        if have != want:
            print(f'{args[1]} is not what {args[0]} gives: run {argv[0]} {args[0]} {args[1]}')
            return 1
        print(f'{args[1]}: current ({want.count(chr(10) + "| `")} settings)')
        return 0
    with open(args[1], 'w', encoding='utf-8') as f:
        f.write(want)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
