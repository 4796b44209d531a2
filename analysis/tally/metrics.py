"""Derived metrics: defined once, computed where their inputs exist.

Each metric names the events it needs (any of several spellings: the
component prefix and case are ignored, and aliases are listed) and a
formula over per-(rank, region) sums; 'time_s' is the region's wall time
on the rank.  A metric whose events were not counted is skipped.
"""
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Metric:
    """A derived metric: name, unit, needed inputs (alias tuples) and formula."""
    name: str
    unit: str
    inputs: tuple
    formula: object
    doc: str


def _ratio(a, b, scale=1.0):
    """a / b * scale with 0 where b is 0 (as NaN)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.asarray(b, float) != 0, np.asarray(a, float) / np.asarray(b, float) * scale, np.nan)


TIME = ("time_s",)

METRICS = (
    Metric("IPC", "instructions/cycle", (("PAPI_TOT_INS", "INSTRUCTIONS", "INST_RETIRED"), ("PAPI_TOT_CYC", "CPU-CYCLES", "CYCLES")),
           lambda ins, cyc: _ratio(ins, cyc), "instructions per cycle"),
    Metric("GFLOP/s", "GFLOP/s", (("PAPI_FP_OPS", "PAPI_DP_OPS", "PAPI_SP_OPS"), TIME),
           lambda flop, t: _ratio(flop, t, 1e-9), "floating-point operations per second of wall time"),
    Metric("branch miss rate", "fraction", (("PAPI_BR_MSP", "BRANCH-MISSES"), ("PAPI_BR_INS", "BRANCH-INSTRUCTIONS")),
           lambda m, b: _ratio(m, b), "mispredicted / all branches"),
    Metric("L1D miss rate", "fraction", (("PAPI_L1_DCM",), ("PAPI_L1_DCA", "PAPI_LD_INS")),
           lambda m, a: _ratio(m, a), "L1 data cache misses per access"),
    Metric("LLC miss bandwidth", "bytes/s", (("PAPI_L3_TCM", "LLC-LOAD-MISSES"), TIME),
           lambda m, t: _ratio(m, t, 64.0), "last-level cache misses x 64-byte lines per second"),
    Metric("DRAM read bandwidth", "bytes/s", (("dram__bytes_read.sum",), TIME),
           lambda b, t: _ratio(b, t), "GPU DRAM bytes read per second of region time"),
    Metric("CPU utilisation", "cores", (("TASK-CLOCK", "PERF_COUNT_SW_TASK_CLOCK", "CPU-CLOCK", "CPU-TIME"), TIME),
           lambda tc, t: _ratio(tc, t, 1e-9), "task clock or CPU time (ns) / wall time: cores kept busy"),
    Metric("page faults/s", "1/s", (("PAGE-FAULTS", "PERF_COUNT_SW_PAGE_FAULTS", "FAULTS"), TIME),
           lambda pf, t: _ratio(pf, t), "page faults per second of wall time"),
    Metric("context switches/s", "1/s", (("CONTEXT-SWITCHES", "PERF_COUNT_SW_CONTEXT_SWITCHES", "CS"), TIME),
           lambda cs, t: _ratio(cs, t), "context switches per second of wall time"),
)


def _norm(name):
    """Event name without component prefix and qualifiers, upper case."""
    return name.split(":::")[-1].split("::")[-1].split(":")[0].upper()


def resolve(aliases, columns):
    """The column matching one of aliases, or None."""
    if aliases == TIME:
        return "time_s" if "time_s" in columns else None
    want = {_norm(a) for a in aliases}
    return next((c for c in columns if _norm(c) in want and not c.endswith("(excl)")), None)


def available(columns):
    """(Metric, [input columns]) for every metric whose inputs are present."""
    out = []
    for m in METRICS:
        cols = [resolve(a, columns) for a in m.inputs]
        if all(cols):
            out.append((m, cols))
    return out


def compute(frame):
    """frame plus one column per available metric (named '<name> [<unit>]')."""
    add = {label(m): m.formula(*(frame[c] for c in cols)) for m, cols in available(frame.columns)}
    return frame.assign(**add) if add else frame


def label(m):
    """Column label of a metric."""
    return f"{m.name} [{m.unit}]"


def table():
    """The metric definitions as a DataFrame (for the documentation and --help)."""
    return pd.DataFrame([(m.name, m.unit, " / ".join("|".join(a) for a in m.inputs), m.doc) for m in METRICS],
                        columns=["metric", "unit", "inputs", "meaning"])
