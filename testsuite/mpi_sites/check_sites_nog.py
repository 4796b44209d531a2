#!/usr/bin/python3
"""check_sites_nog.py FILE APP - call sites of sites_app built without -g.

Without line information every frame is named symbol+0xoffset from the
program's ELF symbol table (its functions are static: dladdr does not see
them), and the name agrees with the frame's address: the symbol's value
(nm) plus the offset is the address's module offset.  The frames expected:
site_a, site_b (MPI_Allreduce) and helper < caller_x, helper < caller_y
(MPI_Bcast, two frames)."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done  # noqa: E402

sys.path.insert(0, os.environ["SITES_PYTHONPATH"])
from tally.reader import read  # noqa: E402

path, app = sys.argv[1:3]
syms = {}
for line in subprocess.run(["nm", app], capture_output=True, text=True, check=True).stdout.splitlines():
    f = line.split()
    if len(f) == 3 and f[1] in "tT":
        syms[f[2]] = int(f[0], 16)
check("site_a" in syms and "caller_x" in syms, f"nm finds the static functions of {app}")
sites = read(path).table("mpi_sites")
base = os.path.basename(app)
seen = set()
for row in sites.itertuples(index=False):
    names, addrs = row.site.split(" < "), row.address.split(" < ")
    for name, addr in zip(names, addrs):
        m = re.fullmatch(r"(\w+)\+0x([0-9a-f]+)", name)
        a = re.fullmatch(re.escape(base) + r"\+0x([0-9a-f]+)", addr)
        if not a:   # a frame outside the program (main's caller in libc)
            continue
        check(m is not None, f"{row.function}: frame named {name!r}, want symbol+0xoffset")
        if not m:
            continue
        sym, off = m.group(1), int(m.group(2), 16)
        check(sym in syms and syms[sym] + off == int(a.group(1), 16),
              f"{name}: symbol value {syms.get(sym)} + offset {off} is not the address {addr}")
    seen.add((row.function, tuple(re.sub(r"\+0x[0-9a-f]+", "", n) for n in names[:2])))
for want in (("MPI_Allreduce", "site_a"), ("MPI_Allreduce", "site_b"),
             ("MPI_Bcast", "helper", "caller_x"), ("MPI_Bcast", "helper", "caller_y")):
    check(any(f == want[0] and n[:len(want) - 1] == want[1:] for f, n in seen),
          f"a site {want[0]} from {' < '.join(want[1:])} (seen {sorted(seen)})")
sys.exit(done("check_sites_nog"))
