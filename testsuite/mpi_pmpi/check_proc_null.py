#!/usr/bin/python3
"""check_proc_null.py FILE NRANKS - MPI_PROC_NULL peers carry no bytes (pmpi_app.c's numbers)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check, done  # noqa: E402

sys.path.insert(0, os.environ["PMPI_PYTHONPATH"])
from tally.reader import read  # noqa: E402

STEPS = 3
path, n = sys.argv[1], int(sys.argv[2])
mpi = read(path).table("mpi")
for r in range(n):
    nb = (r > 0) + (r < n - 1)        # real neighbours on the line
    want = {  # function: calls, sent, received
        "MPI_Sendrecv": (1 + 2 * STEPS, STEPS * 800 * nb, STEPS * 800 * nb),
        "MPI_Send": (1, 0, 0),
        "MPI_Recv": (1, 0, 0),
        "MPI_Sendrecv_replace": (1, 0, 0),
        "MPI_Isend": (1 + 2 * STEPS, STEPS * 400 * nb, 0),
        "MPI_Irecv": (1 + 2 * STEPS, 0, STEPS * 400 * nb),
    }
    rows = mpi[mpi["rank"] == r]
    for fn, (calls, sent, recv) in want.items():
        row = rows[rows["function"] == fn]
        check(len(row) == 1, f"rank {r}: one row for {fn} ({len(row)})")
        if len(row) != 1:
            continue
        got = (int(row["calls"].iloc[0]), int(row["bytes_sent"].iloc[0]), int(row["bytes_recv"].iloc[0]))
        check(got == (calls, sent, recv), f"rank {r} {fn}: calls, sent, received {got}, want {(calls, sent, recv)}")
sys.exit(done("check_proc_null"))
