#!/usr/bin/env python3
"""gen_settings_py.py - the Python side of the settings table: writes the
module analysis/tally/settings.py (the reader's package) from
src/settings/settings.def, with the C parser's grammar and sentences
(src/settings/settings.c, settings_say.c), so Python reads its TALLY_*
variables from the same table and says a bad value the same way.  The
module is kept in the tree (the package installs from its sources with
pip too); ctest settings_py fails when it is not what the table gives.

Usage: gen_settings_py.py settings.def OUT.py            write the module
       gen_settings_py.py --check settings.def OUT.py    exit 1 when OUT.py differs"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_settings_md import rows  # noqa: E402  (the one parser of the table)

BODY = r'''

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
'''


def module(text):
    lines = ['"""settings.py - Tally\'s settings table for Python: generated from',
             'src/settings/settings.def by src/settings/gen_settings_py.py; do not edit:',
             'change the table and run the script (ctest settings_py checks it).',
             'The one place the tally package reads the environment (ctest layout_getenv):',
             'raw/flag/count/text read a row with the C grammar (a bad value is one line',
             'on stderr, then the default), env_raw another program\'s variable."""',
             'import os', 'import sys', '', '# ENV_NAME: (kind, default, max, choices)', 'ROWS = {']
    n = 0
    for env, kind, default, mx, _help, words in rows(text):
        lines.append('    %r: (%r, %r, %d, %r),' % (env, kind, default, mx, words))
        n += 1
    lines.append('}')
    return '\n'.join(lines) + BODY, n


def main(argv):
    check = argv[1:2] == ['--check']
    args = argv[2:] if check else argv[1:]
    if len(args) != 2:
        print(__doc__)
        return 2
    with open(args[0], encoding='utf-8') as f:
        want, n = module(f.read())
    if n < 40:
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
        print(f'{args[1]}: current ({n} settings)')
        return 0
    tmp = args[1] + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write(want)
    os.replace(tmp, args[1])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
