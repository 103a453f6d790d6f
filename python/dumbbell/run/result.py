"""The outcome of one run: :class:`Result`, its tables (polars, converted
when first read) and the shortcuts and figures over them."""

from __future__ import annotations

import json
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, SimulationError

if TYPE_CHECKING:
    import polars as pl

    from ..scenario.models import Scenario


@dataclass
class Result:
    """The outcome of one run.

    ``tables`` maps every table of ``docs/output.md`` to a polars DataFrame
    (a :class:`~dumbbell.run.tables.Tables`: each table is converted from the
    core's columns when first read, so tables never read cost no
    conversion); the properties below are shortcuts.
    """

    scenario: Scenario
    seed: int
    config: dict[str, Any]
    tables: MutableMapping[str, pl.DataFrame] = field(repr=False)
    controls: dict[str, list[Any]] = field(default_factory=dict, repr=False)
    """The controls written in Python as they ended the run: by their path
    in the scenario (``flows[0].cc``), each connection's own copy, in the
    order connections were made (one for a flow; one per connection for a
    workload's tasks). Read a control's internal state here."""

    def table(self, name: str) -> pl.DataFrame:
        try:
            return self.tables[name]
        except KeyError:
            raise KeyError(f"no table {name!r} in this result (have: {', '.join(self.tables)})") from None

    @property
    def flows(self) -> pl.DataFrame:
        """One row per flow: bytes, retransmissions, goodput, ..."""
        return self.table("flows")

    @property
    def flow_samples(self) -> pl.DataFrame:
        """Per-flow samples every ``record.flow_sample_s``."""
        return self.table("flow_samples")

    @property
    def queues(self) -> pl.DataFrame:
        """One row per egress port: counters, utilization, maxima. In a
        scenario whose nodes have roles (a fabric of :mod:`dumbbell.scenario.fabric`),
        also ``role`` and ``peer_role``: the tiers (host, leaf, spine, core)
        of the port's node and of the node it sends to."""
        q = self.table("queues")
        if not any(n.role for n in self.scenario.nodes):
            return q
        import polars as pl

        from ..scenario.topology import link_roles

        roles = link_roles(self.scenario)
        return q.with_columns(
            pl.col("node").replace_strict(roles, default=None, return_dtype=pl.Utf8).alias("role"),
            pl.col("peer").replace_strict(roles, default=None, return_dtype=pl.Utf8).alias("peer_role"),
        )

    @property
    def stopped(self) -> bool:
        """True if the run was stopped (Ctrl-C, a timeout, ``handle.stop()``)
        before its end: the tables cover ``[0, summary["sim_time_ps"]]``."""
        return bool(self.summary.get("stopped", False))

    @property
    def status(self) -> str:
        """``"stopped"`` or ``"finished"``."""
        return "stopped" if self.stopped else "finished"

    @property
    def summary(self) -> dict[str, Any]:
        """The one-row ``summary`` table as a dict (events, packet counts,
        ``conservation_ok``, ...)."""
        rows = self.rows("summary")
        if len(rows) != 1:
            raise SimulationError(f"summary table has {len(rows)} rows, expected 1")
        return rows[0]

    def rows(self, name: str) -> list[dict[str, Any]]:
        """Table ``name`` as a list of rows (column → value), as polars'
        ``iter_rows(named=True)`` gives them; a table not converted yet is
        read from the core's buffers without converting it (no polars)."""
        from .tables import Tables

        if isinstance(self.tables, Tables) and name in self.tables and name not in self.tables.converted():
            if name != "queues" or not any(n.role for n in self.scenario.nodes):
                return self.tables.rows(name)
        if name == "queues":
            return self.queues.to_dicts()
        return self.table(name).to_dicts()

    def port(self, node: str, peer: str) -> int:
        """The port id of ``node``'s egress toward ``peer``."""
        import polars as pl

        q = self.queues.filter((pl.col("node") == node) & (pl.col("peer") == peer))
        if q.height == 0:
            raise KeyError(f"no port of {node!r} toward {peer!r}")
        return int(q["port"][0])

    def queue(self, node: str, peer: str) -> pl.DataFrame:
        """The ``queue_trace`` rows of ``node``'s port toward ``peer`` (traced
        only if listed in ``record.queues``)."""
        port = self.port(node, peer)
        import polars as pl

        return self.table("queue_trace").filter(pl.col("port") == port)

    def dequeues(self, node: str, peer: str) -> pl.DataFrame:
        """The ``dequeues`` rows (transmission starts) of that port (recorded
        with ``dequeue_times = true``)."""
        port = self.port(node, peer)
        import polars as pl

        return self.table("dequeues").filter(pl.col("port") == port)

    # -- figures ----------------------------------------------------------

    def plot_queue(self, node: str, peer: str, path: str | Path | None = None) -> Any:
        """The occupancy of ``node``'s port toward ``peer`` over time (packets;
        the port must be in ``record.queues``). Returns a matplotlib Figure;
        with ``path``, also writes it as PNG."""
        from .plots import queue_figure

        return queue_figure(self, node, peer, path)

    def plot_cwnd(self, path: str | Path | None = None) -> Any:
        """Every TCP flow's congestion window (packets) over time, from the
        flow samples (or every ACK with ``record.cwnd_every_ack``)."""
        from .plots import cwnd_figure

        return cwnd_figure(self, path)

    def plot_rtt(self, path: str | Path | None = None) -> Any:
        """Every TCP flow's RTT (ms) over time: with ``record.rtt_samples``,
        each sample the sender took, its smoothed ``srtt`` and the running
        ``min_rtt``; otherwise the sender's ``srtt`` in the flow samples (or
        at every ACK with ``record.cwnd_every_ack``), with its final
        ``min_rtt`` as a dashed line."""
        from .plots import rtt_figure

        return rtt_figure(self, path)

    def plot_goodput(self, path: str | Path | None = None) -> Any:
        """Every flow's goodput (Mb/s) per sampling interval, from the
        cumulative ``delivered_bytes`` of the flow samples (see
        :meth:`goodput_intervals`)."""
        from .plots import goodput_figure

        return goodput_figure(self, path)

    def goodput_intervals(self) -> pl.DataFrame:
        """Goodput per sampling interval and flow: ``flow``, ``name``,
        ``start_s``, ``end_s``, ``delivered_bytes``, ``goodput_mbps``."""
        from .plots import goodput_intervals

        return goodput_intervals(self)

    def plot_all(self, directory: str | Path) -> list[Path]:
        """Writes the usual figures into ``directory`` (``queue_NODE-PEER.png``
        per recorded queue, ``cwnd.png``, ``rtt.png``, ``goodput.png``);
        returns their paths."""
        from .plots import write_figures

        return write_figures(self, directory)

    # -- files ------------------------------------------------------------

    def write_pcap(self, directory: str | Path) -> list[Path]:
        """Writes one pcap file per point of ``record.pcap`` into
        ``directory`` (``capture_<node>-<peer>.pcap``, ``capture_<host>.pcap``;
        :mod:`dumbbell.run.pcap`); returns their paths (none without capture)."""
        from .pcap import write_pcaps

        if "captures" not in self.tables:
            return []
        return write_pcaps(self.table("captures"), self.config, directory)

    def to_parquet(self, directory: str | Path) -> Path:
        """Writes every table as ``<name>.parquet``, the core configuration as
        ``config.json`` and the scenario, with this run's seed, as
        ``scenario.toml`` into ``directory``, and the pcap files of
        ``record.pcap`` beside them (:meth:`write_pcap`); returns it.
        :meth:`Result.load` reads it back."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self.write_pcap(d)
        peek = getattr(self.tables, "peek", self.tables.__getitem__)
        for name in self.tables:  # one converted table at a time (dumbbell.run.tables)
            peek(name).write_parquet(d / f"{name}.parquet")
        (d / "config.json").write_text(json.dumps(self.config, indent=2) + "\n")
        # a control written in Python is recorded by its class's name (such a
        # scenario.toml is not read back: Result.load says so, naming the field)
        (d / "scenario.toml").write_text(
            self.scenario.model_copy(update={"seed": self.seed}).to_toml(python_controls="name")
        )
        return d

    @classmethod
    def load(cls, directory: str | Path) -> Result:
        """Reads back what :meth:`to_parquet` or ``dumbbell run --out`` wrote:
        every ``<name>.parquet`` table, ``config.json`` and
        ``scenario.toml``. Raises :class:`ConfigError` naming what is missing."""
        import polars as pl

        from ..scenario.models import Scenario

        d = Path(directory)
        if not d.is_dir():
            raise ConfigError(str(d), "no such directory (expected what Result.to_parquet or --out wrote)")
        for need in ("config.json", "scenario.toml", "summary.parquet"):
            if not (d / need).is_file():
                raise ConfigError(str(d / need), "missing: not a directory written by Result.to_parquet or --out")
        try:
            config = json.loads((d / "config.json").read_text())
        except (OSError, ValueError) as e:
            raise ConfigError(str(d / "config.json"), f"cannot read: {e}") from None
        import polars as pl

        from ..scenario.models import Scenario

        scenario = Scenario.from_toml(d / "scenario.toml")
        tables = {p.stem: pl.read_parquet(p) for p in sorted(d.glob("*.parquet"))}
        return cls(scenario=scenario, seed=int(config.get("seed", scenario.seed)), config=config, tables=tables)
