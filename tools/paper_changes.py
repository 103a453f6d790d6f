"""What changed between two reproductions' ``paper`` tables (issues 23 and 24).

Given the ``paper.csv`` of a reproduction before and after a change, prints in
markdown: the verdict counts by cause before and after, the claim rows whose
number (``ours``) moved, by how much (relative), or whose verdict or cause
changed, the rows only one side has, and every remaining ``model`` difference
with its sensitivity text. This is what a closing note of issue 23 or 24 gives
per experiment.

A claim row is identified by its columns that name the claim (part, case,
metric, point, the paper's value, ...): every column both tables have except
those that hold our result or its account (:data:`RESULT_COLUMNS`). Each
argument is a ``paper.csv``, an experiment's output directory holding one, or
an output directory holding several experiments' directories (then every
experiment found on both sides is compared, by name).

    python3 tools/paper_changes.py BEFORE AFTER [--min-rel X]

``--min-rel`` leaves out rows whose ``ours`` moved by less than X (relative)
and whose verdict and cause stayed; 0 (the default) lists every change.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from collections import Counter
from pathlib import Path

# Columns that hold our result, its spread or its account: they may change for
# the same claim, so they do not identify it.
RESULT_COLUMNS = frozenset(
    {
        "ours",
        "ours_std_bps",
        "ours_alt",
        "ours_ci95",
        "ours_other",
        "ours_se",
        "ours_loo_lo",
        "ours_loo_hi",
        "rel_error",
        "rel_err",
        "role",
        "basis",
        "basis_note",
        "not_run",
        "source",
        "sensitivity",
        "sensitivity_lo",
        "sensitivity_hi",
        "first_start_frac",
        "paper_se",
        "verdict",
        "cause",
        "reason",
        "doc",
    }
)

Row = dict[str, str]


def read_table(path: Path) -> list[Row]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def find_tables(path: Path) -> dict[str, Path]:
    """Experiment name -> its ``paper.csv`` under ``path``."""
    if path.is_file():
        return {path.parent.name: path}
    if (path / "paper.csv").is_file():
        return {path.name: path / "paper.csv"}
    found = {d.name: d / "paper.csv" for d in sorted(path.iterdir()) if (d / "paper.csv").is_file()}
    if not found:
        raise SystemExit(f"paper_changes: no paper.csv in {path} nor in its directories")
    return found


def key_columns(before: list[Row], after: list[Row]) -> list[str]:
    """The columns both tables have that name a claim, in the after table's order."""
    if not after:
        return []
    theirs = set(before[0]) if before else set(after[0])
    return [c for c in after[0] if c in theirs and c not in RESULT_COLUMNS]


def row_key(row: Row, keys: list[str]) -> tuple[str, ...]:
    return tuple(row.get(k, "") for k in keys)


def label(row: Row, keys: list[str]) -> str:
    """A claim's name for a reader: its non-empty identifying values."""
    named = [f"{k}={row[k]}" for k in keys if row.get(k) and k not in ("metric", "relation", "value")]
    claim = " ".join(row.get(k, "") for k in ("metric", "relation", "value") if row.get(k))
    return "; ".join([claim, *named]) if named else claim


def as_float(text: str) -> float | None:
    try:
        x = float(text)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def relative_change(before: str, after: str) -> float | None:
    """(after − before) / |before|; None when either is not a number or before is 0."""
    b, a = as_float(before), as_float(after)
    if b is None or a is None or b == 0:
        return None
    return (a - b) / abs(b)


def verdict_cause(row: Row) -> str:
    v = row.get("verdict", "")
    c = row.get("cause", "")
    return f"{v} ({c})" if c else v


def counts(rows: list[Row]) -> Counter[str]:
    return Counter(verdict_cause(r) for r in rows)


# The order the reproductions' reports count verdicts in.
VERDICT_ORDER = ("agrees", "differs", "calibrated", "by construction", "not measurable", "not run at this scale")


def count_sentence(rows: list[Row]) -> str:
    """"15 agree, 67 differ (53 testbed, 13 model, 1 ours), 5 by construction (87 rows)": the
    closing note's form of the counts."""
    verdicts = Counter(r.get("verdict", "") for r in rows)
    causes = Counter(r.get("cause", "") or "no cause" for r in rows if r.get("verdict") == "differs")
    parts = []
    for v in sorted(verdicts, key=lambda v: (VERDICT_ORDER.index(v) if v in VERDICT_ORDER else len(VERDICT_ORDER), v)):
        n = verdicts[v]
        if v == "agrees":
            parts.append(f"{n} {'agrees' if n == 1 else 'agree'}")
        elif v == "differs":
            by = ", ".join(f"{causes[k]} {k}" for k in sorted(causes, key=lambda c: (-causes[c], c)))
            parts.append(f"{n} {'differs' if n == 1 else 'differ'} ({by})")
        else:
            parts.append(f"{n} {v or 'no verdict'}")
    return f"{', '.join(parts)} ({len(rows)} rows)"


def fmt_number(text: str) -> str:
    x = as_float(text)
    if x is None:
        return text or "—"
    return f"{x:.4g}"


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def counts_section(before: list[Row], after: list[Row]) -> list[str]:
    cb, ca = counts(before), counts(after)
    out = ["| verdict (cause) | before | after | change |", "| --- | ---: | ---: | ---: |"]
    for name in sorted(set(cb) | set(ca)):
        d = ca[name] - cb[name]
        out.append(f"| {name} | {cb[name]} | {ca[name]} | {d:+d} |" if d else f"| {name} | {cb[name]} | {ca[name]} | 0 |")
    out.append(f"| **rows** | {len(before)} | {len(after)} | {len(after) - len(before):+d} |")
    out += ["", f"Before: {count_sentence(before)}. After: {count_sentence(after)}."]
    return out


def moved_rows(before: list[Row], after: list[Row], keys: list[str], min_rel: float) -> list[tuple[Row, Row, float | None]]:
    """(before row, after row, relative change) for every matched row that changed."""
    old = {row_key(r, keys): r for r in before}
    moved = []
    for r in after:
        o = old.get(row_key(r, keys))
        if o is None:
            continue
        same_verdict = verdict_cause(o) == verdict_cause(r)
        if o.get("ours", "") == r.get("ours", "") and same_verdict:
            continue
        rel = relative_change(o.get("ours", ""), r.get("ours", ""))
        if same_verdict and rel is not None and abs(rel) < min_rel:
            continue
        moved.append((o, r, rel))
    moved.sort(key=lambda m: (verdict_cause(m[0]) == verdict_cause(m[1]), -abs(m[2] or 0.0)))
    return moved


def moved_section(moved: list[tuple[Row, Row, float | None]], keys: list[str]) -> list[str]:
    if not moved:
        return ["None."]
    out = ["| claim | ours before | ours after | change | verdict before | verdict after |", "| --- | ---: | ---: | ---: | --- | --- |"]
    for o, r, rel in moved:
        change = f"{rel:+.1%}" if rel is not None else ("—" if o.get("ours") == r.get("ours") else "n/a")
        vb, va = verdict_cause(o), verdict_cause(r)
        out.append(
            f"| {cell(label(r, keys))} | {fmt_number(o.get('ours', ''))} | {fmt_number(r.get('ours', ''))} | {change} "
            f"| {vb} | {'**' + va + '**' if va != vb else va} |"
        )
    return out


def unmatched_section(rows: list[Row], others: list[Row], keys: list[str]) -> list[str]:
    theirs = {row_key(r, keys) for r in others}
    lone = [r for r in rows if row_key(r, keys) not in theirs]
    if not lone:
        return ["None."]
    return [f"- {cell(label(r, keys))}: ours {fmt_number(r.get('ours', ''))}, {verdict_cause(r)}" for r in lone]


def model_section(after: list[Row], keys: list[str]) -> list[str]:
    model = [r for r in after if r.get("verdict") == "differs" and r.get("cause") == "model"]
    if not model:
        return ["None."]
    out = ["| claim | ours | sensitivity |", "| --- | ---: | --- |"]
    for r in model:
        sens = r.get("sensitivity", "") or "(none given)"
        out.append(f"| {cell(label(r, keys))} | {fmt_number(r.get('ours', ''))} | {cell(sens)} |")
    return out


def report(name: str, before: list[Row], after: list[Row], min_rel: float = 0.0) -> str:
    keys = key_columns(before, after)
    moved = moved_rows(before, after, keys, min_rel)
    lines = [f"## {name}", "", "### Verdict counts by cause", "", *counts_section(before, after), ""]
    lines += [f"### Rows that moved or changed verdict ({len(moved)})", "", *moved_section(moved, keys), ""]
    lines += ["### Rows only after (new claims)", "", *unmatched_section(after, before, keys), ""]
    lines += ["### Rows only before (gone)", "", *unmatched_section(before, after, keys), ""]
    lines += ["### Remaining `model` differences and their sensitivity", "", *model_section(after, keys), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path, help="paper.csv, an experiment's output directory, or a directory of them")
    ap.add_argument("after", type=Path, help="the same, after the change")
    ap.add_argument("--min-rel", type=float, default=0.0, help="leave out moves smaller than this (relative) that keep their verdict")
    args = ap.parse_args(argv)
    if args.min_rel < 0:
        ap.error("--min-rel must be at least 0")
    for p in (args.before, args.after):
        if not p.exists():
            ap.error(f"{p} does not exist")
    tb, ta = find_tables(args.before), find_tables(args.after)
    if len(tb) == 1 and len(ta) == 1:
        pairs = [(next(iter(ta)), next(iter(tb.values())), next(iter(ta.values())))]
    else:
        pairs = [(n, tb[n], ta[n]) for n in ta if n in tb]
        if not pairs:
            ap.error(f"no experiment on both sides (before: {sorted(tb)}, after: {sorted(ta)})")
    out = [report(n, read_table(b), read_table(a), args.min_rel) for n, b, a in pairs]
    sys.stdout.write("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
