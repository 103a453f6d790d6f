"""Peak RSS of recording-heavy runs against their recording budget (issue 30).

Each scenario runs in a fresh subprocess (so its peak is its own):
``python tools/memory/peak_rss.py`` prints, per scenario and path, the
recorded tables' size (the DataFrames' ``estimated_size``), the process's
peak RSS above its RSS just before the run, and their ratio; and the ratio
to the core's columns as handed over (numeric buffers and 4-byte string
codes: what ``record.max_bytes`` counts). Paths: ``result`` (``dumbbell.run``: every table as a
DataFrame, what ``dumbbell run --out`` writes), ``json`` (``dumbbell run
--json`` without --out: flows, queues and summary only), ``store`` (the
sweep engine's worker: every table to Parquet bytes).
"""

from __future__ import annotations

import json
import subprocess
import sys

SCENARIOS = {
    # per-packet dequeue times and a queue trace of a 1 Gb/s bottleneck
    "queue-trace": "dequeues",
    # 64 flows sampled every 100 us with TCP variables
    "flow-samples": "samples",
    # cwnd at every ACK and the drop log of a lossy 1 Gb/s link
    "every-ack": "every_ack",
}

CHILD = r"""
import json, resource, sys
import dumbbell as db

def scenario(kind):
    if kind == "dequeues":
        s = db.star(["a", "b", "c"], rate="1Gbps", delay="75us", duration_s=3.0, name="dequeues")
        for h in ("a", "b"):
            s.add_flow(db.TcpFlow(name=f"{h}->c", src=h, dst="c", cc="cubic"))
        s.record.queues.append(db.QueueRecord(node="s1", peer="c", dequeue_times=True))
        return s
    if kind == "samples":
        hosts = [f"h{i}" for i in range(64)] + ["c"]
        s = db.star(hosts, rate="1Gbps", delay="75us", duration_s=0.4, name="samples")
        for h in hosts[:-1]:
            s.add_flow(db.TcpFlow(name=f"{h}->c", src=h, dst="c", cc="reno"))
        s.record.flow_sample_s = 1e-4
        s.record.tcp_vars = True
        return s
    s = db.star(["a", "b", "c"], rate="1Gbps", delay="75us", duration_s=3.0, name="every-ack")
    s.link("c", "s1").loss_ba = 0.002
    for h in ("a", "b"):
        s.add_flow(db.TcpFlow(name=f"{h}->c", src=h, dst="c", cc="cubic"))
    s.record.cwnd_every_ack = True
    s.record.drop_log = True
    return s

def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])

def hwm_reset():
    # resets VmHWM to the current RSS (Linux >= 4.0)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")

def hwm_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])

kind, path = sys.argv[1], sys.argv[2]
s = scenario(kind)
cfg = s.to_core()
# warm up every library the path uses, on a tiny run
tiny = s.model_copy(update={"duration_s": 0.001})
from dumbbell.sweep import compute
compute(tiny.to_core())
db.run(tiny)
import gc; gc.collect()
base = rss_kib(); hwm_reset()
if path == "result":
    res = db.run(s)
    size = sum(df.estimated_size() for df in res.tables.values())
elif path == "phases":
    from dumbbell import _native
    from dumbbell.run import tables_from_native
    raw = _native.run_json(json.dumps(cfg), _native.RunHandle(), None)
    # the core's columns as handed over: numeric buffers, string codes
    raw_bytes = sum(len(d[0]) if t == "strdict" else len(d) for cols in raw.values() for t, d in cols.values())
    h1 = hwm_kib(); r1 = rss_kib(); hwm_reset()
    tables = tables_from_native(raw)
    h2 = hwm_kib(); r2 = rss_kib()
    size = sum(df.estimated_size() for df in tables.values())
    print(json.dumps({"base": base, "sim_peak": h1, "after_sim": r1, "conv_peak": h2, "after_conv": r2,
                      "raw_bytes": raw_bytes, "tables": size}))
    sys.exit(0)
elif path == "json":
    res = db.run(s)
    doc = json.dumps({"summary": res.summary, "flows": res.flows.to_dicts(), "queues": res.queues.to_dicts()})
    size = None
else:
    out = compute(cfg)
    assert out["status"] == "ok", out["error"]
    size = None
peak = hwm_kib()
print(json.dumps({"base_kib": base, "peak_kib": peak, "tables_bytes": size}))
"""


def measure(kind: str, path: str) -> dict:
    p = subprocess.run([sys.executable, "-c", CHILD, kind, path], capture_output=True, text=True, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    for name, kind in SCENARIOS.items():
        full = measure(kind, "result")
        tables = full["tables_bytes"]
        core = measure(kind, "phases")["raw_bytes"]
        print(f"{name:13s} the core's columns {core / 1e6:8.1f} MB (what record.max_bytes counts)", flush=True)
        for path in ("result", "json", "store"):
            m = full if path == "result" else measure(kind, path)
            extra = (m["peak_kib"] - m["base_kib"]) * 1024
            print(f"{name:13s} {path:7s} tables {tables / 1e6:8.1f} MB  peak above base {extra / 1e6:8.1f} MB  "
                  f"ratio {extra / tables:5.2f}  (to the core's columns {extra / core:5.2f})", flush=True)


if __name__ == "__main__":
    main()
