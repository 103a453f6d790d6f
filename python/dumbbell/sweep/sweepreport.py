"""The HTML report of any sweep in a store: ``dumbbell report STORE --sweep NAME``.

A sweep (``dumbbell sweep``, :func:`dumbbell.sweep`, or an experiment's runs
under ``dumbbell reproduce``) leaves one catalog row per run in its store,
labelled with the sweep's name (``sweep:<scenario>`` unless named) and its
grid point. This report reads those rows only (no run's tables), groups the
runs by grid point and shows, for every summary metric of the catalog, the
mean over the repetitions and the half-width of its 95 % Student-t interval:

- a table, one row per point: its parameters, runs ok and failed, goodput
  (Mb/s, every flow over one window: :mod:`dumbbell.run.goodput`), Jain's
  fairness index, retransmissions, timeouts, packets dropped;
- one figure per metric against the parameter with the most values (the
  x axis; a numeric one if there is one), one line per combination of the
  other parameters, with the interval as error bars.

It is the experiment report's page (:mod:`dumbbell.sweep.report`: plain HTML, the
style sheet inline, PNG figures beside it, written atomically), so it opens
offline, in any browser.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..suggest import did_you_mean

__all__ = ["write_sweep_report", "sweep_points", "METRICS"]

METRICS: tuple[tuple[str, str, float], ...] = (
    ("goodput_bps", "goodput (Mb/s)", 1e-6),
    ("fairness", "Jain's fairness index", 1.0),
    ("retransmits", "retransmissions", 1.0),
    ("timeouts", "timeouts", 1.0),
    ("packets_dropped", "packets dropped", 1.0),
)
"""Catalog column, label with unit, scale: what the report shows per point."""

_LEVEL = 0.95


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip("-") or "sweep"


def sweep_names(store: Any) -> list[str]:
    """Every label with runs in the store's catalog, most runs first."""
    df = store.query("SELECT experiment, count(*) AS n FROM runs WHERE experiment IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1")
    return [str(x) for x in df["experiment"].to_list()] if df.height else []


def resolve_name(store: Any, name: str) -> str:
    """The catalog label of the sweep ``name`` (``pair`` finds ``sweep:pair``);
    :class:`ConfigError` naming ``--sweep`` if there is none."""
    names = sweep_names(store)
    for candidate in (name, f"sweep:{name}"):
        if candidate in names:
            return candidate
    short = [n.removeprefix("sweep:") for n in names]
    hint = did_you_mean(name.removeprefix("sweep:"), short)
    raise ConfigError("--sweep", f"no sweep {name!r} in {store.root}{hint} (have: {', '.join(names[:10]) or 'none'})")


def _point(text: Any) -> dict[str, Any]:
    try:
        p = json.loads(text) if isinstance(text, str) else text
    except ValueError:
        p = text
    return dict(p) if isinstance(p, Mapping) else {"point": json.dumps(p, sort_keys=True)}


def _cell(v: Any) -> Any:
    return v if isinstance(v, (int, float, str, bool)) or v is None else json.dumps(v, sort_keys=True)


def sweep_points(store: Any, label: str) -> tuple[list[str], list[dict[str, Any]]]:
    """(parameter names, one row per grid point) of the sweep ``label``:
    parameters, ``runs``, ``failed``, and per metric its mean and ``_ci``."""
    from .intervals import mean_ci

    # every column: a catalog written before a metric existed (fairness) lacks it, and reads as None
    df = store.query("SELECT * FROM runs WHERE experiment = ? ORDER BY point, rep", [label])
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in df.iter_rows(named=True):
        groups.setdefault(r["point"] if isinstance(r["point"], str) else json.dumps(r["point"]), []).append(r)
    params: list[str] = []
    rows = []
    for key, runs in groups.items():
        point = {k: _cell(v) for k, v in _point(key).items()}
        for k in point:
            if k not in params:
                params.append(k)
        ok = [r for r in runs if r["status"] == "ok"]
        row: dict[str, Any] = {**point, "runs": len(ok), "failed": len(runs) - len(ok)}
        for m, _, _ in METRICS:
            vals = [float(r[m]) for r in ok if r.get(m) is not None]
            mean, half, _ = mean_ci(vals, _LEVEL) if vals else (None, None, 0)
            if half is not None and mean is not None and math.isfinite(half) and abs(half) <= 1e-9 * max(abs(mean), 1e-300):
                half = 0.0  # equal values: the rounding noise of the standard deviation
            row[m], row[f"{m}_ci"] = mean, half
        rows.append(row)
    x = _x_param(params, rows)
    if x is not None:  # the x axis's parameter first (the catalog keeps a point's keys sorted by name)
        params = [x, *(p for p in params if p != x)]
    rows.sort(key=lambda r: tuple(_sort_key(r.get(p)) for p in params))
    return params, rows


def _sort_key(v: Any) -> tuple[int, Any]:
    m = _magnitude(v)
    return (0, m) if m is not None else (1, str(v))


def _magnitude(v: Any) -> float | None:
    """A parameter value as a number: numbers as they are, rates and times
    written with units (``"10Mbps"``, ``"75us"``) in bit/s and seconds."""
    from ..scenario.units import parse_rate_bps, parse_seconds

    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    for parse in (parse_rate_bps, parse_seconds):
        try:
            return float(parse(v))
        except (ValueError, TypeError):
            continue
    return None


def _x_param(params: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> str | None:
    """The parameter to put on the x axis: the one with the most distinct
    values, ordered ones (numbers, rates, times) first."""
    best: tuple[int, int, int] | None = None
    pick = None
    for i, p in enumerate(params):
        values = {json.dumps(r.get(p), sort_keys=True) for r in rows}
        numeric = all(_magnitude(r.get(p)) is not None for r in rows)
        score = (len(values), int(numeric), -i)
        if best is None or score > best:
            best, pick = score, p
    return pick


def _figure(params: Sequence[str], rows: Sequence[Mapping[str, Any]], metric: str, label: str, scale: float,
            title: str, path: Path) -> bool:
    """One metric against the x parameter; False if there is nothing to draw."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..run.plots import _save

    x = _x_param(params, rows)
    drawn = [r for r in rows if r.get(metric) is not None]
    if x is None or not drawn:
        return False
    # numbers on a numeric axis; rates and times with units, and names, as
    # ticks in their order (rows are sorted by magnitude)
    numeric = all(isinstance(r.get(x), (int, float)) and not isinstance(r.get(x), bool) for r in drawn)
    ordered = all(_magnitude(r.get(x)) is not None for r in drawn)
    order = [str(r.get(x)) for r in rows]
    ticks = [] if numeric else sorted({str(r.get(x)) for r in drawn}, key=order.index)
    others = [p for p in params if p != x]
    series: dict[str, list[Mapping[str, Any]]] = {}
    for r in drawn:
        name = ", ".join(f"{p}={r.get(p)}" for p in others) or metric
        series.setdefault(name, []).append(r)
    fig = Figure(figsize=(8.0, 4.0), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    for name, part in series.items():
        xs = [float(r[x]) if numeric else ticks.index(str(r[x])) for r in part]
        ys = [r[metric] * scale for r in part]
        err = [(r.get(f"{metric}_ci") or 0.0) * scale if math.isfinite(r.get(f"{metric}_ci") or 0.0) else 0.0
               for r in part]
        # a line only where the x values have an order (numbers, rates, times); names get points
        ax.errorbar(xs, ys, yerr=err, marker="o", markersize=4, linewidth=1.0, capsize=3, label=name,
                    linestyle="-" if ordered else "none")
    if not numeric:
        labels = [t if len(t) <= 28 else t[:25] + "..." for t in ticks]
        ax.set_xticks(range(len(ticks)), labels)
        if sum(len(t) for t in labels) > 60:  # they would overlap side by side
            ax.tick_params(axis="x", labelrotation=30, labelsize=7)
            for tick in ax.get_xticklabels():
                tick.set_horizontalalignment("right")
    ax.set_xlabel(x)
    ax.set_ylabel(label)
    ax.set_title(f"{title}: {label} (mean, 95 % interval)", fontsize=10)
    ax.grid(alpha=0.3)
    if len(series) > 1 or others:
        ax.legend(fontsize=7)
    _save(fig, path)
    return True


def _interval(mean: Any, half: Any, scale: float) -> str:
    from .pointtable import interval

    if mean is None:
        return "–"
    h = None if half is None or not math.isfinite(half) else half * scale
    return interval(mean * scale, h)


def write_sweep_report(store_dir: str | Path, name: str, out_dir: str | Path | None = None) -> Path:
    """Writes the report of the sweep ``name`` of the store at ``store_dir``
    into ``out_dir`` (default ``STORE/reports/<name>/``) and returns its
    ``index.html``."""
    from .report import _page, _fmt
    from .store import Store, atomic_write_text

    store = Store(store_dir).require()
    label = resolve_name(store, name)
    params, rows = sweep_points(store, label)
    out = Path(out_dir) if out_dir is not None else store.root / "reports" / _slug(label)
    out.mkdir(parents=True, exist_ok=True)
    figures = []
    for metric, mlabel, scale in METRICS:
        path = out / f"{metric}.png"
        if _figure(params, rows, metric, mlabel, scale, label, path):
            figures.append((path.name, mlabel))
    title = label if label.startswith("sweep:") else f"sweep {label}"
    runs = sum(r["runs"] + r["failed"] for r in rows)
    failed = sum(r["failed"] for r in rows)
    reps = sorted({r["runs"] + r["failed"] for r in rows})
    head = "".join(f"<th>{html.escape(p)}</th>" for p in params)
    head += "<th>runs</th>" + "".join(f"<th>{html.escape(lab)}</th>" for _, lab, _ in METRICS)
    body = []
    for r in rows:
        cells = "".join(f"<td class=\"t\">{_fmt(r.get(p))}</td>" for p in params)
        cells += f"<td>{r['runs']}{' (' + str(r['failed']) + ' failed)' if r['failed'] else ''}</td>"
        cells += "".join(f"<td>{html.escape(_interval(r.get(m), r.get(m + '_ci'), s))}</td>" for m, _, s in METRICS)
        body.append(f"<tr>{cells}</tr>")
    values = {p: list(dict.fromkeys(str(r.get(p)) for r in rows)) for p in params}  # in the table's order
    facts = [("store", str(store.root)), ("runs", f"{runs} ({failed} failed)"),
             ("points", str(len(rows))), ("repetitions per point", ", ".join(map(str, reps)) or "–")]
    facts += [(f"parameter {p}", ", ".join(vs)) for p, vs in values.items()]
    parts = [
        f"<h1>dumbbell: {html.escape(title)}</h1>",
        "<p class=\"sub\">Each metric is the mean over a point's repetitions ± the half-width of its 95 % "
        "Student-t interval (0 when every repetition gave the same value, – with one repetition). Goodput is "
        "every flow's delivered bytes over one window, from the first flow's start to the last flow's end; "
        "fairness is Jain's index of the rates the flows got while each ran.</p>",
        "<dl>" + "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in facts) + "</dl>",
        "<h2>Metrics per point</h2>",
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>",
    ]
    if figures:
        parts.append("<h2>Figures</h2>")
        for f, mlabel in figures:
            parts.append(f"<figure><img src=\"{html.escape(f)}\" alt=\"{html.escape(mlabel)}\" loading=\"eager\">"
                         f"<figcaption>{html.escape(mlabel)} against {html.escape(_x_param(params, rows) or '')}"
                         "</figcaption></figure>")
    parts.append("<p class=\"sub\">The runs themselves: <code>dumbbell store sql --store "
                 f"{html.escape(str(store.root))} \"SELECT * FROM runs WHERE experiment = "
                 f"'{html.escape(label)}'\"</code>.</p>")
    return atomic_write_text(out / "index.html", _page(f"dumbbell: {title}", "\n".join(parts)))
