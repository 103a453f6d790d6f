"""Checks shared by the experiments' tests: every claim carries a verdict and
a reason in this run's numbers, every difference a cause and, unless it is
untraced, an account in a doc section that exists; and no output names a
paper by our copy's file number ("seed 00N")."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from dumbbell.experiments.claims import CAUSES, VERDICTS, anchors

from .conftest import REPO


def check_claims(rows: Iterable[Mapping[str, Any]], *texts: str) -> None:
    """``rows``: the ``paper`` table's records (from the result, JSON or CSV);
    ``texts``: the experiment's user-facing output (report, stderr, JSON)."""
    rows = list(rows)
    assert rows, "the experiment compares no claim"
    untraced = []
    for r in rows:
        assert r["verdict"] in VERDICTS, r
        assert r["reason"], f"a verdict without a reason: {r}"
        if r["verdict"] in ("agrees", "differs", "calibrated", "by construction"):
            # The reason is this run's numbers, not a canned sentence.
            assert f"ours {float(r['ours']):.4g} against the paper's" in r["reason"], r
        if r["verdict"] == "differs":
            assert r["cause"] in CAUSES, r
            assert r["doc"], f"a difference without an account in the docs: {r}"
            if r["cause"] == "ours":
                untraced.append(r)
        else:
            assert not r["cause"], r
        if r["doc"]:
            path, _, anchor = r["doc"].partition("#")
            doc = REPO / path
            assert doc.is_file(), r["doc"]
            assert anchor in anchors(doc.read_text()), f"no section #{anchor} in {path}"
    for text in texts:
        assert not re.search(r"seed[ -]?00\d", text, re.I), "a paper named by its file number"
    if untraced:
        pytest.xfail(f"{len(untraced)} differences with the paper are not yet traced (cause 'ours'; accounts in "
                     f"{', '.join(sorted({r['doc'] for r in untraced}))} whose condition this run does not show)")


def check_count_line(report: str, rows: Iterable[Mapping[str, Any]]) -> None:
    """The printed report ends its claims with the count of each verdict and
    of each cause of a difference."""
    rows = list(rows)
    n = {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS}
    m = re.search(r"Claims: (\d+) agrees?, (\d+) differs?( \(([^;)]*))?", report)
    assert m, report[-500:]
    assert (int(m.group(1)), int(m.group(2))) == (n["agrees"], n["differs"])
    if n["differs"]:
        for c in CAUSES:
            k = sum(r["verdict"] == "differs" and r["cause"] == c for r in rows)
            assert (f"{k} {c}" in (m.group(4) or "")) == bool(k), (c, k, m.group(0))
    for v in VERDICTS[2:]:
        if n[v]:
            assert f"{n[v]} {v}" in report, v
