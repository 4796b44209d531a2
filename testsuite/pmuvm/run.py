#!/usr/bin/env python3
"""Run ctest-registered tests inside the arm64 QEMU guest (docs/pmuvm.md).

Collects the tests of a label from a cross build directory
(`ctest --show-only=json-v1 -L <label>`), builds only their targets,
packs the binaries, libtally and the guest init into an initramfs overlay
on top of the cached guest, boots it, streams the output and prints a
ctest-like summary.  Exit status: 0 when no test failed, 1 otherwise.

A build with the runtime (aarch64-runtime.cmake) also packs
libtally-preload and libtally-h5 beside libtally, and the shared libraries
they need that the guest lacks (Open MPI, HDF5, libdw...) from the sysroot
it was built against, at their places in /usr/lib.  A test may print files
between `@@pmuvm file NAME SIZE CRC32` and `@@pmuvm endfile NAME` in
base64 (NAME.gz: gzipped): they are written to
<build>/pmuvm-files/<test>/NAME, and the
tests labelled `pmuvm_host` that DEPEND on that test then run here, on
the host, to check them.
"""
import argparse
import base64
import gzip
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
# One vCPU: QEMU derives every vCPU's PMU counts from one global
# instruction count, so work of a second vCPU leaks into the first one's
# counters (docs/pmuvm.md).  sleep=off: virtual time never waits for the
# host, so runs are deterministic whatever the host's load.
QEMU = ["qemu-system-aarch64", "-machine", "virt", "-cpu", "cortex-a57",
        "-smp", os.environ.get("TALLY_PMUVM_SMP", "1"), "-m", "2048",
        "-icount", "shift=0,sleep=off", "-nographic", "-no-reboot", "-nic", "none"]
APPEND = "console=ttyAMA0 panic=-1 quiet rdinit=/init"


def ctest_json(build, label, regex):
    cmd = ["ctest", "--test-dir", build, "--show-only=json-v1", "-L", "^(%s)$" % label]
    if regex:
        cmd += ["-R", regex]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout).get("tests", [])


def build_targets(build, targets, jobs):
    targets = sorted(set(targets) | {"tally"})
    subprocess.run(["cmake", "--build", build, "-j", str(jobs), "--target"] + targets, check=True,
                   stdout=subprocess.DEVNULL)


def props_of(t):
    return {p["name"]: p["value"] for p in t.get("properties", [])}


def collect(build, label, regex, jobs):
    """The tests and the build-tree files they run, built first: ctest
    lists a test's command only once its executable exists, and
    tally_add_test names each executable after its test; every build-tree
    program a command names is a target of that name too (tally-run, with
    the preload library it runs)."""
    build_targets(build, [t["name"] for t in ctest_json(build, label, regex)], jobs)
    tests, files, targets = [], {}, set()
    top = os.path.realpath(build) + os.sep
    for t in ctest_json(build, label, regex):
        if "command" not in t:
            raise SystemExit("pmuvm: test %s has no executable after the build" % t["name"])
        props = props_of(t)
        tests.append({"name": t["name"], "command": t["command"], "timeout": int(float(props.get("TIMEOUT", 120))),
                      "skip_rc": int(props.get("SKIP_RETURN_CODE", 77))})
        for arg in t["command"]:
            path = os.path.realpath(arg)
            if path.startswith(top):
                files[path] = "/tally/bin/" + os.path.basename(path)
                targets.add(os.path.basename(path))
    if "tally-run" in targets:
        targets.add("tally-preload")
    if targets:
        build_targets(build, targets, jobs)
    return tests, files


class Cpio:
    """A minimal newc writer: directories, files, symlinks."""

    def __init__(self):
        self.buf = io.BytesIO()
        self.ino = 1

    def _entry(self, name, mode, data):
        name_b = name.encode() + b"\0"
        hdr = "070701" + "".join("%08X" % v for v in (
            self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name_b), 0))
        self.ino += 1
        self.buf.write(hdr.encode() + name_b)
        self.buf.write(b"\0" * ((4 - (110 + len(name_b)) % 4) % 4))
        self.buf.write(data)
        self.buf.write(b"\0" * ((4 - len(data) % 4) % 4))

    def dir(self, name):
        self._entry(name, 0o40755, b"")

    def file(self, name, data, mode=0o755):
        self._entry(name, 0o100000 | mode, data)

    def link(self, name, target):
        self._entry(name, 0o120777, target.encode())

    def finish(self):
        self._entry("TRAILER!!!", 0, b"")
        return self.buf.getvalue()


GUEST_LIBDIRS = ("usr/lib/aarch64-linux-gnu", "lib/aarch64-linux-gnu")
SYSROOT_LIBDIRS = GUEST_LIBDIRS + ("usr/lib/aarch64-linux-gnu/openmpi/lib",
                                   "usr/lib/aarch64-linux-gnu/hdf5/openmpi")


def needed(path):
    out = subprocess.run(["aarch64-linux-gnu-readelf", "-d", path], check=True, capture_output=True,
                         text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def sysroot_libs(build, guest, elves, packed):
    """{soname: host path}: the libraries the ELF files need, directly or
    through each other, that neither the overlay (PACKED names) nor the
    guest's rootfs has, from the sysroot the build was configured with
    (none for a build without one)."""
    sysroot = None
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith("TALLY_PMUVM_SYSROOT:"):
                sysroot = line.split("=", 1)[1].strip()
    if not sysroot:
        return {}
    libs, todo, seen = {}, [n for e in elves for n in needed(e)], set(packed)
    while todo:
        so = todo.pop()
        if so in seen:
            continue
        seen.add(so)
        if any(os.path.exists(os.path.join(guest, "rootfs", d, so)) for d in GUEST_LIBDIRS):
            continue
        path = next((p for p in (os.path.join(sysroot, d, so) for d in SYSROOT_LIBDIRS) if os.path.exists(p)), None)
        if not path:
            raise SystemExit("pmuvm: %s is neither in the guest nor in the sysroot %s" % (so, sysroot))
        libs[so] = os.path.realpath(path)
        todo += needed(libs[so])
    return libs


def overlay(build, guest, tests, files):
    c = Cpio()
    for d in ("tally", "tally/bin", "tally/lib"):
        c.dir(d)
    with open(os.path.join(HERE, "init.sh"), "rb") as f:
        c.file("init", f.read())
    elves = []
    # libtally, and with tally-run the preload library and the HDF5 writer
    # beside it (root's, not writable by others: output/h5_load.c)
    libs = [(os.path.join(build, "src"), lambda n: n.startswith("libtally.so"))]
    if any(g == "/tally/bin/tally-run" for g in files.values()):
        libs.append((os.path.join(build, "wrappers"), lambda n: n in ("libtally-preload.so", "libtally-h5.so")))
    for libdir, wanted in libs:
        for name in sorted(filter(wanted, os.listdir(libdir))):
            path = os.path.join(libdir, name)
            if os.path.islink(path):
                c.link("tally/lib/" + name, os.readlink(path))
            else:
                with open(path, "rb") as f:
                    c.file("tally/lib/" + name, f.read())
                elves.append(path)
    for host, guest_path in sorted(files.items()):
        with open(host, "rb") as f:
            data = f.read()
        c.file(guest_path.lstrip("/"), data)
        if data[:4] == b"\x7fELF":
            elves.append(host)
    extra = sysroot_libs(build, guest, elves, [os.path.basename(p) for p in elves] + os.listdir(libs[0][0]))
    for so, path in sorted(extra.items()):
        with open(path, "rb") as f:
            c.file("usr/lib/aarch64-linux-gnu/" + so, f.read())
    if extra:
        print("pmuvm: %d libraries from the sysroot (%.1f MB)" %
              (len(extra), sum(os.path.getsize(p) for p in extra.values()) / 1e6), flush=True)
    lines = []
    for t in tests:
        argv = [files.get(os.path.realpath(a), a) for a in t["command"]]
        lines.append("%s\t%d\t%s\n" % (t["name"], t["timeout"], " ".join(shlex.quote(a) for a in argv)))
    c.file("tally/tests.txt", "".join(lines).encode(), 0o644)
    return gzip.compress(c.finish(), 1)


class Received:
    """Files the guest's tests print between `@@pmuvm file NAME SIZE CRC32`
    and `@@pmuvm endfile NAME` (base64 lines), written to DIR/<test>/NAME;
    a file that arrives damaged fails its test."""

    def __init__(self, top):
        self.top, self.block, self.bad = top, None, {}

    def start(self, test, line):
        f = line.split()
        self.block = (test, os.path.basename(f[2]), int(f[3]), int(f[4], 16), [])

    def add(self, line):
        """The next console line inside a block; False once it has ended."""
        test, name, size, crc, lines = self.block
        if not line.startswith("@@pmuvm endfile"):
            lines.append(line.strip())
            return True
        self.block = None
        try:
            data = base64.b64decode("".join(lines), validate=True)
        except ValueError:
            data = b""
        if len(data) != size or zlib.crc32(data) != crc:
            self.bad.setdefault(test, []).append("%s arrived damaged (%d of %d bytes)" % (name, len(data), size))
            return False
        if name.endswith(".gz"):
            try:
                name, data = name[:-3], gzip.decompress(data)
            except (OSError, EOFError, zlib.error):
                self.bad.setdefault(test, []).append("%s is not gzip" % name)
                return False
        os.makedirs(os.path.join(self.top, test), exist_ok=True)
        with open(os.path.join(self.top, test, name), "wb") as f:
            f.write(data)
        print("(%s: %d bytes received%s)" % (name, len(data), ", %d gzipped" % size if size != len(data) else ""),
              flush=True)
        return False


def boot(guest, initrd, limit, log, received):
    """Boot, stream the console, return {test: rc} and whether it finished."""
    results, done, current = {}, False, None
    cmd = QEMU + ["-kernel", os.path.join(guest, "vmlinuz"), "-initrd", initrd, "-append", APPEND]
    start = began = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        for raw in p.stdout:
            line = raw.decode(errors="replace").rstrip("\r\n")
            if received.block:
                if not received.add(line):
                    log.write(line + "\n")
                continue
            log.write(line + "\n")
            if line.startswith("@@pmuvm begin "):
                current, began = line.split()[2], time.time()
                print("---- %s" % current, flush=True)
            elif line.startswith("@@pmuvm end "):
                f = line.split()
                results[f[2]] = int(f[3].split("=")[1])
                print("---- %s: %.1f s" % (current, time.time() - began), flush=True)
                current = None
            elif line.startswith("@@pmuvm file ") and current:
                received.start(current, line)
            elif line.startswith("@@pmuvm done"):
                done = True
            elif line.startswith("@@pmuvm boot"):
                print("guest booted in %.1f s (%s)" % (time.time() - start, line[13:]), flush=True)
            elif current or "Kernel panic" in line or "error" in line.lower():
                print(line, flush=True)
            if time.time() - start > limit:
                print("pmuvm: guest ran past %d s, stopping it" % limit, flush=True)
                break
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
    return results, done


def host_checks(build, tests, results):
    """The tests labelled pmuvm_host that DEPEND on tests run here, run on
    the host once those passed: [(name, rc or None when not run)]."""
    ran = {t["name"]: results.get(t["name"]) for t in tests}
    out = []
    for h in ctest_json(build, "pmuvm_host", ""):
        props = props_of(h)
        deps = [d for d in props.get("DEPENDS", []) if d in ran]
        if not deps:
            continue
        if any(ran[d] != 0 for d in deps):
            print("---- %s (host): not run, %s did not pass in the guest" % (h["name"], ", ".join(deps)), flush=True)
            out.append((h["name"], None, int(props.get("SKIP_RETURN_CODE", 77))))
            continue
        print("---- %s (host)" % h["name"], flush=True)
        env = dict(os.environ, **dict(e.split("=", 1) for e in props.get("ENVIRONMENT", [])))
        try:
            rc = subprocess.run(h["command"], env=env, cwd=props.get("WORKING_DIRECTORY", build),
                                timeout=int(float(props.get("TIMEOUT", 120)))).returncode
        except subprocess.TimeoutExpired:
            rc = 124
        out.append((h["name"], rc, int(props.get("SKIP_RETURN_CODE", 77))))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="cross build directory (aarch64.cmake)")
    ap.add_argument("--guest", required=True, help="guest directory printed by setup.sh")
    ap.add_argument("-L", "--label", default="pmu")
    ap.add_argument("-R", "--regex", default="")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-tests-ok", action="store_true", help="no test of the label matching -R is not an error")
    args = ap.parse_args()

    tests, files = collect(args.build, args.label, args.regex, args.jobs)
    if not tests:
        print("pmuvm: no tests labelled %s%s in %s" % (args.label, " matching " + args.regex if args.regex else "",
                                                       args.build))
        return 0 if args.no_tests_ok else 1
    initrd = os.path.join(args.build, "pmuvm-initrd.gz")
    with open(initrd, "wb") as out:
        with open(os.path.join(args.guest, "base.cpio.gz"), "rb") as base:
            out.write(base.read())
        out.write(overlay(args.build, args.guest, tests, files))
    limit = 60 + sum(t["timeout"] for t in tests)
    received = Received(os.path.join(args.build, "pmuvm-files"))
    for t in tests:
        shutil.rmtree(os.path.join(received.top, t["name"]), ignore_errors=True)
    print("pmuvm: running %d tests labelled %s in the arm64 guest" % (len(tests), args.label), flush=True)
    with open(os.path.join(args.build, "pmuvm-console.log"), "w") as log:
        results, done = boot(args.guest, initrd, limit, log, received)
    for name, why in received.bad.items():
        print("pmuvm: %s: %s" % (name, "; ".join(why)))
        results[name] = results.get(name) or 1
    rows = [(t["name"], results.get(t["name"]), t["skip_rc"]) for t in tests]
    checks = host_checks(args.build, tests, results)
    passed, failed, skipped = [], [], []
    for name, rc, skip_rc in rows + checks:
        (skipped if rc == skip_rc else passed if rc == 0 else failed).append((name, rc))
    for (name, rc, skip_rc), host in [(r, "") for r in rows] + [(r, " (host)") for r in checks]:
        state = ("not run" if host else "missing") if rc is None else "Passed" if rc == 0 else \
            "Skipped" if rc == skip_rc else "Timeout" if rc in (124, 143) else "Failed (rc=%d)" % rc
        print("    %-24s %s" % (name + host, state))
    if not done:
        print("pmuvm: the guest did not finish (console log: %s)" % os.path.join(args.build, "pmuvm-console.log"))
    print("%d passed, %d failed, %d skipped (of %d tests labelled %s, in the arm64 guest%s)" %
          (len(passed), len(failed), len(skipped), len(rows) + len(checks), args.label,
           ", %d of them host-side checks of its files" % len(checks) if checks else ""))
    return 0 if not failed and done else 1


if __name__ == "__main__":
    sys.exit(main())
