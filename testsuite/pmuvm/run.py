#!/usr/bin/env python3
"""Run ctest-registered tests inside the arm64 QEMU guest (docs/pmuvm.md).

Collects the tests of a label from a cross build directory
(`ctest --show-only=json-v1 -L <label>`), builds only their targets,
packs the binaries, libtally and the guest init into an initramfs overlay
on top of the cached guest, boots it, streams the output and prints a
ctest-like summary.  Exit status: 0 when no test failed, 1 otherwise.
"""
import argparse
import gzip
import io
import json
import os
import shlex
import subprocess
import sys
import time

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


def collect(build, label, regex, jobs):
    """The tests and the build-tree files they run, built first: ctest
    lists a test's command only once its executable exists, and
    tally_add_test names each executable after its test."""
    build_targets(build, [t["name"] for t in ctest_json(build, label, regex)], jobs)
    tests, files, missing = [], {}, set()
    top = os.path.realpath(build) + os.sep
    for t in ctest_json(build, label, regex):
        if "command" not in t:
            raise SystemExit("pmuvm: test %s has no executable after the build" % t["name"])
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests.append({"name": t["name"], "command": t["command"], "timeout": int(float(props.get("TIMEOUT", 120))),
                      "skip_rc": int(props.get("SKIP_RETURN_CODE", 77))})
        for arg in t["command"]:
            path = os.path.realpath(arg)
            if path.startswith(top):
                files[path] = "/tally/bin/" + os.path.basename(path)
                if not os.path.exists(path):
                    missing.add(os.path.basename(path))
    if missing:
        build_targets(build, missing, jobs)
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


def overlay(build, tests, files):
    c = Cpio()
    for d in ("tally", "tally/bin", "tally/lib"):
        c.dir(d)
    with open(os.path.join(HERE, "init.sh"), "rb") as f:
        c.file("init", f.read())
    libdir = os.path.join(build, "src")
    for name in sorted(os.listdir(libdir)):
        path = os.path.join(libdir, name)
        if name.startswith("libtally.so"):
            if os.path.islink(path):
                c.link("tally/lib/" + name, os.readlink(path))
            else:
                with open(path, "rb") as f:
                    c.file("tally/lib/" + name, f.read())
    for host, guest in sorted(files.items()):
        with open(host, "rb") as f:
            c.file(guest.lstrip("/"), f.read())
    lines = []
    for t in tests:
        argv = [files.get(os.path.realpath(a), a) for a in t["command"]]
        lines.append("%s\t%d\t%s\n" % (t["name"], t["timeout"], " ".join(shlex.quote(a) for a in argv)))
    c.file("tally/tests.txt", "".join(lines).encode(), 0o644)
    return gzip.compress(c.finish(), 1)


def boot(guest, initrd, limit, log):
    """Boot, stream the console, return {test: rc} and whether it finished."""
    results, done, current = {}, False, None
    cmd = QEMU + ["-kernel", os.path.join(guest, "vmlinuz"), "-initrd", initrd, "-append", APPEND]
    start = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        for raw in p.stdout:
            line = raw.decode(errors="replace").rstrip("\r\n")
            log.write(line + "\n")
            if line.startswith("@@pmuvm begin "):
                current = line.split()[2]
                print("---- %s" % current, flush=True)
            elif line.startswith("@@pmuvm end "):
                f = line.split()
                results[f[2]] = int(f[3].split("=")[1])
                current = None
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="cross build directory (aarch64.cmake)")
    ap.add_argument("--guest", required=True, help="guest directory printed by setup.sh")
    ap.add_argument("-L", "--label", default="pmu")
    ap.add_argument("-R", "--regex", default="")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()

    tests, files = collect(args.build, args.label, args.regex, args.jobs)
    if not tests:
        print("pmuvm: no tests labelled %s in %s" % (args.label, args.build))
        return 1
    initrd = os.path.join(args.build, "pmuvm-initrd.gz")
    with open(initrd, "wb") as out:
        with open(os.path.join(args.guest, "base.cpio.gz"), "rb") as base:
            out.write(base.read())
        out.write(overlay(args.build, tests, files))
    limit = 60 + sum(t["timeout"] for t in tests)
    print("pmuvm: running %d tests labelled %s in the arm64 guest" % (len(tests), args.label), flush=True)
    with open(os.path.join(args.build, "pmuvm-console.log"), "w") as log:
        results, done = boot(args.guest, initrd, limit, log)
    passed, failed, skipped = [], [], []
    for t in tests:
        rc = results.get(t["name"])
        (skipped if rc == t["skip_rc"] else passed if rc == 0 else failed).append((t["name"], rc))
    for name, rc in [(t["name"], results.get(t["name"])) for t in tests]:
        state = "missing" if rc is None else "Passed" if rc == 0 else "Skipped" if rc == 77 else \
            "Timeout" if rc in (124, 143) else "Failed (rc=%d)" % rc
        print("    %-24s %s" % (name, state))
    if not done:
        print("pmuvm: the guest did not finish (console log: %s)" % os.path.join(args.build, "pmuvm-console.log"))
    print("%d passed, %d failed, %d skipped (of %d tests labelled %s, in the arm64 guest)" %
          (len(passed), len(failed), len(skipped), len(tests), args.label))
    return 0 if not failed and done else 1


if __name__ == "__main__":
    sys.exit(main())
