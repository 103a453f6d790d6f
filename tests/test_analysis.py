"""Measurements on synthetic traces (no simulator needed)."""

import numpy as np
import pytest

from dumbbell.run.analysis import hold_weights, inter_dequeue_deviation, time_weighted_cdf, time_weighted_quantiles

PKT_PS = 120_000_000  # 1500 B at 100 Mb/s


def test_time_weighted_quantiles():
    # 0 packets for 9 s, then 100 packets for 1 s: the median is 0, p95 is 100.
    t = np.array([0, 9_000_000_000_000])
    q = np.array([0, 100])
    w = hold_weights(t, 10_000_000_000_000)
    assert list(w) == [9e12, 1e12]
    assert time_weighted_quantiles(q, w, (0.5, 0.95)) == [0.0, 100.0]
    x, cdf = time_weighted_cdf(q, w)
    assert list(x) == [0, 100] and cdf == pytest.approx([0.9, 1.0])


def test_back_to_back_pairs_only():
    # Three packets back to back, an idle gap, then two more back to back.
    deq = np.array([0, PKT_PS, 2 * PKT_PS, 10 * PKT_PS, 11 * PKT_PS])
    size = np.full(5, 1500)
    # Every change: occupancy (waiting packets) after each event.
    trace_t = np.array([0, PKT_PS, 2 * PKT_PS, 10 * PKT_PS - 5, 10 * PKT_PS, 11 * PKT_PS])
    trace_q = np.array([2, 1, 0, 1, 1, 0])
    dev, gaps = inter_dequeue_deviation(deq, size, 100_000_000, trace_t, trace_q)
    assert list(gaps) == [PKT_PS, PKT_PS, PKT_PS]  # the idle gap is not a pair
    assert list(dev) == [0.0, 0.0, 0.0]


def test_slow_link_shows_deviation():
    deq = np.array([0, PKT_PS * 2, PKT_PS * 3])  # the second packet left 100 % late
    dev, _ = inter_dequeue_deviation(deq, np.full(3, 1500), 100_000_000, np.array([0]), np.array([5]))
    assert list(dev) == [100.0, 0.0]


def test_sampled_trace_is_conservative():
    deq = np.arange(6) * PKT_PS
    size = np.full(6, 1500)
    # One sample at 0 showing 2 waiting packets: it vouches for the first
    # pairs only (dequeues since the sample, itself included, use them up).
    dev, gaps = inter_dequeue_deviation(deq, size, 100_000_000, np.array([0]), np.array([2]), trace_sampled=True)
    assert gaps.size == 1
    dev, gaps = inter_dequeue_deviation(deq, size, 100_000_000, np.array([0]), np.array([9]), trace_sampled=True)
    assert gaps.size == 5
