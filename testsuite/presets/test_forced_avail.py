#!/usr/bin/env python3
"""papi_avail -e under LIBPFM_FORCE_PMU: the presets of a forced core PMU.

usage: test_forced_avail.py PAPI_AVAIL

For each PMU and preset of the table, `papi_avail -e PRESET` run with
LIBPFM_FORCE_PMU=<pmu> must list the preset's native terms qualified with
that PMU (<pmu>::EVENT...).  Where the kernel exposes no core PMU (this is
judged from /sys/bus/event_source/devices, independently of Tally), each
must also be marked not countable on this machine, with a note that says
the kernel exposes no hardware PMU.  Elsewhere (a machine whose real PMU
differs from the forced one) only the terms are checked.  Last, with
TALLY_PRESETS_GENERIC=1 the same presets must map to perf:: natives (the
generic tier) with notes marked "generic:".
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done  # noqa: E402

PMUS = ["skx", "clx", "icx", "hsw_ep", "bdw_ep", "spr", "amd64_fam19h_zen3", "amd64_fam19h_zen4"]
PRESETS = ["PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_BR_MSP", "PAPI_L1_DCM"]


def kernel_has_core_pmu():
    try:
        names = os.listdir("/sys/bus/event_source/devices")
    except OSError:
        return False
    return any(n == "cpu" or n.startswith("cpu_") or n.startswith("armv8") for n in names)


def run(papi_avail, pmu, preset):
    env = dict(os.environ, LIBPFM_FORCE_PMU=pmu)
    env.pop("TALLY_PRESETS_GENERIC", None)
    p = subprocess.run([papi_avail, "-e", preset], env=env, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def main(argv):
    if len(argv) != 2 or not os.access(argv[1], os.X_OK):
        print(__doc__, file=sys.stderr)
        return 2
    hw = kernel_has_core_pmu()
    print(f"kernel exposes a core PMU: {'yes' if hw else 'no'}")
    for pmu in PMUS:
        for preset in PRESETS:
            rc, out = run(argv[1], pmu, preset)
            case = f"LIBPFM_FORCE_PMU={pmu} papi_avail -e {preset}"
            check(rc == 0, f"{case}: exit status {rc}\n{out}")
            terms = re.findall(r"^\s*Native term \d+\s*:.*?(\S+)\s*$", out, re.M)
            m = re.search(r"^Native terms\s*:\s*(\d+)", out, re.M)
            check(m is not None and int(m.group(1)) == len(terms) and terms,
                  f"{case}: no native terms listed\n{out}")
            for t in terms:
                check(t.startswith(pmu + "::"), f"{case}: term {t} is not qualified with {pmu}")
            if not hw:
                check(re.search(r"^Available\s*:\s*no: not countable on this machine", out, re.M),
                      f"{case}: not marked as not countable\n{out}")
                check(re.search(r"^Note\s*:.*no hardware PMU", out, re.M),
                      f"{case}: the note does not say why\n{out}")
            first = terms[0] if terms else "-"
            print(f"{pmu:18} {preset:13} {len(terms)} term(s), first {first}")
    # the generic tier, forced: perf:: natives, notes marked generic
    for preset in PRESETS:
        env = dict(os.environ, TALLY_PRESETS_GENERIC="1")
        env.pop("LIBPFM_FORCE_PMU", None)
        p = subprocess.run([argv[1], "-e", preset], env=env, capture_output=True, text=True, timeout=60)
        out = p.stdout + p.stderr
        case = f"TALLY_PRESETS_GENERIC=1 papi_avail -e {preset}"
        terms = re.findall(r"^\s*Native term \d+\s*:.*?(\S+)\s*$", out, re.M)
        check(p.returncode == 0 and terms, f"{case}: no native terms listed\n{out}")
        for t in terms:
            check(t.startswith("perf::"), f"{case}: term {t} is not a perf:: event")
        check(re.search(r"^Note\s*:\s*generic: ", out, re.M), f"{case}: the note is not marked generic\n{out}")
        print(f"generic            {preset:13} {len(terms)} term(s), first {terms[0] if terms else '-'}")
    return done("test_forced_avail")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
