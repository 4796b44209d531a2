"""directions_selftest.py - check_directions.py --self-test: a planted
tree in a temporary folder, laid out as CMake lays out a build, compiled
by the compiler CMake uses, judged with the real table of parts and
directions.  Planted: the writer including a header of the runtime (an
upward include, output -> runtime), the core calling a function of the
runtime (an upward call, core -> runtime), and two edges the table allows
(the runtime calling the writer, a producer including the runtime's
header).  The check must find exactly the two forbidden edges, each with
its witness, pass the allowed ones, honour and then find stale a
known-list entry, and find a circle planted in a table."""
import os
import subprocess
import tempfile

PLANT = {
    'wrappers/runtime/rt_low.h': '#define RT_LOW 1\nint rt_low(void);\n',
    'wrappers/runtime/rt_low.c': 'int out_write(void);\nint rt_low(void) { return out_write(); }\n',
    'wrappers/output/out_w.c': '#include "runtime/rt_low.h"\nint out_write(void) { return RT_LOW; }\n',
    'wrappers/regions/reg.c': '#include "runtime/rt_low.h"\nint reg(void) { return RT_LOW; }\n',
    'src/core/lib.c': 'int rt_low(void);\nint lib(void) { return rt_low(); }\n',
}


def plant(top, cc):
    build = os.path.join(top, 'build')
    for name, text in PLANT.items():
        path = os.path.join(top, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as fh:
            fh.write(text)
    objdir = os.path.join(build, 'planted', 'CMakeFiles', 'planted.dir')
    os.makedirs(objdir)
    for name in PLANT:
        if name.endswith('.c'):
            obj = os.path.join(objdir, name.replace('/', '_') + '.o')
            subprocess.run([cc, '-c', '-MD', '-MT', obj, '-MF', obj + '.d', '-I', os.path.join(top, 'wrappers'),
                            '-o', obj, os.path.join(top, name)], check=True)
    return build


def self_test(cc, nm, part_edges, judge, table_circles, allowed, read_known):
    fails = []

    def check(ok, what):
        print(('ok   ' if ok else 'FAIL ') + what)
        if not ok:
            fails.append(what)

    with tempfile.TemporaryDirectory(prefix='tally-directions-') as top:
        build = plant(top, cc)
        edges, nobj = part_edges(top, build, nm)
        check(nobj == 4, '4 planted objects read (%d)' % nobj)
        lines, bad = judge(edges, allowed, [])
        for line in lines:
            print('  | ' + line)
        forbidden = {k for k in edges if k not in allowed}
        check(forbidden == {('output', 'runtime'), ('core', 'runtime')},
              'exactly the two planted forbidden edges: %s' % sorted(forbidden))
        w = edges.get(('output', 'runtime'), ('', '', ''))
        check(w[2].startswith('includes "runtime/rt_low.h"'), 'the upward include has its witness: %s' % (w,))
        w = edges.get(('core', 'runtime'), ('', '', ''))
        check(w[2] == 'calls rt_low', 'the upward call has its witness: %s' % (w,))
        check(bad == 2, 'two breaches (%d)' % bad)
        check(('runtime', 'output') in edges and ('producers', 'runtime') in edges,
              'the allowed edges are seen and pass')
        known = os.path.join(top, 'known.txt')
        with open(known, 'w', encoding='utf-8') as fh:
            fh.write('# planted\noutput runtime\ncore runtime\n')
        check(judge(edges, allowed, read_known(known))[1] == 0, 'both on the known list: passes')
        with open(known, 'a', encoding='utf-8') as fh:
            fh.write('launcher core\n')
        lines, bad = judge(edges, allowed, read_known(known))
        check(bad == 1 and any(l.startswith('STALE') for l in lines), 'a stale known entry fails the check')
    check(table_circles({('a', 'b'), ('b', 'c'), ('c', 'a')}) == [['a', 'b', 'c']],
          'a circle planted in a table of directions is found')
    check(table_circles(allowed) == [], 'the real table has no circle')
    print('self-test: %s' % ('ok' if not fails else '%d failure(s)' % len(fails)))
    return 1 if fails else 0
