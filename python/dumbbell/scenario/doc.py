"""The scenario format as a Markdown reference, generated from the models.

Every field of every scenario model with its type, its range (read from the
``Field`` constraints, the same ones validation enforces), its unit, its
default and its description. ``docs/scenario.md`` is this module's output;
a test keeps the two equal. After changing a model::

    python -m dumbbell.scenario.doc --write
"""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path
from typing import Any

import annotated_types as at
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from . import models as sc

__all__ = ["markdown", "DOC_PATH"]

DOC_PATH = Path(__file__).resolve().parents[3] / "docs" / "scenario.md"

_UNITS = [
    ("_bps", "bit/s"),
    ("_per_s", "per s"),
    ("_s", "s"),
    ("_ms", "ms"),
    ("_us", "µs"),
    ("_bytes", "bytes"),
    ("_pkts", "packets"),
    ("_pct", "%"),
    ("_percent", "%"),
    ("_per_ms", "per ms"),
]

_INTRO = """# Scenario format

Every field of a scenario (TOML file, `dumbbell.Scenario`, or plain data),
generated from the models in `python/dumbbell/scenario/` by
`python -m dumbbell.scenario.doc --write`; do not edit by hand.

Rules for every field: unknown fields are errors, with the closest known
name (`links[4].dealy_s: unknown field (did you mean 'delay_s'?)`; unknown
controls, queue kinds and node names likewise); numbers are strict (`true`
is not 1, `"3"` is not 3, `2.0` is not an integer); every float is finite;
every number has the range below, which the core (`validate.rs`) enforces
too, for documents that do not come through Python. Rates (`*_bps`) also
take strings with units (`"100Mbps"`, `"10G"`, `"9600bps"`), times (`*_s`)
strings such as `"75us"` or `"20s"`. **A string must carry its unit**: `"50"`
is refused (`links[0].rate_bps: the rate '50' has no unit: write e.g.
'50Mbps' ...`); a plain number is bit/s or seconds. A value outside its
range is refused before anything runs, with one error naming the field
(`links[2].rate_bps: must be at most ...`).

A value inside its range but far from any network experiment is used, with
one warning line naming the field (a `dumbbell.DumbbellWarning`): a rate
below 1 kb/s (`rate_bps = 50` is 50 bit/s), a delay above 10 s
(`delay_s = 13` is 13 s); a run in which no flow delivered any data warns
too (`flows: no flow delivered any data ...`). A sweep warns once per such
value, naming the grid points that hold it.

Nodes are listed in `nodes` (`{ name = "s1", kind = "switch" }`), or, as a
shorthand, by kind: `hosts = ["a", "b", "c"]` and `switches = ["s1"]` add a
host or a switch of each name (after those of `nodes`, in that order; a name
may appear once). `examples/dctcp_star.toml` is written so.

Two checks concern the whole run, in the core, before it starts: the
**horizon** (the duration plus the longest delay anything can schedule: a
link's propagation, jitter and serialization, an RTO, a delayed-ACK timer, a
sampling period) must fit in the simulated clock, 2^64 ps (about 213 days);
and the **recording estimate** (periodic recorders: `record.flow_sample_s`,
`record.queues[].sample_s`) must fit in `record.max_bytes`. Recorders whose
size depends on the traffic are held to the same budget while the run goes.

## TOML and Python, side by side

A field has the same name in both: a TOML key is a keyword argument of the
model, and a table with `kind` is the model of that name.

| TOML | Python |
| --- | --- |
| `duration_s = 3.0` | `db.Scenario(name=..., duration_s=3.0, ...)` or `db.star(..., duration_s=3)` |
| `[[links]]` `a = "a"` `b = "s1"` `rate_bps = "100Mbps"` | `db.Link(a="a", b="s1", rate_bps="100Mbps")`; on a built scenario `s.link("a", "s1").rate_bps = "100Mbps"` (parsed and checked on assignment) |
| `[links.queue_ba]` `kind = "red"` `min_th = 30000` ... | `s.set_queue("s1", "c", db.Red(min_th=30000, ...))` |
| `[[flows]]` `src = "a"` `dst = "c"` `cc = "dctcp"` | `s.add_flow(db.TcpFlow(src="a", dst="c", cc="dctcp"))` |
| `cc = { kind = "cubic", hystart = false }` | `cc=db.Cubic(hystart=False)` |
| `tcp = { mss_bytes = 1460 }` | `tcp=db.TcpOptions(mss_bytes=1460)` |
| `[record]` `flow_sample_s = "10ms"` | `s.record.flow_sample_s = "10ms"` |
| `[[record.queues]]` `node = "s1"` `peer = "c"` | `s.record.queues.append(db.QueueRecord(node="s1", peer="c"))` |

`s.to_toml()` prints any scenario built in Python as this file format, and
`db.Scenario.from_toml(path)` reads one; `s.to_core()` shows the document
the core receives (integer picoseconds and bit/s). `examples/dctcp_star.toml`
is the README's Python scenario as a file.

In a link, `queue_ab` is the queue of `a`'s port toward `b` (traffic from
`a` to `b` waits there) and `queue_ba` the queue of `b`'s port toward `a`;
`loss_ab`, `loss_ba` are the loss probabilities of the two directions.

## Node names made by the topology helpers

| helper | nodes | links, in order | where `queue=` goes |
| --- | --- | --- | --- |
| `db.star(hosts, rate, delay, switch="s1")` | the hosts (a count N gives `h1` ... `hN`) and the switch `s1` | `host`–`s1` for each host | at `s1`'s port toward each host (`queue_ba` of each link), a copy per port |
| `db.dumbbell(senders, receivers, access_rate, bottleneck_rate, left="r1", right="r2")` | senders (a count gives `snd1` ...), receivers (`rcv1` ...), routers `r1` and `r2` | `sender`–`r1`, then `r1`–`r2` (the bottleneck), then `r2`–`receiver` | at `r1`'s port toward `r2` (`queue_ab` of the bottleneck); `bottleneck_loss` is that direction's loss |
| `db.chain(switches, rate, delay, hosts=("a", "b"))` | `a`, `b` and switches `s1` ... `sN` | `a`–`s1`, `s1`–`s2`, ..., `sN`–`b` | at every switch's port toward the next hop from `a` to `b` (`queue_ab` of every link after the first) |

| `db.fat_tree(k, rate, delay, oversubscription=1)` | hosts `h0` ... `h{k³/4-1}` (role `host`), edge switches `e{pod}_{i}` (`leaf`), aggregation `a{pod}_{i}` (`spine`), core `c{i}` (`core`); pod p holds hosts `h{p·k²/4}` ..., edge `e{p}_{i}` hosts `k/2` of them in order | host–edge for each host, then every edge–aggregation pair of a pod, then `a{p}_{i}`–`c{i·k/2+m}` for m < k/2 | every port, both directions, host NICs included, a copy per port; links above the edge run at `rate / oversubscription` |
| `db.leaf_spine(leaves, spines, hosts_per_leaf, host_rate, fabric_rate=host_rate, delay)` | hosts `h0` ... (`hosts_per_leaf` per leaf, in order), leaves `leaf0` ..., spines `spine0` ... | host–leaf for each host, then `leaf{i}`–`spine{j}` for every pair | as in `fat_tree` |

A port given no queue is a drop-tail queue of 1000 packets.

The two fabrics are also written in TOML as one table, with the function's
arguments (`queue` as a queue table); the file's own `nodes` and `links`
are added to the fabric's:

```toml
topology = { kind = "fat_tree", k = 4, rate = "10Gbps", delay = "1us" }
# topology = { kind = "leaf_spine", leaves = 4, spines = 2, hosts_per_leaf = 8,
#              host_rate = "10Gbps", fabric_rate = "40Gbps", delay = "1us" }
```

Errors name `topology.<field>`: `k` odd or below 2, a leaf-spine with zero
`spines`, an unknown field or `kind`. Traffic for fabrics
(`dumbbell.scenario.traffic`): `db.permutation(s, seed=, bytes=)` (every host sends
one flow, every host receives one), `db.incast(s, requester, n, bytes_each,
rounds=, rate_per_s=)` (`n` senders answer at once, `n` at most the other
hosts), `db.poisson_load(s, "websearch" | "datamining" | Cdf, load,
host_rate)` (Poisson arrivals at that load of the hosts' capacity). Their
completion times and slowdowns: `db.fct_table(result)`,
`db.slowdown_percentiles(table)`, `db.plot_slowdown(table, path)`
(`dumbbell.run.fct` states the ideal's formula).

## Routing: single path, ECMP, spraying

Routes are shortest paths in hops. Where a switch has several equal-cost
next hops (a fabric's uplinks), `routing` chooses: `"ecmp"` (the default)
hashes each packet's 5-tuple (addresses, ports, protocol) with the switch's
own seed, drawn from the run's random stream `ecmp:<switch>`, so a flow
keeps one path and flows spread like balls in bins; `"single"` always takes
the lowest port (the link listed first); `"spray"` draws each packet's
next hop uniformly from the stream `spray:<switch>` (packets of one flow
then arrive out of order). On a topology with one shortest path between
every pair (a star, a dumbbell, a chain) the three are the same run, and
`"spray"` is refused there, naming `routing`. `Result.queues` names each
port's tier in a fabric (`role` of its node, `peer_role` of the next hop:
host, leaf, spine, core).

## TCP defaults, and where they come from

Unset fields of `TcpOptions` take these values (the core's
`TcpConfig::default`, `crates/dumbbell-core/src/config.rs`):

| option | default | where it comes from |
| --- | --- | --- |
| `mss_bytes` | 1448 | Linux's MSS on a 1500-byte Ethernet MTU with TCP timestamps: 1500 − 20 (IPv4) − 20 (TCP) − 12 (timestamp option) |
| `header_bytes` | 40 | IPv4 + TCP without options (RFC 791, RFC 9293). The timestamp option's 12 bytes are not added, so the default packet is **1488 bytes on the wire** (1448 + 40), not Linux's 1500: set `header_bytes = 52` for Linux's wire size, or `mss_bytes = 1460` (with 40) for 1500-byte packets without timestamps, as E1 does. Queue thresholds in bytes (RED's `min_th`) and bandwidth-delay products in packets depend on this size |
| `init_cwnd_pkts` | 10 | RFC 6928, Linux's `TCP_INIT_CWND` |
| `rwnd_bytes` | 64 MiB | large enough never to limit the runs here; Linux auto-tunes its receive buffer, which is not modelled (`docs/model.md`) |
| `sack`, `dsack`, `timestamps`, `rack`, `tlp`, `frto` | on | Linux's defaults (`tcp_sack`, `tcp_dsack`, `tcp_timestamps`, `tcp_recovery` = RACK with TLP, `tcp_frto` = 2); RFC 2018, 2883, 7323, 8985, 5682 |
| `ecn` | off (DCTCP turns it on) | Linux's `tcp_ecn` = 2 (accept, not request) |
| delayed ACKs | on, 40 ms timer, 16 quick-ACKs at the start | Linux's `TCP_DELACK_MIN` and quick-ACK mode |
| RTO | minimum 200 ms, maximum 120 s, initial 1 s | Linux's `TCP_RTO_MIN`, `TCP_RTO_MAX`, `TCP_TIMEOUT_INIT` (RFC 6298) |
| `dupthresh` | 3 | RFC 5681, Linux's `tcp_reordering`: the starting value of the loss threshold |
| `reordering_adapt`, `max_reordering` | on, 300 | Linux's reordering adaptation (`tcp_check_sack_reordering`): the threshold rises to the reordering SACKs and D-SACKs show, up to `tcp_max_reordering` |
| `growth_per_ack` | off | Linux since 3.18/4.0 counts the segments an ACK covers; on: one step per ACK, as older kernels |
| `profile` | `linux-6.12` | a kernel era (`linux-2.4`, `linux-2.6.32`, `linux-3.2`, `linux-6.8`, `linux-6.12`) whose values unset options take: `python/dumbbell/scenario/tcp_profiles.py`, sources in `docs/model.md` |
| TSQ | 128 KiB | Linux's `tcp_limit_output_bytes` as older kernels set it (newer ones raised it) |
| `gso_max_bytes` | 0 (off) | Linux sends TSO/GSO skbs of up to `gso_max_size` (64 KB); off, a sender sends and paces segment by segment. On: skbs of Linux's autosize, paced per skb, with TSO deferral (`docs/model.md`, "TSO-sized bursts") |
| `gro` | off | Linux's receiver behind GRO (or a virtio guest with guest TSO) sees each TSO skb whole and ACKs it once; off, the receiver ACKs every second segment as one that sees single segments. On, with `gso_max_bytes`: one ACK per skb (`docs/model.md`, "GRO: one ACK per skb") |

Times in the output are integer picoseconds; a flow's completion time is
`flows.completion_ps` (0 if it did not complete), while `flows.end_ps` is
when it stopped sending or completed, or the run's end (`docs/output.md`).
"""


def _unit(name: str) -> str:
    for suffix, unit in _UNITS:
        if name.endswith(suffix):
            return unit
    return ""


def _num(x: Any) -> str:
    if isinstance(x, float):
        if x == int(x) and abs(x) < 1e6:
            return f"{int(x):,}".replace(",", " ")
        return f"{x:g}"
    if isinstance(x, int) and x >= 10**6 and 10 ** (len(str(x)) - 1) == x:
        return f"10^{len(str(x)) - 1}"
    if isinstance(x, int) and x >= 2**20:
        for k in range(20, 65):
            if x == 2**k:
                return f"2^{k}"
            if x == 2**k - 1:
                return f"2^{k} − 1"
    return f"{x:,}".replace(",", " ") if isinstance(x, int) else str(x)


def _bounds(tp: Any, extra: list[Any]) -> tuple[Any, Any]:
    found = list(extra)

    def walk(t: Any) -> None:
        origin = typing.get_origin(t)
        if origin is typing.Annotated:
            args = typing.get_args(t)
            found.extend(args[1:])
            walk(args[0])
        elif origin in (typing.Union, types.UnionType, list):
            for a in typing.get_args(t):
                walk(a)

    walk(tp)
    return _tightest(found)


def _tightest(found: list[Any]) -> tuple[Any, Any]:
    """The tightest lower and upper bounds among constraints (a field's own
    and its type's: ``Rate`` with the core's range of a rate)."""
    lo = hi = None
    for m in found:
        for item in getattr(m, "metadata", [m]):
            if isinstance(item, (at.Ge, at.Gt)):
                v = item.ge if isinstance(item, at.Ge) else item.gt
                old = None if lo is None else (lo.ge if isinstance(lo, at.Ge) else lo.gt)
                if old is None or v > old or (v == old and isinstance(item, at.Gt)):
                    lo = item
            if isinstance(item, (at.Le, at.Lt)):
                v = item.le if isinstance(item, at.Le) else item.lt
                old = None if hi is None else (hi.le if isinstance(hi, at.Le) else hi.lt)
                if old is None or v < old or (v == old and isinstance(item, at.Lt)):
                    hi = item
    return lo, hi


def _range(tp: Any, extra: list[Any]) -> str:
    lo, hi = _bounds(tp, extra)
    if lo is None and hi is None:
        return ""
    left = "[" if isinstance(lo, at.Ge) else "("
    right = "]" if isinstance(hi, at.Le) else ")"
    lv = _num(lo.ge if isinstance(lo, at.Ge) else lo.gt) if lo is not None else "−∞"
    hv = _num(hi.le if isinstance(hi, at.Le) else hi.lt) if hi is not None else "∞"
    return f"{left}{lv}, {hv}{right}"


def _type(tp: Any) -> str:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return _type(args[0])
    if origin in (typing.Union, types.UnionType):
        parts = [_type(a) for a in args if a is not type(None)]
        return " or ".join(dict.fromkeys(parts))
    if origin is typing.Literal:
        return " / ".join(f"`{a}`" for a in args)
    if origin is list:
        return f"list of {_type(args[0])}"
    if origin is tuple:
        return "[" + ", ".join(f"{_type(a)} {_range(a, [])}".strip() for a in args) + "]"
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return f"[{tp.__name__}](#{tp.__name__.lower()})"
    return getattr(tp, "__name__", str(tp))


def _default(info: Any) -> str:
    if info.default is PydanticUndefined:
        return "required" if info.default_factory is None else "(empty)"
    if info.default is None:
        return "unset"
    d = info.default
    if isinstance(d, bool):
        return "true" if d else "false"
    if isinstance(d, str):
        return f'"{d}"'
    return _num(d)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


_MODULE_ORDER = {"dumbbell.scenario.twoclass": 0, "dumbbell.kmod": 1,
                 **dict.fromkeys([f"dumbbell.scenario.{m}" for m in ("models", "network", "queues", "tcp")], 2),
                 "dumbbell.scenario.workloads": 3}
"""The order of the pages' sections for models outside ``__all__``, by the module that holds them."""


def _models() -> list[type[BaseModel]]:
    """Every public scenario model (every subclass of the shared base): the
    scenario first, then those of ``scenario.__all__`` in its order, then
    the others by module (classifiers and schedulers, kernel modules, the
    scenario's other models, workloads) and name."""
    found: set[type[BaseModel]] = set()

    def walk(c: type) -> None:
        for sub in c.__subclasses__():
            if not sub.__name__.startswith("_"):
                found.add(sub)
            walk(sub)

    walk(sc._Model)
    order = {n: i for i, n in enumerate(sc.__all__)}
    return sorted(
        found,
        key=lambda m: (m is not sc.Scenario, order.get(m.__name__, 10**6), _MODULE_ORDER.get(m.__module__, 10**6),
                       "" if m.__module__ in _MODULE_ORDER else m.__module__, m.__name__),
    )


def markdown() -> str:
    """The page. A field's range is its model's; a control's or a queue's
    parameter has the core's, read from its schema (``_native.schema()``,
    where each parameter is declared once; ``scenario/core_params.py``)."""
    out = [_INTRO]
    for model in _models():
        doc = " ".join((model.__doc__ or "").split("\n\n")[0].split())
        out.append(f"\n## {model.__name__}\n\n{doc}\n")
        out.append("| field | type | range | unit | default | description |")
        out.append("| --- | --- | --- | --- | --- | --- |")
        for name, info in model.model_fields.items():
            if name == "kind" and typing.get_origin(info.annotation) is typing.Literal:
                out.append(f"| `kind` | {_type(info.annotation)} | | | | the tag of this table |")
                continue
            out.append(
                "| `{}` | {} | {} | {} | {} | {} |".format(
                    name,
                    _cell(_type(info.annotation)),
                    _range(info.annotation, info.metadata),
                    _unit(name),
                    _default(info),
                    _cell(info.description or ""),
                )
            )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    text = markdown()
    if "--write" in args:
        DOC_PATH.write_text(text)
        print(f"wrote {DOC_PATH}", file=sys.stderr)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
