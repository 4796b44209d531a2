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

Usage: check_getenv.py <source root>."""
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


def main():
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
                with open(path, encoding='utf-8', errors='replace') as fh:
                    text = (PY_COMMENT if python else COMMENT).sub(blank, fh.read())
                if rel in PARSER:
                    continue
                for m in (PY_READ if python else READ).finditer(text):
                    line = text.count('\n', 0, m.start()) + 1
                    bad.append(f'{rel}:{line}: reads the environment ' +
                               ('(use tally.settings: flag/count/text, env_raw)' if python else
                                '(use tly_setting_* or tly_env_raw of tally_shared.h)'))
    return finish(bad, seen, 100, f'{seen - npy} C and {npy} Python files of src/, wrappers/ and analysis/ '
                  'checked: ' + ('ok' if not bad else f'{len(bad)} read(s) of the environment outside the parser'))


if __name__ == '__main__':
    sys.exit(main())
