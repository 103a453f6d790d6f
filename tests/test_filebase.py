"""The RAFLE paper's file base and the exact fair-share reference."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dumbbell import fairshare as fs
from dumbbell import filebase as fb

# The fair-share column of the paper's Table 2 ("Padrão (T_i)"), seconds,
# bins 0-100 ... 400-500 KB, at 1 Mb/s.
PAPER_T_I = (225.6, 326.4, 410.4, 488.0, 562.4)


@pytest.fixture(scope="module")
def base():
    return fb.load()


def test_the_shipped_base_is_the_generators_output(base):
    assert base == fb.generate(fb.SEED)
    assert fb.generate(fb.SEED) == fb.generate(fb.SEED), "deterministic"
    assert fb.generate(fb.SEED + 1) != base


@pytest.mark.parametrize("seed", [fb.SEED, 1, 2, 11])
def test_the_base_has_the_papers_properties(seed):
    s = fb.generate(seed)
    assert len(s) == 564
    assert min(s) >= 1 and max(s) <= 4_000_000, "none above 4 MB"
    h = fb.histogram(s)
    assert tuple(h[:4]) == fb.PAPER_BIN_COUNTS
    assert sum(1 for x in s if x <= 100_000) > 0.75 * len(s), "most below 100 KB"
    assert h[-1] >= 1 and len(h) == 40, "the last 100 KB bin (3.9-4 MB) holds a file"
    assert all(c <= 4 for c in h[4:]), "few files in every upper bin"
    short = [x for x in s if x <= fb.SHORT_MAX_BYTES]
    last_bin_file = max(s)
    ratio = sum(short) / last_bin_file
    assert 0.75 < ratio < 1.25, f"short files weigh {ratio:.2f} of one last-bin file"
    # Heavy-tailed in bytes: a sixth of the files carry 90 % of the bytes,
    # the mean is many times the median.
    big = sum(x for x in s if x > 400_000)
    assert big > 0.9 * sum(s)
    assert np.mean(s) > 20 * np.median(s)


def test_the_bin_midpoint_reference_reproduces_the_papers_t_i(base):
    ref = fb_ref = fs.bin_midpoint_reference(base, 1e6)
    for b, t in enumerate(PAPER_T_I):
        assert ref[b] == pytest.approx(t, abs=1e-9), (b, fb_ref)


def test_processor_sharing_of_three_files_by_hand():
    # 1, 2 and 3 Mbit at 1 Mb/s from t = 0: all three share until the first
    # has had 1 Mbit (t = 3 s), the other two then need 1 and 2 Mbit more at
    # 0.5 Mb/s each (t = 3 + 2 = 5 s), the last 1 Mbit alone (t = 6 s).
    t = fs.completions([125_000, 250_000, 375_000], 1e6)
    assert t.tolist() == pytest.approx([3.0, 5.0, 6.0])
    times, active = fs.active_curve([0, 0, 0], t)
    assert times.tolist() == pytest.approx([0.0, 3.0, 5.0, 6.0])
    assert active.tolist() == [3, 2, 1, 0]
    # The closed form for simultaneous starts: T_k = (sum_{j<k} s_j + (n-k+1) s_k)/C.
    s = np.sort(np.array([7_000, 120_000, 3_000, 950_000, 41_000], dtype=float))
    closed = [(s[:k].sum() + (len(s) - k) * s[k]) * 8 / 2e6 for k in range(len(s))]
    assert fs.completions(s, 2e6).tolist() == pytest.approx(closed)


def test_processor_sharing_with_arrivals():
    # A (2 Mbit) alone for 1 s gets 1 Mbit; B (1 Mbit) arrives: both have
    # 1 Mbit left at 0.5 Mb/s each and finish together at t = 3 s.
    assert fs.completions([250_000, 125_000], 1e6, [0.0, 1.0]).tolist() == pytest.approx([3.0, 3.0])
    # An idle gap: the second transfer starts on an empty link.
    assert fs.completions([125_000, 125_000], 1e6, [0.0, 5.0]).tolist() == pytest.approx([1.0, 6.0])
    # Work is conserved: the last completion of a busy period is total work / C.
    sizes = [1_000 * (i % 17 + 1) for i in range(50)]
    arr = [0.005 * i for i in range(50)]  # each transfer needs >= 8 ms: never idle
    t = fs.completions(sizes, 1e6, arr)
    assert max(t) == pytest.approx(sum(sizes) * 8 / 1e6)
    assert all(ti >= a for ti, a in zip(t, arr))
    assert not any(math.isnan(x) for x in t)
