"""Statistics across ranks: min, mean, max, imbalance and variation.

imbalance = max / mean - 1 (0 when every rank does the same; NaN when the
mean is 0); cv = population standard deviation / mean (ddof = 0).
"""
import numpy as np
import pandas as pd

STAT_COLUMNS = ["min", "mean", "max", "imbalance", "cv"]


def across(matrix):
    """Row-wise statistics of a 2-D array (rows: items, columns: ranks)."""
    m = np.asarray(matrix, dtype=float)
    if m.size == 0 or m.shape[1] == 0:
        return {k: np.full(m.shape[0], np.nan) for k in STAT_COLUMNS}
    mean = np.nanmean(m, axis=1)
    mx = np.nanmax(m, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        imb = np.where(mean != 0, mx / mean - 1.0, np.nan)
        cv = np.where(mean != 0, np.nanstd(m, axis=1) / mean, np.nan)
    return {"min": np.nanmin(m, axis=1), "mean": mean, "max": mx, "imbalance": imb, "cv": cv}


def grid(frame, column, index="region", columns="rank", all_columns=None):
    """Pivot frame[column] to an index x columns matrix (missing cells 0).

    all_columns: the full list of columns (e.g. every rank of the job), so
    a rank that never entered a region counts as 0 there.
    """
    g = frame.pivot_table(index=index, columns=columns, values=column, aggfunc="sum", fill_value=0)
    if all_columns is not None:
        g = g.reindex(columns=all_columns, fill_value=0)
    return g


def summary(frame, column, index="region", columns="rank", all_columns=None):
    """DataFrame of STAT_COLUMNS of frame[column] across columns, per index."""
    g = grid(frame, column, index, columns, all_columns)
    return pd.DataFrame(across(g.to_numpy()), index=g.index)
