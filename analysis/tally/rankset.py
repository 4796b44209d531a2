"""Rank lists kept as ranges: the missing ranks of a partial file of a job
of millions of ranks are one range, not millions of Python ints (a list of
16,777,216 took minutes and gigabytes)."""
import bisect
from collections.abc import Sequence


class RankSet(Sequence):
    """The ranks 0..n-1 not in `present`, as sorted (first, last) ranges.
    Reads like a sorted list of ints (len, index, iteration, `in`, == a list)."""

    def __init__(self, n, present=()):
        self.ranges, lo = [], 0
        for r in sorted({int(x) for x in present if 0 <= int(x) < n}):
            if r > lo:
                self.ranges.append((lo, r - 1))
            lo = r + 1
        if lo < n:
            self.ranges.append((lo, n - 1))
        self._starts, total = [], 0   # index of each range's first rank
        for a, b in self.ranges:
            self._starts.append(total)
            total += b - a + 1
        self._len = total

    def __len__(self):
        return self._len

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._len))]
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError("rank index out of range")
        k = bisect.bisect_right(self._starts, i) - 1
        return self.ranges[k][0] + i - self._starts[k]

    def __iter__(self):
        for a, b in self.ranges:
            yield from range(a, b + 1)

    def __contains__(self, r):
        k = bisect.bisect_right(self.ranges, (r, float("inf"))) - 1
        return k >= 0 and self.ranges[k][0] <= r <= self.ranges[k][1]

    def __eq__(self, other):
        if isinstance(other, RankSet):
            return self.ranges == other.ranges
        return isinstance(other, (list, tuple)) and len(other) == self._len and list(other) == list(self)

    def __repr__(self):
        return f"RankSet({self.text() or 'none'})"

    def text(self):
        """'0-2, 5' (what the report shows)."""
        return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in self.ranges)
