"""circles_selftest.py - check_circles.py --self-test: a planted tree in a
temporary folder, laid out as CMake lays out a build (build/CMakeFiles/
<target>.dir/<source>.o with the compiler's depfile), compiled by the
compiler CMake uses.  ping.c and pong.c call each other (a call circle),
left.c and right.c include each other's header (an include circle),
hub.c and spoke.h (a header without a source) include each other's, and
so do the headers cee.h and dee.h (included by user.c), and up.c calls
ping.c without being called back (no circle).  The check must find
exactly the four circles with their witnesses, pass when the
allow-list names them, fail without it, and fail on a stale entry."""
import os
import subprocess
import tempfile

PLANT = {
    'ping.c': 'int pong(int);\nint ping(int n) { return n ? pong(n - 1) : 0; }\n',
    'pong.c': 'int ping(int);\nint pong(int n) { return n ? ping(n - 1) : 1; }\n',
    'up.c': 'int ping(int);\nint up(void) { return ping(3); }\n',
    'left.h': '#define LEFT 1\n',
    'right.h': '#define RIGHT 2\n',
    'left.c': '#include "right.h"\nint left(void) { return RIGHT; }\n',
    'right.c': '#include "left.h"\nint right(void) { return LEFT; }\n',
    # through headers without a source (issue 46): hub.c <-> spoke.h, cee.h <-> dee.h
    'hub.h': '#ifndef HUB_H\n#define HUB_H\n#define HUB 3\n#endif\n',
    'spoke.h': '#ifndef SPOKE_H\n#define SPOKE_H\n#include "hub.h"\n#define SPOKE HUB\n#endif\n',
    'hub.c': '#include "spoke.h"\nint hub(void) { return SPOKE; }\n',
    'cee.h': '#ifndef CEE_H\n#define CEE_H\n#include "dee.h"\n#define CEE 4\n#endif\n',
    'dee.h': '#ifndef DEE_H\n#define DEE_H\n#include "cee.h"\n#define DEE 5\n#endif\n',
    'user.c': '#include "cee.h"\nint user(void) { return CEE; }\n',
}


def plant(top, cc):
    src = os.path.join(top, 'testsuite', 'planted')
    objdir = os.path.join(top, 'build', 'testsuite', 'planted', 'CMakeFiles', 'planted.dir')
    os.makedirs(src)
    os.makedirs(objdir)
    for name, text in PLANT.items():
        with open(os.path.join(src, name), 'w', encoding='utf-8') as fh:
            fh.write(text)
        if name.endswith('.c'):
            obj = os.path.join(objdir, name + '.o')
            subprocess.run([cc, '-c', '-MD', '-MT', obj, '-MF', obj + '.d', '-o', obj,
                            os.path.join(src, name)], check=True)


def self_test(cc, nm, analyse, read_allow, judge):
    fails = []

    def check(ok, what):
        print(('ok   ' if ok else 'FAIL ') + what)
        if not ok:
            fails.append(what)

    with tempfile.TemporaryDirectory(prefix='tally-circles-') as top:
        plant(top, cc)
        found, nobj, built = analyse(top, os.path.join(top, 'build'), nm)
        sets = {c[0]: c[2] for c in found}
        calls = frozenset({'testsuite/planted/ping', 'testsuite/planted/pong'})
        incl = frozenset({'testsuite/planted/left', 'testsuite/planted/right'})
        hub = frozenset({'testsuite/planted/hub', 'testsuite/planted/spoke'})
        hdr = frozenset({'testsuite/planted/cee', 'testsuite/planted/dee'})
        check(nobj == 7, '7 planted objects read (%d)' % nobj)
        check(set(sets) == {calls, incl, hub, hdr}, 'exactly the four planted circles found: %s'
              % sorted(sorted(s) for s in sets))
        w = sets.get(calls, {})
        check(w.get(('testsuite/planted/ping', 'testsuite/planted/pong')) == 'calls pong'
              and w.get(('testsuite/planted/pong', 'testsuite/planted/ping')) == 'calls ping',
              'the call circle names one symbol per edge: %s' % w)
        w = sets.get(incl, {})
        check(all('includes' in v for v in w.values()) and len(w) == 2,
              'the include circle names the include lines: %s' % w)
        for line in judge(found, [], 'none')[0]:
            print('  | ' + line)
        check(judge(found, [], 'none')[1] == 4, 'no allow-list: the four circles fail the check')
        allow = os.path.join(top, 'known.txt')
        with open(allow, 'w', encoding='utf-8') as fh:
            fh.write('# planted\n%s\n' % '\n'.join(' '.join(sorted(c)) for c in (calls, incl, hub, hdr)))
        check(judge(found, read_allow(allow), 'known.txt')[1] == 0, 'all four on the list: passes')
        with open(allow, 'a', encoding='utf-8') as fh:
            fh.write('testsuite/planted/up testsuite/planted/gone\n')
        lines, bad = judge(found, read_allow(allow), 'known.txt', built)
        check(bad == 1 and any(l.startswith('STALE') for l in lines), 'a stale entry fails the check')
        with open(allow, 'a', encoding='utf-8') as fh:
            fh.write('src/not/built src/not/either\n')
        lines, bad = judge(found, read_allow(allow), 'known.txt', built)
        check(bad == 1 and any('none of its files built' in l for l in lines),
              'an entry of files not built here is not stale')
    print('self-test: %s' % ('ok' if not fails else '%d failure(s)' % len(fails)))
    return 1 if fails else 0
