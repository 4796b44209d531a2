#!/usr/bin/env python3
"""test_five_minutes.py BUILD_DIR README MPICC FC - the README's "Five
minutes with an installed Tally" run as written (issue 52), from a prefix
`cmake --install` made:

- the section's C lines (its #include, then its region calls) are the
  body of my_app.c, an MPI program, built with `-I<prefix>/include
  -L<prefix>/lib -ltally` and the run path; its Fortran lines are the
  body of a program built with FC the same way (skipped without FC);
- the section's sh block runs as it stands in one shell (only `<prefix>`
  replaced), in the directory holding ./my_app: `export PATH=...`,
  `mpirun -np 4 tally-run --output-name=run.h5 -- ./my_app args`,
  `tally-report run.h5`; the commented serial form (`tally-run --
  ./serial_app`) runs the Fortran program;
- the report comes out: exit 0, its region tree holds the README's region
  'halo', visited once per rank (4; 1 in the serial Fortran run, read
  with tally-report --format json).

Planted: a README whose C block names no region gives no 'halo' row (the
check fails), so the test reads what the README says.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done  # noqa: E402

SECTION = "## Five minutes with an installed Tally"


def blocks(readme):
    """{language: [lines]} of the section's fenced blocks."""
    text = open(readme, encoding="utf-8").read()
    sec = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return {lang: body.strip("\n").splitlines() for lang, body in re.findall(r"```(\w+)\n(.*?)```", sec, re.S)}


def sh(cmd, cwd, env, timeout=240):
    p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    print(f"$ {cmd}\n  rc {p.returncode}\n" + "".join("  | " + l + "\n" for l in (p.stdout + p.stderr).splitlines()[-40:]))
    return p


def c_program(lines):
    """my_app.c: the README's includes, then its other lines in an MPI main."""
    inc = [l for l in lines if l.startswith("#include")]
    body = [l for l in lines if not l.startswith("#include")]
    return ("#include <mpi.h>\n" + "\n".join(inc) + "\nint main(int argc, char **argv)\n{\n"
            "\tMPI_Init(&argc, &argv);\n\t" + "\n\t".join(body) + "\n\tMPI_Finalize();\n\treturn 0;\n}\n")


def halo_visits(prefix, path, cwd, env):
    """Visits of 'halo' in the report's region tree (None: no such row)."""
    p = sh(f"{prefix}/bin/tally-report {path} --format json", cwd, env)
    if p.returncode:
        return None
    secs = {x["title"]: x["rows"] for x in json.loads(p.stdout)["sections"]}
    rows = [r for r in secs.get("Region tree", []) if r["region"].strip() == "halo"]
    return rows[0]["visits"] if rows else None


def main():
    build, readme, mpicc, fc = (sys.argv[1:5] + [""])[:4]
    b = blocks(readme)
    if not check({"sh", "c", "fortran"} <= set(b), f"README's five-minute section: blocks {sorted(b)}"):
        sys.exit(done("five_minutes"))
    tmp = tempfile.mkdtemp(prefix="tally-five-")
    try:
        prefix, work = os.path.join(tmp, "prefix"), os.path.join(tmp, "work")
        os.makedirs(work)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1", OMP_NUM_THREADS="1")
        env.pop("LD_LIBRARY_PATH", None)
        p = sh(f"cmake --install {build} --prefix {prefix} >/dev/null", tmp, env, timeout=300)
        if not check(p.returncode == 0, "cmake --install"):
            sys.exit(done("five_minutes"))
        link = f"-I{prefix}/include -L{prefix}/lib -ltally -Wl,-rpath,{prefix}/lib"
        for name, lines in (("my_app.c", b["c"]), ("planted.c", [l for l in b["c"] if l.startswith("#include")])):
            with open(os.path.join(work, name), "w") as f:
                f.write(c_program(lines))
        p = sh(f"{mpicc} my_app.c -o my_app {link} && {mpicc} planted.c -o planted {link}", work, env)
        check(p.returncode == 0, "my_app.c (the README's C lines) builds against the prefix")
        script = "set -e\n" + "\n".join(l.replace("<prefix>", prefix) for l in b["sh"])
        p = sh(script, work, env)
        check(p.returncode == 0 and "halo" in p.stdout and "Region tree" in p.stdout,
              "the README's commands run and the report comes out, with 'halo'")
        n = halo_visits(prefix, "run.h5", work, env)
        check(n == 4, f"halo visited {n} times, want 4 (once per rank)")
        run_line = [l for l in b["sh"] if "tally-run" in l][0].split("#", 1)[0].strip()
        p = sh(f"export PATH={prefix}/bin:$PATH; " + run_line.replace("./my_app", "./planted")
               .replace("run.h5", "planted.h5"), work, env)
        check(p.returncode == 0 and halo_visits(prefix, "planted.h5", work, env) is None,
              "planted: a program without the README's region calls has no 'halo' row")
        serial = re.search(r"tally-run -- \./serial_app", "\n".join(b["sh"]))
        if not fc or not shutil.which(fc):
            print("Fortran: no compiler given; its block is not run")
        elif check(serial, "the README names the serial form tally-run -- ./serial_app"):
            with open(os.path.join(work, "serial_app.f90"), "w") as f:
                f.write("program serial_app\n" + "\n".join(b["fortran"]) + "\nend program serial_app\n")
            p = sh(f"{fc} serial_app.f90 -o serial_app {link} && export PATH={prefix}/bin:$PATH && "
                   f"mkdir -p f && cd f && tally-run -- ../serial_app && tally-report tally-*.h5", work, env)
            check(p.returncode == 0 and "halo" in p.stdout, "the README's Fortran lines under tally-run -- ./serial_app")
            f5 = [x for x in os.listdir(os.path.join(work, "f")) if x.endswith(".h5")]
            n = halo_visits(prefix, f5[0], os.path.join(work, "f"), env) if len(f5) == 1 else None
            check(n == 1, f"Fortran: halo visited {n} times, want 1 ({f5})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(done("five_minutes"))


if __name__ == "__main__":
    main()
