"""The HTML report of reproduced experiments: an index and one page per
experiment, readable offline.

``dumbbell reproduce NAME --out DIR/NAME`` leaves in its directory the
tables (``result.json``), the figures (PNG), ``meta.json`` (what was run:
experiment, paper, scale, seed, simulator version, parameters, setup) and
``timings.json`` (wall time, runs computed and taken from the store,
simulated packets per second). :func:`write_report` turns a directory of
such directories into ``index.html`` and ``NAME/index.html``.

Choices: plain HTML with the style sheet inline and no script, so a page
opens from a file, a mail attachment or an archive with no network, and
shows the same thing in every browser; figures are the PNG files beside
the page (``<img src="fig.png">``), not re-encoded. Pages are written
atomically.

Agreement with the paper, per published number (the ``paper`` table), is
:func:`agreement`: one tolerance policy for equalities and inequalities,
written once in ``docs/experiments/README.md#verdicts-and-the-tolerance-policy``.
Each claim's verdict, cause and reason come from :mod:`dumbbell.experiments.claims`;
the pages count the verdicts, and the differences by cause.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..experiments.claims import INTERVAL_MAX, TOLERANCE, agreement, tolerance_of  # noqa: F401 (their home before issue 28)
from .store import atomic_write_text

__all__ = ["write_report", "agreement", "TOLERANCE"]

def _num(v: Any) -> float | None:
    if v is None:
        return None
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:88rem;padding:0 1rem;
color:#1d2330;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d8dce4}
.sub{color:#5a6275;margin-top:0;max-width:72rem}
table{border-collapse:collapse;font-size:.8rem;margin:.6rem 0;max-width:100%}
th,td{border:1px solid #d8dce4;padding:.2rem .3rem;text-align:right}
td{white-space:nowrap}
th{background:#f1f3f7;text-align:center;overflow-wrap:break-word}
table.wide{font-size:.72rem}table.wide th,table.wide td{padding:.15rem .2rem}table.wide th{overflow-wrap:anywhere}
td.t{text-align:left;white-space:normal;overflow-wrap:break-word}
td.src{text-align:left;white-space:normal;min-width:12rem;overflow-wrap:anywhere}
tr.agree td{background:#e6f4ea}tr.differ td{background:#fdecea}tr.na td{color:#5a6275}
.badge{display:inline-block;border-radius:.6rem;padding:0 .5rem;font-size:.8rem;white-space:nowrap}
.agree .badge,.badge.agree{background:#1e7e34;color:#fff}.differ .badge,.badge.differ{background:#b3261e;color:#fff}
.badge.na{background:#c9ced8}.basis .badge,.badge.basis{background:#3d6a8c;color:#fff}
figure{margin:1rem 0}figure img{max-width:100%;height:auto;border:1px solid #d8dce4}
figcaption{color:#5a6275;font-size:.85rem}
dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
pre{background:#f6f7f9;padding:.8rem;overflow-x:auto;font-size:.8rem;white-space:pre-wrap}
a{color:#1f5fbf}
"""
# At 1400 px (issue 27) every table fits its page: text cells and headers
# wrap between words and after `_ , / : =` (_breakable), numbers stay on
# one line, and the verdict and source cells wrap instead of running off.


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if not math.isfinite(v):
            return "–"
        if v != 0 and (abs(v) >= 1e6 or abs(v) < 1e-3):
            return f"{v:.4g}"
        return f"{v:.4g}"
    return html.escape(str(v))


def _breakable(text: str) -> str:
    """Escaped text that may break after ``_ , / : =`` (identifiers, JSON)
    as well as between words."""
    return re.sub(r"([_,/:=])", r"\1<wbr>", html.escape(text))


def _head(name: str) -> str:
    """A column name for a header cell."""
    return _breakable(name)


def _text_cell(v: Any) -> str:
    return f"<td class=\"t\">{_breakable(v) if isinstance(v, str) else _fmt(v)}</td>"


def _table(rows: Sequence[Mapping[str, Any]], cols: Sequence[str] | None = None, text_cols: Sequence[str] = ()) -> str:
    if not rows:
        return "<p>(no rows)</p>"
    cols = list(cols or rows[0].keys())
    head = "".join(f"<th>{_head(c)}</th>" for c in cols)
    body = []
    for r in rows:
        # text (names, JSON) wraps; numbers stay on one line
        cells = "".join(_text_cell(r.get(c)) if c in text_cols or isinstance(r.get(c), str)
                        else f"<td>{_fmt(r.get(c))}</td>" for c in cols)
        body.append(f"<tr>{cells}</tr>")
    wide = " class=\"wide\"" if len(cols) > WIDE_COLUMNS else ""
    return f"<table{wide}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _rows_tables(rows: Sequence[Mapping[str, Any]]) -> str:
    """The measurements, one table per ``part`` (in order of appearance),
    each without the columns that are empty in every one of its rows: an
    experiment's parts measure different things, and one table of every
    column no longer fits 1400 px."""
    if not rows or "part" not in rows[0]:
        return _table(rows, text_cols=())
    groups: dict[Any, list[Mapping[str, Any]]] = {}
    for r in rows:
        groups.setdefault(r.get("part"), []).append(r)
    out = []
    for part, group in groups.items():
        cols = [c for c in group[0].keys() if c != "part" and any(r.get(c) is not None for r in group)]
        out.append(f"<h3>{html.escape(str(part))} ({len(group)} rows)</h3>")
        out.append(_table(group, cols=cols, text_cols=()))
    return "".join(out)


WIDE_COLUMNS = 16
"""A table of more columns is set smaller, so that it fits 1400 px."""


WIDE_CLAIM_COLUMNS = 12
"""A claims table of more columns is set smaller (its last two columns are sentences)."""


_CLASS = {"agrees": "agree", "differs": "differ", "calibrated": "basis", "by construction": "basis"}


def _paper_table(paper: Sequence[Mapping[str, Any]], experiment: str = "") -> tuple[str, dict[str, int]]:
    """The claims as an HTML table, and the counts of :func:`dumbbell.experiments.claims.counts`
    (each verdict, and each cause of ``differs``)."""
    from ..experiments.claims import ACCOUNT_MEASURES, counts, not_scored_of

    n = counts(paper)
    not_scored = not_scored_of(experiment)
    n["not scored"] = len(not_scored)
    if not paper:
        return "<p>(the paper states no number this experiment measures)</p>", n
    keys = [k for k in paper[0] if k not in ("relation", "value", "value_ci", "ours", "ours_ci", "source", "verdict",
                                              "cause", "reason", "doc", "basis", "basis_note", "not_run",
                                              # printed in the reason (claims.judge appends them)
                                              "sensitivity", "sensitivity_lo", "sensitivity_hi", "ours_alt",
                                              "paper_se", "first_start_frac")
            and k not in ACCOUNT_MEASURES]
    head = "".join(f"<th>{_head(k)}</th>" for k in keys)
    head += "<th>paper</th><th>ours</th><th>relative error</th><th>verdict</th><th>source</th>"
    body = []
    for p in paper:
        label = p.get("verdict") or ""
        if not label:
            a = agreement(p.get("relation", "="), p.get("value"), p.get("ours"), p.get("value_ci"), p.get("ours_ci"))
            label = {"agree": "agrees", "differ": "differs"}.get(a or "", "not run at this scale")
        cls = _CLASS.get(label, "na")
        v, o = _num(p.get("value")), _num(p.get("ours"))
        rel = f"{(o - v) / abs(v):+.1%}" if v not in (None, 0.0) and o is not None else "–"
        paper_cell = f"{html.escape(str(p.get('relation', '')))} {_fmt(p.get('value'))}"
        if _num(p.get("value_ci")):
            paper_cell += f" ± {_fmt(p.get('value_ci'))}"
        ours_cell = _fmt(p.get("ours"))
        if _num(p.get("ours_ci")):
            ours_cell += f" ± {_fmt(p.get('ours_ci'))}"
        badge = label + (f" ({p['cause']})" if p.get("cause") else "")
        why = ""
        if p.get("reason"):
            why = f"<br>{html.escape(p['reason'])}"
            if p.get("doc"):
                why += f" (<code>{html.escape(p['doc'])}</code>)"
        cells = "".join(_text_cell(p.get(k)) for k in keys)
        cells += (f"<td>{paper_cell}</td><td>{ours_cell}</td><td>{rel}</td>"
                  f"<td class=\"src\"><span class=\"badge {cls}\">{html.escape(badge)}</span>{why}</td>"
                  f"<td class=\"src\">{_fmt(p.get('source'))}</td>")
        body.append(f"<tr class=\"{cls}\">{cells}</tr>")
    # the verdict and source cells hold sentences: set small sooner than a table of numbers
    wide = " class=\"wide\"" if len(keys) + 5 > WIDE_CLAIM_COLUMNS else ""
    table = f"<table{wide}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    if not_scored:
        table += ("<p class=\"sub\">Claims of the paper not scored:</p><ul>" + "".join(
            f"<li>{html.escape(c)}: {html.escape(w)}</li>" for c, w in not_scored) + "</ul>")
    return table, n


def count_text(n: Mapping[str, int]) -> str:
    """"5 agree, 3 differ (2 testbed, 1 model), 1 calibrated, ..." from the
    counts of :func:`_paper_table`."""
    from ..experiments.claims import VERDICTS, cause_text

    parts = [f"{n.get('agrees', 0)} agree", f"{n.get('differs', 0)} differ"
             + (f" ({cause_text(n)})" if n.get("differs") else "")]
    parts += [f"{n[v]} {v}" for v in (*VERDICTS[2:], "not scored") if n.get(v)]
    return ", ".join(parts)


def _read(p: Path, default: Any) -> Any:
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return default


def _duration(s: Any) -> str:
    x = _num(s)
    if x is None:
        return "–"
    if x < 120:
        return f"{x:.1f} s"
    return f"{int(x // 3600)} h {int(x % 3600 // 60):02d} min" if x >= 3600 else f"{x / 60:.1f} min"


def _experiment_page(d: Path, index_href: str | None) -> tuple[dict[str, Any], str]:
    result = _read(d / "result.json", {})
    meta = _read(d / "meta.json", {})
    timing = _read(d / "timings.json", {})
    name = result.get("experiment") or meta.get("experiment") or d.name
    from ..experiments.papers import PAPERS

    if name in PAPERS:  # the one table of citations, whatever an older meta.json says
        meta = {**meta, "paper": PAPERS[name].citation, "id": PAPERS[name].label, "title": PAPERS[name].title}
    label = meta.get("id", "")
    title = f"{label} {name}".strip()
    paper_html, counts = _paper_table(result.get("paper") or [], name)
    images = (".png", ".svg", ".jpg", ".jpeg")
    figs = [f for f in (meta.get("figures") or sorted(p.name for p in d.glob("*.png"))) if f.lower().endswith(images)]
    parts = []
    if index_href:
        parts.append(f"<p><a href=\"{index_href}\">← all experiments</a></p>")
    parts.append(f"<h1>{html.escape(title)}: {html.escape(meta.get('title', ''))}</h1>")
    if meta.get("paper"):
        parts.append(f"<p class=\"sub\">Reproduces {html.escape(meta['paper'])}.</p>")
    if meta.get("note"):  # reproduce --tcp: runs under a TCP setting the paper did not use
        parts.append(f"<p class=\"sub\"><strong>Note: {html.escape(meta['note'])}.</strong></p>")
    facts = [
        ("scale", result.get("scale")), ("seed", result.get("seed")), ("simulator version", meta.get("version")),
        ("wall time", _duration(timing.get("wall_s"))),
        ("runs", (f"{timing.get('runs')} ({timing.get('computed')} computed, {timing.get('cached')} from the store, "
                  f"{timing.get('failed')} failed)") if timing.get("runs") is not None else None),
        ("simulated packets", f"{timing['sim_packets'] / 1e6:.1f} M" if _num(timing.get("sim_packets")) else None),
        ("packets per second", f"{timing['sim_packets_per_s'] / 1e6:.2f} M/s"
         if _num(timing.get("sim_packets_per_s")) else None),
        ("executor", timing.get("executor")),
        ("claims of the paper", count_text(counts) + " (calibrated and by-construction rows never count as "
                                                     "agreement)"),
    ]
    parts.append("<dl>" + "".join(f"<dt>{html.escape(k)}</dt><dd>{_fmt(v) if not isinstance(v, str) else html.escape(v)}</dd>"
                                  for k, v in facts if v is not None) + "</dl>")
    parts.append("<h2>The paper beside ours</h2>")
    parts.append("<p class=\"sub\">Green: agrees, by the tolerance policy of docs/experiments/README.md (= and the "
                 "inequalities within 5 % of the paper's value, ~ within 20 %); red: differs, with its cause (testbed, "
                 "paper, model, ours), its reason in this run's numbers and the section of docs/experiments/ that "
                 "explains it; grey-blue: calibrated or by construction (never counted as agreement).</p>")
    parts.append(paper_html)
    if figs:
        parts.append("<h2>Figures</h2>")
        for f in figs:
            parts.append(f"<figure><img src=\"{html.escape(f)}\" alt=\"{html.escape(f)}\" loading=\"eager\">"
                         f"<figcaption>{html.escape(f)}</figcaption></figure>")
    rows = result.get("rows") or []
    parts.append(f"<h2>Our measurements ({len(rows)} rows)</h2>")
    parts.append(_rows_tables(rows))
    extra = "".join(f", <a href=\"{html.escape(f)}\">{html.escape(f)}</a>" for f in meta.get("files") or [])
    parts.append(f"<p class=\"sub\">Also as <a href=\"rows.csv\">rows.csv</a> and <a href=\"paper.csv\">paper.csv</a>"
                 f"{extra}.</p>")
    if meta.get("params"):
        parts.append("<h2>Parameters</h2>")
        parts.append(f"<pre>{html.escape(json.dumps(meta['params'], indent=1, sort_keys=True))}</pre>")
    if meta.get("setup"):
        parts.append("<h2>Setup and differences from the paper</h2>")
        parts.append(f"<pre>{html.escape(meta['setup'])}</pre>")
    summary = {"name": name, "label": label, "title": meta.get("title", ""), "paper": meta.get("paper", ""),
               "surnames": PAPERS[name].surnames if name in PAPERS else "",
               "scale": result.get("scale"), "rows": len(rows), "counts": counts, "figures": len(figs),
               "wall_s": timing.get("wall_s"), "runs": timing.get("runs"), "failed": timing.get("failed"),
               "sim_packets_per_s": timing.get("sim_packets_per_s")}
    return summary, _page(f"dumbbell: {title}", "\n".join(parts))


def _experiment_dirs(root: Path) -> list[Path]:
    if (root / "result.json").exists():
        return [root]
    dirs = [p.parent for p in root.glob("*/result.json")]

    def order(d: Path) -> tuple[str, str]:
        meta = _read(d / "meta.json", {})
        return (meta.get("id") or "E9", d.name)

    return sorted(dirs, key=order)


def write_report(out_dir: str | Path) -> Path:
    """Writes the report of every experiment under ``out_dir`` (or of the one
    experiment ``out_dir`` holds) and returns the page to open first."""
    from ..errors import ConfigError

    root = Path(out_dir)
    dirs = _experiment_dirs(root)
    if not dirs:
        raise ConfigError("DIR", f"no reproduced experiment in {root} (expected NAME/result.json, "
                                 "as `dumbbell reproduce` writes)")
    single = dirs == [root]
    summaries = []
    for d in dirs:
        summary, page = _experiment_page(d, None if single else "../index.html")
        atomic_write_text(d / "index.html", page)
        summaries.append((d, summary))
    if single:
        return root / "index.html"
    rows = []
    for d, s in summaries:
        c = s["counts"]
        rows.append(
            f"<tr><td class=\"t\"><a href=\"{html.escape(d.name)}/index.html\">{html.escape((s['label'] + ' ' + s['name']).strip())}</a></td>"
            f"<td class=\"t\">{html.escape(s['title'])}</td><td>{_fmt(s['scale'])}</td><td>{s['rows']}</td>"
            f"<td>{s['figures']}</td><td class=\"t\"><span class=\"badge agree\">{c.get('agrees', 0)}</span> "
            f"<span class=\"badge differ\">{c.get('differs', 0)}</span> {html.escape(count_text(c))}</td>"
            f"<td>{_fmt(s['runs'])}</td><td>{_fmt(s['failed'])}</td><td>{_duration(s['wall_s'])}</td>"
            f"<td>{_fmt(s['sim_packets_per_s'] / 1e6 if _num(s['sim_packets_per_s']) else None)}</td></tr>"
        )
    total_wall = sum(_num(s["wall_s"]) or 0.0 for _, s in summaries)
    body = (
        "<h1>dumbbell: the papers' experiments</h1>"
        f"<p class=\"sub\">{len(summaries)} experiments, each reproducing one of the papers listed below ("
        + html.escape("; ".join(f"{s['label']} {s['surnames']}" for _, s in summaries if s['surnames']))
        + f"). {_duration(total_wall)} of wall time in all. "
        "Each page holds the figures, the paper's numbers beside ours, the parameters, the seed and the "
        "simulator version.</p>"
        "<table><thead><tr><th>experiment</th><th>what</th><th>scale</th><th>rows</th><th>figures</th>"
        "<th>paper vs ours (agree / differ; differences by cause)</th><th>runs</th><th>failed</th><th>wall time</th>"
        "<th>M packets/s</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
        "<h2>Papers</h2><ul>" + "".join(
            f"<li><b>{html.escape(s['label'])}</b> {html.escape(s['paper'])}</li>" for _, s in summaries if s["paper"]) +
        "</ul>"
    )
    return atomic_write_text(root / "index.html", _page("dumbbell: reproduced experiments", body))
