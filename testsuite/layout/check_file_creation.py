#!/usr/bin/env python3
"""check_file_creation.py - one way to create anything on disk (issue 47,
docs/runtime.md "Output files"): no C file of src/ or wrappers/ and no
Python file of analysis/ creates, renames or removes a file or directory
except through the safe-file service:

  C:      src/services/safe_file.c (the one service: by directory
          descriptors it made or opened and checked; out_stage.c,
          lock_file.c, the job directory and the tools call it)
  Python: analysis/tally/outfiles.py

Elsewhere a call of open/openat with O_CREAT, O_WRONLY, O_RDWR or O_TRUNC,
fopen/fdopen/freopen for writing, creat, mkdir(at), rename(at/at2),
unlink(at), remove, rmdir, link(at), symlink(at), mk(o)s(temp|temps),
mkdtemp, tmpfile; in Python open() for writing ('w', 'a', 'x', '+'),
os.open with O_CREAT/O_WRONLY/O_RDWR, os.mkdir/makedirs/rename/replace/
unlink/remove/rmdir/link/symlink, shutil.move/copy*/rmtree, tempfile's
mk*temp, Path.write_*/mkdir/rename/unlink/touch fails the check, unless
its line carries a reason: `safe-file: <why>` in a comment (only where the
path is provably not an output path, or the call works relative to a
descriptor the service made and checked).  In C a reason is taken only for
a call relative to a descriptor (the *at calls, not AT_FDCWD): a call by
name (mkdir, rename, unlink, open O_CREAT, fopen "w", ...) outside the
service fails whatever its comment says.

Usage: check_file_creation.py <source root> | --self-test.  Exit 0 when
clean, 1 with one line per call."""
import os
import re
import sys
import tempfile

C_SERVICE = {'src/services/safe_file.c'}
PY_SERVICE = {'analysis/tally/outfiles.py'}
REASON = re.compile(r'safe-file:\s*\S')

C_ALWAYS = ('creat', 'mkdir', 'mkdirat', 'rename', 'renameat', 'renameat2', 'unlink', 'unlinkat', 'remove',
            'rmdir', 'link', 'linkat', 'symlink', 'symlinkat', 'mkstemp', 'mkostemp', 'mkstemps', 'mkostemps',
            'mkdtemp', 'tmpfile')
C_CALL = re.compile(r'(?<![\w.>])(open|openat|open64|fopen|fdopen|freopen|' + '|'.join(C_ALWAYS) + r')\s*\(')
C_WRITE_FLAGS = re.compile(r'O_(CREAT|WRONLY|RDWR|TRUNC|TMPFILE)')

PY_CALL = re.compile(r'(?<![\w])(os\.(?:open|mkdir|makedirs|rename|replace|unlink|remove|rmdir|link|symlink)'
                     r'|shutil\.(?:move|copy\w*|rmtree)|tempfile\.mk\w*temp|(?<![\w.])open'
                     r'|\.(?:write_text|write_bytes|touch))\s*\(')
PY_WRITE_MODE = re.compile(r"""['"][rbt]*[wax+][rbt+]*['"]""")


def args_of(text, start):
    """The text of a call's arguments from its opening parenthesis."""
    depth = 0
    for i in range(start, min(len(text), start + 2000)):
        c = text[i]
        if c == '(':
            depth += 1
        elif c == ')':
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    return text[start + 1:start + 2000]


def strip_c_comments(text):
    """Comments blanked (lines kept), strings kept."""
    return re.sub(r'/\*.*?\*/|//[^\n]*', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.S)


def c_hits(rel, text):
    lines = text.split('\n')
    code = strip_c_comments(text)
    for m in C_CALL.finditer(code):
        name = m.group(1)
        line = code.count('\n', 0, m.start())
        before = code[max(0, m.start() - 40):m.start()]
        if re.search(r'\b(int|FILE|static|void|char|DIR)\s*\*?\s*$', before):
            continue   # a declaration or definition, not a call
        a = args_of(code, m.end() - 1)
        if name in ('open', 'openat', 'open64') and not C_WRITE_FLAGS.search(a):
            continue
        if name in ('fopen', 'fdopen', 'freopen'):
            modes = re.findall(r'"[^"]*"', a)
            if not modes or re.fullmatch(r'"[rbe]*"', modes[-1]):
                continue   # for reading
        end = line + a.count('\n') + 1
        by_fd = name.endswith(('at', 'at2')) and not a.lstrip().startswith('AT_FDCWD')
        if by_fd and any(REASON.search(lines[k]) for k in range(line, min(end, len(lines)))):
            continue
        yield f'{rel}:{line + 1}: {name}() creates, renames or removes outside the safe-file service'


def py_hits(rel, text):
    lines = text.split('\n')
    for m in PY_CALL.finditer(text):
        name = m.group(1)
        line = text.count('\n', 0, m.start())
        if lines[line].lstrip().startswith('#') or lines[line].lstrip().startswith('def '):
            continue
        a = args_of(text, m.end() - 1)
        if name == 'open' and not PY_WRITE_MODE.search(a) and 'mode=' not in a:
            continue
        if name == 'os.open' and not re.search(r'O_(CREAT|WRONLY|RDWR|TRUNC)|flags', a):
            continue
        end = line + a.count('\n') + 1
        if any(REASON.search(lines[k]) for k in range(line, min(end, len(lines)))):
            continue
        yield f'{rel}:{line + 1}: {name}() creates, renames or removes outside the safe-file service'


def scan(root):
    bad = []
    n = 0
    for top, ext, service, fn in (('src', '.c', C_SERVICE, c_hits), ('wrappers', '.c', C_SERVICE, c_hits),
                                  ('analysis', '.py', PY_SERVICE, py_hits)):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if x not in ('build', '__pycache__'))
            for f in sorted(files):
                if not f.endswith(ext):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, root).replace(os.sep, '/')
                if rel in service:
                    continue
                with open(path, encoding='utf-8', errors='replace') as fh:
                    text = fh.read()
                n += 1
                bad.extend(fn(rel, text))
    return bad, n


PLANTED = {
    'src/core/planted.c': ('#include <stdio.h>\n#include <fcntl.h>\n'
                           'void a(void) { FILE *f = fopen("x", "w"); (void)f; }\n'
                           'void b(void) { int fd = open("x",\n\tO_WRONLY | O_CREAT, 0600); (void)fd; }\n'
                           'void c(void) { rename("a", "b"); mkdir("d", 0700); }\n'
                           'void ok(void) { FILE *f = fopen("/proc/self/stat", "r"); open("y", O_RDONLY);\n'
                           '\tunlink("z");   /* safe-file: a planted reason, by name: still found */\n'
                           '\tunlinkat(4, "z", 0);   /* safe-file: a planted reason, by descriptor */\n}\n'),
    'wrappers/output/planted.c': 'void d(void) { unlinkat(3, "n", 0); }\n',
    'wrappers/output/out_stage.c': 'void s(void) { mkdirat(3, "priv", 0700); }\n',
    'analysis/tally/planted.py': ('import os, shutil\n'
                                  'def e(p):\n    with open(p, "w") as fh:\n        fh.write("x")\n'
                                  '    os.makedirs(p)\n    shutil.move(p, p + "x")\n'
                                  '    open(p).read()\n    os.rename(p, p)  # safe-file: a planted reason\n'),
}
WANT = sorted([('src/core/planted.c', 3), ('src/core/planted.c', 4), ('src/core/planted.c', 6),
               ('src/core/planted.c', 6), ('src/core/planted.c', 8), ('wrappers/output/planted.c', 1),
               ('wrappers/output/out_stage.c', 1), ('analysis/tally/planted.py', 3),
               ('analysis/tally/planted.py', 5), ('analysis/tally/planted.py', 6)])


def self_test():
    with tempfile.TemporaryDirectory() as top:
        for rel, text in PLANTED.items():
            os.makedirs(os.path.dirname(os.path.join(top, rel)), exist_ok=True)
            with open(os.path.join(top, rel), 'w', encoding='utf-8') as fh:
                fh.write(text)
        bad, _ = scan(top)
    got = [(b.split(':')[0], int(b.split(':')[1])) for b in bad]
    ok = sorted(got) == WANT
    for b in bad:
        print('found:', b)
    print('self-test', 'passed' if ok else f'FAILED: want {WANT}, got {sorted(got)}')
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    bad, n = scan(sys.argv[1])
    for b in bad:
        print(b)
    print(f'{n} files checked: {len(bad)} calls create, rename or remove outside the safe-file service')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
