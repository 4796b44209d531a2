#!/usr/bin/env python3
"""check_getenv.py - the environment is read in one place: the settings
parser (src/settings/settings.c; docs/DESIGN.md, "Settings").  Every other
C file of src/ and wrappers/ reads a setting through tly_setting_* and
another program's variable through tly_env_raw.  Fails naming each file
and line that calls getenv, secure_getenv or walks environ elsewhere.
The Python of src/, wrappers/ and analysis/ (the tally package) reads the
environment through the module generated from the same table
(analysis/tally/settings.py, src/settings/gen_settings_py.py): elsewhere
os.getenv, os.environ and os.environb fail the check, except
a write (os.environ["X"] = ...: the probe's child sets glibc's variable).

Usage: check_getenv.py <source root>; check_getenv.py --self-test (planted
reads in C and Python are found, comments, strings and a write are not)."""
import os
import re
import sys

from layout_result import finish

PARSER = {'src/settings/settings.c', 'analysis/tally/settings.py'}   # the generated Python side
READ = re.compile(r'\b(?:secure_getenv|getenv)\s*\(|\benviron\b')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:[^"\\\n]|\\.)*"', re.S)
PY_READ = re.compile(r'\b(?:os\.)?(?:getenv|getenvb)\s*\(|\benvironb?\b(?!\s*\[[^\]\n]*\]\s*=[^=])')
PY_COMMENT = re.compile(r'"""(?:[^\\]|\\.)*?"""|\'\'\'(?:[^\\]|\\.)*?\'\'\'|#[^\n]*'
                        r'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'', re.S)


def blank(m):
    """A comment or string as spaces (newlines kept, so lines still count)."""
    return re.sub(r'[^\n]', ' ', m.group(0))


def breaches(rel, text, python):
    """The lines of one file that read the environment."""
    text = (PY_COMMENT if python else COMMENT).sub(blank, text)
    return [f'{rel}:{text.count(chr(10), 0, m.start()) + 1}: reads the environment ' +
            ('(use tally.settings: flag/count/text, env_raw)' if python else
             '(use tly_setting_* or tly_env_raw of tally_shared.h)')
            for m in (PY_READ if python else READ).finditer(text)]


def self_test():
    """Planted reads are found (issue 46); comments, strings and a write are not."""
    c_bad = ['const char *v = getenv("X");', 'char *v = secure_getenv ("X");', 'extern char **environ;']
    py_bad = ['v = os.getenv("X")', 'v = os.environ.get("X")', 'v = os.environb[b"X"]', 'from os import getenv\nv = getenv("X")']
    ok = breaches('ok.c', '/* getenv("X") */\n// environ\nputs("getenv(");\n', False) + \
        breaches('ok.py', '# os.getenv("X")\ns = "os.environ"\nos.environ["GLIBC_X"] = "1"\n', True)
    found = [len(breaches('x.c', 'int y;\n' + t + '\n', False)) for t in c_bad] + \
        [len(breaches('x.py', 'import os\n' + t + '\n', True)) for t in py_bad]
    good = all(n >= 1 for n in found) and not ok
    print('self-test:', 'ok' if good else f'failed: planted reads found {found}, allowed lines flagged {ok}')
    return 0 if good else 1


def main():
    if '--self-test' in sys.argv:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    bad, seen = [], 0
    npy = 0
    for top in ('src', 'wrappers', 'analysis'):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                python = f.endswith('.py')
                if not f.endswith(('.c', '.h')) and not python:
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, root)
                seen += 1
                npy += python
                if rel in PARSER:
                    continue
                with open(path, encoding='utf-8', errors='replace') as fh:
                    bad += breaches(rel, fh.read(), python)
    return finish(bad, seen, 100, f'{seen - npy} C and {npy} Python files of src/, wrappers/ and analysis/ '
                  'checked: ' + ('ok' if not bad else f'{len(bad)} read(s) of the environment outside the parser'))


if __name__ == '__main__':
    sys.exit(main())
