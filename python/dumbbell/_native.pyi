"""Type stubs for the native module built from crates/dumbbell-py."""

from typing import Literal, TypeAlias

NumericDtype: TypeAlias = Literal["u64", "i64", "f64", "u32", "bool"]
Column: TypeAlias = tuple[NumericDtype, "Buffer"] | tuple[Literal["strdict"], tuple["Buffer", list[str]]]
"""A numeric column is its native-endian buffer; a string column its ``u32``
codes and the distinct values they index."""

class Buffer:
    """One column's numbers, moved out of the core without a copy: read-only
    native-endian bytes through the buffer protocol (``memoryview``,
    ``numpy.frombuffer``); ``len()`` is the size in bytes."""

    def __len__(self) -> int: ...
    def __buffer__(self, flags: int, /) -> memoryview: ...

class NativeConfigError(ValueError):
    """Bad configuration; ``args == (field, message)``."""

class NativeLimitError(ValueError):
    """A limit named by a field was reached while running; ``args == (field, message)``."""

class NativeControlError(RuntimeError):
    """A hook of a control written in Python raised; ``args == (id, control,
    hook, time_ps, message)``, ``__cause__`` the hook's exception."""

class NativeInternalError(RuntimeError):
    """An invariant broke during the run, or the core panicked; ``args == (message,)``."""

class RunHandle:
    """A handle on one run: stop it from any thread, read its progress."""

    def __init__(self, event_limit: int | None = None, instant_limit: int | None = None) -> None:
        """``event_limit``: also stop by itself after about that many events;
        ``instant_limit``: events at one instant after which the run is
        declared stuck (default 2^24)."""
    def stop(self) -> None:
        """Asks the run to stop; it returns what it has within milliseconds."""
    @property
    def stop_requested(self) -> bool: ...
    def progress(self) -> tuple[Literal["building", "running", "done"], int, int, int]:
        """``(phase, now_ps, end_ps, events)``, updated every 1 024 events."""

class TcpSock:
    """The sender's state a control's hook sees (the core's ``TcpSock``),
    valid during that hook. Windows in packets, times in picoseconds,
    rates in bit/s. Writable (except in ``ssthresh`` and ``undo_cwnd``): the
    window fields a control owns; the stack's fields are read-only."""

    snd_cwnd: int
    snd_ssthresh: int
    snd_cwnd_cnt: int
    snd_cwnd_clamp: int
    prior_cwnd: int
    pacing_rate_bps: int
    app_limited: int
    @property
    def now_ps(self) -> int: ...
    @property
    def mss(self) -> int: ...
    @property
    def snd_una(self) -> int: ...
    @property
    def snd_nxt(self) -> int: ...
    @property
    def packets_out(self) -> int: ...
    @property
    def sacked_out(self) -> int: ...
    @property
    def lost_out(self) -> int: ...
    @property
    def retrans_out(self) -> int: ...
    @property
    def delivered(self) -> int: ...
    @property
    def delivered_ce(self) -> int: ...
    @property
    def lost(self) -> int: ...
    @property
    def delivered_mstamp_ps(self) -> int: ...
    @property
    def srtt_ps(self) -> int: ...
    @property
    def min_rtt_ps(self) -> int: ...
    @property
    def ca_state(self) -> int: ...
    @property
    def is_cwnd_limited(self) -> bool: ...
    @property
    def max_packets_out(self) -> int: ...
    @property
    def wstamp_ps(self) -> int: ...
    @property
    def ecn_ok(self) -> bool: ...
    @property
    def snd_cwnd_stamp_ps(self) -> int: ...
    @property
    def lsndtime_ps(self) -> int: ...
    def in_flight(self) -> int: ...
    def in_slow_start(self) -> bool: ...

class AckSample:
    """``pkts_acked``'s sample (Linux ``struct ack_sample``)."""

    @property
    def pkts_acked(self) -> int: ...
    @property
    def rtt_ps(self) -> int | None: ...
    @property
    def in_flight(self) -> int: ...

class RateSample:
    """``cong_control``'s delivery-rate sample (Linux ``struct rate_sample``)."""

    @property
    def prior_delivered(self) -> int: ...
    @property
    def prior_delivered_ce(self) -> int: ...
    @property
    def prior_time_ps(self) -> int: ...
    @property
    def delivered(self) -> int | None: ...
    @property
    def delivered_ce(self) -> int: ...
    @property
    def interval_ps(self) -> int: ...
    @property
    def snd_interval_ps(self) -> int: ...
    @property
    def rcv_interval_ps(self) -> int: ...
    @property
    def rtt_ps(self) -> int | None: ...
    @property
    def losses(self) -> int: ...
    @property
    def acked_sacked(self) -> int: ...
    @property
    def prior_in_flight(self) -> int: ...
    @property
    def is_app_limited(self) -> bool: ...
    @property
    def is_retrans(self) -> bool: ...
    @property
    def rate_pps(self) -> float | None: ...

def run_json(
    config: str,
    handle: RunHandle | None = None,
    controls: dict[str, object] | None = None,
    modules: list[str] | None = None,
) -> dict[str, dict[str, Column]]:
    """Runs a ``config.rs`` JSON document (GIL released) and returns
    ``{table: {column: (dtype, data)}}``; the summary has a ``stopped`` column.
    ``controls``: the Python controls its ``external`` entries name, by id;
    ``modules``: the ids (``kmod:{...}``) of its kernel-module controls,
    loaded in this process (``dumbbell.kmod`` runs them in a child)."""

def check_config(
    config: str, controls: dict[str, object] | None = None, modules: list[str] | None = None
) -> None:
    """Decodes a ``config.rs`` JSON document and builds its world without
    running it; raises :class:`NativeConfigError` for anything a run would
    refuse before simulating."""

def kmod_build(source: str, linux_version: str = "6.12", hz: int = 250, cache_dir: str | None = None) -> str:
    """Compiles a module's C source with the kernel shim (or finds it
    cached); returns the shared object's path. ``ValueError``: the
    compiler's error (file, line), a missing shim symbol, no compiler."""

def kmod_load_check(id: str) -> list[str]:
    """Loads a module (``kmod:{...}``) once, setting its parameters; returns
    its parameter names. ``ValueError``: an unknown parameter (listing the
    module's), a refused value, a failed ``module_init``."""

def kmod_install_crash_report() -> None:
    """Reports a fatal signal as one line on stderr naming the module, the
    hook and the simulated time (the child process of a module run)."""

def kmod_parse_crash(stderr: str) -> tuple[str, str, int, int] | None:
    """``(module, hook, time_ps, signal)`` of a crash line, if any."""

def kmod_compare(id: str, as_config: str, label: str) -> str:
    """``dumbbell module compare``: the module ``id`` against the built-in
    control ``as_config`` (core JSON) on the fixed scenarios; the JSON report."""

def request_stop() -> int:
    """Stops every run of this process in progress; returns how many."""

def registered_controls() -> list[tuple[str, str]]:
    """The core's registered controls (``cc::registry``) as ``(name, about)``."""

def schema() -> str:
    """Every control's and queue discipline's parameters, declared once in the
    core (``config::schema``), as JSON: ``{"controls": [...], "queues": [...]}``,
    each ``{name, about, registered, params: [{name, type, default, required,
    range, about}]}``; times in picoseconds."""

def version() -> str:
    """The core's version."""

def source_hash() -> str:
    """A hash of the simulator's source files at build time (16 hex digits)."""

def build() -> str:
    """How the extension was compiled: ``plain``, or ``profile-guided
    (<profile>)`` (``tools/pgo/build.sh``). Results do not depend on it."""
