"""TCP in a scenario: the congestion controls (``Reno`` ... ``Vegas``, the
controls registered in the core, Python controls, kernel modules),
``CcConfig`` (the union a flow's ``cc`` takes, with its ``"name"``
shorthand) and ``TcpOptions``.
"""

from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator, ConfigDict, Field, field_serializer, field_validator, model_validator,
)

from ..controls import CongestionControl, check_control
from ..errors import ConfigError
from ..kmod import KernelModuleCc
from ..suggest import did_you_mean
from .core_params import choice as _choice, core_default as _core_default, field as _core_field, item as _item
from .base import BUILT_AT_IMPORT, Model as _Model, U32_MAX, kind_of as _kind_of
from .lazy_union import lazy_union
from .ranges import (
    MAX_DELACK_S, MAX_DUPTHRESH, MAX_HEADER_BYTES, MAX_INIT_CWND_PKTS, MAX_MSS_BYTES, MAX_RTO_S, MAX_RWND_BYTES,
    MAX_GSO_BYTES, MAX_TSQ_BYTES, MIN_DELACK_S, MIN_MSS_BYTES, MIN_RTO_S, Rate, Seconds,
)
from .tcp_profiles import DEFAULT_PROFILE, check_profile, profile_values
from .units import seconds_to_ps


# ---------------------------------------------------------------- congestion control


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _set_or_core(model: _Model, name: str) -> Any:
    """A control's parameter as set, or the core's default when unset."""
    value = getattr(model, name)
    return _core_default(model.kind, name) if value is None else value


def _core(kind: str):
    """The fields of a control's parameters, from the core's schema
    (:mod:`.core_params`): bounds and description the core's, unset (None)
    by default, which leaves the core's default."""

    def unset(name: str, **extra: Any):
        return _core_field(kind, name, default=None, **extra)

    return unset


_cubic, _dctcp, _linear, _fractional, _expolinear, _bbr, _highspeed, _vegas = map(
    _core, ("cubic", "dctcp", "linear", "fractional", "expolinear", "bbr", "highspeed", "vegas")
)


class Reno(_Model):
    """Reno/NewReno (RFC 5681, 6582; Linux ``tcp_reno_cong_avoid``)."""

    kind: Literal["reno"] = "reno"

    def to_core(self) -> dict[str, Any]:
        return {"kind": "reno"}


class Cubic(_Model):
    """Cubic (RFC 9438, Linux ``tcp_cubic.c``). Unset parameters take the
    core's defaults: beta 717/1024, C 0.4, fast convergence, TCP-friendly
    region and HyStart (ACK train and delay) on, HyStart low window 16,
    ACK-train delta 2000 µs, a 250 Hz jiffies clock (Debian's kernel)."""

    kind: Literal["cubic"] = "cubic"
    beta: float | None = _cubic("beta")
    c: float | None = _cubic("c")
    fast_convergence: bool | None = _cubic("fast_convergence")
    tcp_friendliness: bool | None = _cubic("tcp_friendliness")
    hystart: bool | None = _cubic("hystart")
    hystart_ack_train: bool | None = _cubic("hystart_ack_train")
    hystart_delay: bool | None = _cubic("hystart_delay")
    hystart_low_window: int | None = _cubic("hystart_low_window")
    hystart_ack_delta_us: int | None = _cubic("hystart_ack_delta_us")
    hz: int | None = _cubic("hz")

    def to_core(self) -> dict[str, Any]:
        return {"kind": "cubic", **_drop_none(self.model_dump(exclude={"kind"}))}


class Dctcp(_Model):
    """DCTCP (RFC 8257, Linux ``tcp_dctcp.c``). Unset parameters take the
    core's defaults: g = 2^-4 (``shift_g`` 4), initial alpha 1."""

    kind: Literal["dctcp"] = "dctcp"
    shift_g: int | None = _dctcp("shift_g")
    alpha_init: float | None = _dctcp("alpha_init")

    def to_core(self) -> dict[str, Any]:
        return {"kind": "dctcp", **_drop_none(self.model_dump(exclude={"kind"}))}


# ---- Madeira and Mattos (E3 `lossy-cc`): Linear, Fractional, Expolinear. Unset
# parameters take the core's defaults, the constants of the authors' kernel
# modules; t is in whole milliseconds since the session start or last loss.

_AdaptiveCount = _choice("linear", "adaptive_count")
_HighSpeedMode = _choice("highspeed", "mode")
_SlowStart = _choice("fractional", "slow_start")
_GammaR = list[_item("fractional", "gamma_r")]


class Linear(_Model):
    """Linear (Madeira and Mattos §4, ``linha01.c``). Defaults: slow start J += max(2·t³, 2)
    per ACK event (``ss_alpha`` 2, ``ss_min_pkts`` 2), recovery J = b_r + 1·t
    (``beta_r``), avoidance J = threshold + 2·t (``beta_a``), reduction 10 %
    (``reduction_pct``; the paper's variants 20, 50), or with ``adaptive``
    R = 15 + 35·lost/sent % (``adaptive_min_pct``, ``adaptive_span_pct``),
    lost/sent counted over the current window as the paper's eq. 3 says
    (``adaptive_count="window"``, the default: losses reported in it over the
    packets in flight when it began), over the current and the previous round
    of data (``"round"``) or on the loss-reporting ACK alone (``"ack"``);
    initial threshold 200 and b_r 1 packets. ``module_hook`` (default
    false) makes the ``ssthresh`` hook enter recovery as ``linha01.c``'s
    does (see ``cc/loss_phases.rs``). ``wrap_seq`` compares sequence numbers
    in 32 bits from a random initial one in the reduction gate, as the
    compiled module does; unset, it follows ``module_hook`` (the module's
    hook moves the recovery point at every Recovery entry; without it a
    wrapped point would shut the gate for 4 GiB of data)."""

    kind: Literal["linear"] = "linear"
    ss_alpha: float | None = _linear("ss_alpha")
    ss_min_pkts: int | None = _linear("ss_min_pkts")
    beta_r: float | None = _linear("beta_r")
    beta_a: float | None = _linear("beta_a")
    reduction_pct: int | None = _linear("reduction_pct")
    adaptive: bool | None = _linear("adaptive")
    adaptive_min_pct: int | None = _linear("adaptive_min_pct")
    adaptive_span_pct: int | None = _linear("adaptive_span_pct")
    adaptive_count: _AdaptiveCount | None = _linear("adaptive_count")
    initial_threshold_pkts: int | None = _linear("initial_threshold_pkts")
    initial_base_pkts: int | None = _linear("initial_base_pkts")
    module_hook: bool | None = _linear("module_hook")
    wrap_seq: bool | None = _linear("wrap_seq")

    @model_validator(mode="after")
    def _check(self) -> "Linear":
        lo = _set_or_core(self, "adaptive_min_pct")
        span = _set_or_core(self, "adaptive_span_pct")
        if lo + span > 99:
            raise ConfigError("adaptive_span_pct", f"adaptive_min_pct + adaptive_span_pct = {lo + span} must be at most 99")
        return self

    def to_core(self) -> dict[str, Any]:
        return {"kind": "linear", **_drop_none(self.model_dump(exclude={"kind"}))}


class Fractional(_Model):
    """Fractional, "Fracionário" (Madeira and Mattos §4, ``frac01.c``). Defaults: slow start
    J += 1 per ACK event, what the module does as compiled (its ``time_in_ms``
    is never assigned; ``slow_start="cubic_time"`` gives the J += max(2·t³, 1)
    its source seems to say, see ``cc/fractional.rs``), reduction 20 %,
    Δ_r = 10 % of the reduction (``delta_pct``), recovery J += γ_r·Δ_r per
    ACK event with γ_r cycling through ``gamma_r`` = [0, 4, 5, 1], avoidance
    J += max(J·5/100, 1) per ACK event (``gamma_a_pct``); ``wrap_seq``
    (default true) compares sequence numbers in the reduction gate in 32
    bits from a random initial one, as the compiled module does."""

    kind: Literal["fractional"] = "fractional"
    slow_start: _SlowStart | None = _fractional("slow_start")
    ss_alpha: float | None = _fractional("ss_alpha")
    ss_min_pkts: int | None = _fractional("ss_min_pkts")
    reduction_pct: int | None = _fractional("reduction_pct")
    delta_pct: int | None = _fractional("delta_pct")
    gamma_r: _GammaR | None = _fractional("gamma_r", min_length=1)
    gamma_a_pct: int | None = _fractional("gamma_a_pct")
    wrap_seq: bool | None = _fractional("wrap_seq")

    def to_core(self) -> dict[str, Any]:
        return {"kind": "fractional", **_drop_none(self.model_dump(exclude={"kind"}))}


class Expolinear(_Model):
    """Expolinear (Madeira and Mattos §4, ``expolin01.c``). Defaults: slow start
    J += max(2·t³, 2) per ACK event, reduction 20 %, recovery
    J = b_r + η_r·Δ_r·(1 − 2^(−⌊σt⌋)) + 1 with Δ_r the whole reduction,
    η_r 1 (``eta_r``) and σ 1/4 per ms (``sigma_per_ms``), avoidance
    J = threshold + 2·t (``eta_a``); initial threshold 200, b_r 1, Δ_r 1.
    2^(−k) is the module's ``65536 >> k`` with the shift count taken modulo
    32 as x86 executes it (``shift_mod_32``, default true: the recovery
    window falls back every 128 ms while recovery lasts). ``module_hook``
    (default false) makes the ``ssthresh`` hook enter recovery as
    ``expolin01.c``'s does (see ``cc/loss_phases.rs``); ``wrap_seq`` as for
    Linear."""

    kind: Literal["expolinear"] = "expolinear"
    ss_alpha: float | None = _expolinear("ss_alpha")
    ss_min_pkts: int | None = _expolinear("ss_min_pkts")
    reduction_pct: int | None = _expolinear("reduction_pct")
    eta_r: float | None = _expolinear("eta_r")
    sigma_per_ms: float | None = _expolinear("sigma_per_ms")
    eta_a: float | None = _expolinear("eta_a")
    initial_threshold_pkts: int | None = _expolinear("initial_threshold_pkts")
    initial_base_pkts: int | None = _expolinear("initial_base_pkts")
    initial_delta_pkts: int | None = _expolinear("initial_delta_pkts")
    shift_mod_32: bool | None = _expolinear("shift_mod_32")
    module_hook: bool | None = _expolinear("module_hook")
    wrap_seq: bool | None = _expolinear("wrap_seq")

    def to_core(self) -> dict[str, Any]:
        return {"kind": "expolinear", **_drop_none(self.model_dump(exclude={"kind"}))}


class Bbr(_Model):
    """BBR v1 (Linux ``tcp_bbr.c``). Unset parameters take the core's
    defaults, Linux's: Startup gain 2.885 (2/ln 2), Drain gain 1/high gain,
    cwnd gain 2, ProbeBW gains 5/4 and 3/4 (then 1 × 6), a 10-round
    bandwidth window, a 10 s min-RTT window, 200 ms of ProbeRTT (0 disables
    it), a full pipe after 3 rounds under 25 % growth, pacing 1 % below the
    estimate, a 1.2 Mb/s TSO threshold, and the ACK-aggregation
    (``extra_acked``) and long-term policer (``lt_bw``) estimators on."""

    kind: Literal["bbr"] = "bbr"
    high_gain: float | None = _bbr("high_gain")
    drain_gain: float | None = _bbr("drain_gain")
    cwnd_gain: float | None = _bbr("cwnd_gain")
    probe_bw_up_gain: float | None = _bbr("probe_bw_up_gain")
    probe_bw_down_gain: float | None = _bbr("probe_bw_down_gain")
    bw_win_rounds: int | None = _bbr("bw_win_rounds")
    min_rtt_win_s: float | None = _bbr("min_rtt_win_s")
    probe_rtt_mode_ms: float | None = _bbr("probe_rtt_mode_ms")
    full_bw_thresh: float | None = _bbr("full_bw_thresh")
    full_bw_cnt: int | None = _bbr("full_bw_cnt")
    pacing_margin_percent: int | None = _bbr("pacing_margin_percent")
    min_tso_rate_bps: int | None = _bbr("min_tso_rate_bps")
    extra_acked: bool | None = _bbr("extra_acked")
    lt_bw: bool | None = _bbr("lt_bw")

    def to_core(self) -> dict[str, Any]:
        return {"kind": "bbr", **_drop_none(self.model_dump(exclude={"kind"}))}


class HighSpeed(_Model):
    """HighSpeed TCP (RFC 3649; de Rezende, Costa and Rubinstein §III; Linux ``tcp_highspeed.c``).
    Unset parameters take the core's defaults: ``mode`` ``"formula"``
    (RFC 3649's a(w), b(w) from the parameters; ``"linux_table"`` uses
    Linux's table and counts its increase per ACK, ignoring the rest),
    Low_Window 38 and High_Window 83000 packets, Low_P 1e-3, High_P 1e-7,
    High_Decrease 0.1."""

    kind: Literal["highspeed"] = "highspeed"
    mode: _HighSpeedMode | None = _highspeed("mode")
    low_window: int | None = _highspeed("low_window")
    high_window: int | None = _highspeed("high_window")
    low_p: float | None = _highspeed("low_p")
    high_p: float | None = _highspeed("high_p")
    high_decrease: float | None = _highspeed("high_decrease")

    @model_validator(mode="after")
    def _order(self) -> "HighSpeed":
        low_w, high_w = _set_or_core(self, "low_window"), _set_or_core(self, "high_window")
        low_p, high_p = _set_or_core(self, "low_p"), _set_or_core(self, "high_p")
        if high_w <= low_w:
            raise ConfigError("high_window", f"must be above low_window ({high_w} <= {low_w})")
        if high_p >= low_p:
            raise ConfigError("high_p", f"must be below low_p ({high_p:g} >= {low_p:g})")
        return self

    def to_core(self) -> dict[str, Any]:
        return {"kind": "highspeed", **_drop_none(self.model_dump(exclude={"kind"}))}


class Vegas(_Model):
    """TCP Vegas (Linux ``tcp_vegas.c``). Unset parameters take the core's
    defaults: alpha 2, beta 4, gamma 1 (packets this flow keeps queued)."""

    kind: Literal["vegas"] = "vegas"
    alpha: int | None = _vegas("alpha")
    beta: int | None = _vegas("beta")
    gamma: int | None = _vegas("gamma")

    @model_validator(mode="after")
    def _order(self) -> "Vegas":
        alpha, beta = _set_or_core(self, "alpha"), _set_or_core(self, "beta")
        if alpha > beta:
            raise ConfigError("beta", f"must be at least alpha ({beta} < {alpha})")
        return self

    def to_core(self) -> dict[str, Any]:
        return {"kind": "vegas", **_drop_none(self.model_dump(exclude={"kind"}))}


BUILTIN_CONTROLS = ("reno", "cubic", "dctcp", "highspeed", "vegas", "bbr", "linear", "fractional", "expolinear")
"""The controls with their own model here (and configuration variant in the core)."""


def _registered() -> dict[str, str]:
    from .. import _native

    return dict(_native.registered_controls())


REGISTERED: dict[str, str] = _registered()
"""The core's registered controls (``cc/registry.rs``), name → one sentence:
added with one file and one line in the core, no model here (see
``docs/controls.md``)."""

CONTROLS = BUILTIN_CONTROLS + tuple(n for n in REGISTERED if n not in BUILTIN_CONTROLS)
"""The congestion controls the core implements today, by name."""


class Registered(_Model):
    """A control of the core's registry (``crates/dumbbell-core/src/cc/registry.rs``),
    by name, with its parameters: ``cc = "scalable"`` or ``cc = {kind =
    "scalable", ai_cnt = 50}``. The core checks the parameters before the
    run, naming ``cc.params.<name>``; unset ones take the control's
    defaults (see its file in ``crates/dumbbell-core/src/cc/``). ``dumbbell
    list`` names them (``scalable``, ``bbr3``, ``prague`` — TCP Prague for L4S, which needs
    ``ecn=True`` — ...; e.g. ``cc = {kind =
    "bbr3", ecn_low = true}``, its parameters in docs/controls.md)."""

    kind: Annotated[str, Field(min_length=1, description="The registered name (`dumbbell list`).")]
    params: dict[str, Any] = Field(default_factory=dict, description="The control's parameters (its own names and units).")

    @field_validator("kind")
    @classmethod
    def _known(cls, v: str) -> str:
        if v not in REGISTERED:
            raise ValueError(
                f"unknown registered control {v!r}{did_you_mean(v, REGISTERED)} (known: {', '.join(REGISTERED) or 'none'})"
            )
        return v

    def to_core(self) -> dict[str, Any]:
        return {"kind": "registered", "name": self.kind, "params": dict(self.params)}


class PythonCc(_Model):
    """A congestion control written in Python: an instance of a subclass of
    :class:`dumbbell.controls.CongestionControl`, passed as ``cc=`` (see
    ``docs/controls.md``). The core runs it through the embedding's
    ``external`` controls; it exists in Python only, so a scenario holding
    one cannot be written to TOML nor sent to another process."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    kind: Literal["python"] = "python"
    control: Any = Field(
        description="An instance of a subclass of `dumbbell.controls.CongestionControl`, written `cc=MyControl()` "
        "(Python only: a TOML file cannot hold one)."
    )

    @field_validator("control", mode="plain")
    @classmethod
    def _usable(cls, v: Any) -> CongestionControl:
        return check_control(v)

    @field_serializer("control", when_used="json")
    def _as_text(self, v: CongestionControl) -> str:
        return f"python:{type(v).__module__}.{type(v).__qualname__}"

    def to_core(self) -> dict[str, Any]:
        # The id is the control's path in the scenario, set by Scenario.to_core.
        return {"kind": "external", "id": ""}


def _cc_shorthand(v: Any) -> Any:
    """``"dctcp"`` → ``{"kind": "dctcp"}``; a :class:`CongestionControl`
    instance → a :class:`PythonCc`; refuses unknown controls by name."""
    if isinstance(v, CongestionControl) or isinstance(v, type):
        return PythonCc(control=check_control(v))
    if isinstance(v, str) and v.startswith("python:"):
        raise ValueError(
            f"{v[7:]} is a control written in Python: it cannot be read from a file; "
            "pass an instance as cc= in Python"
        )
    if isinstance(v, (PythonCc, KernelModuleCc)):
        return v
    if isinstance(v, dict) and "module" in v and v.get("kind", "module") == "module":
        return v  # a kernel module: `{module = "tcp_cubic.c", params = {...}}`
    if not isinstance(v, (str, dict)) and getattr(v, "kind", None) is None:
        check_control(v)  # says what a cc= value may be
    kind = v if isinstance(v, str) else (v.get("kind") if isinstance(v, dict) else getattr(v, "kind", None))
    if kind == "python" and isinstance(v, dict):
        if isinstance(v.get("control"), str):
            raise ValueError(
                f"{v['control'].removeprefix('python:')} is a control written in Python: it cannot be read "
                "from a file; pass an instance as cc= in Python"
            )
        return v
    if isinstance(v, dict) and kind is None:
        raise ValueError(f"missing `kind` (one of {', '.join(CONTROLS)})")
    if kind not in CONTROLS:
        raise ValueError(f"unknown congestion control {kind!r}{did_you_mean(kind, CONTROLS)} (known: {', '.join(CONTROLS)})")
    if kind in REGISTERED and kind not in BUILTIN_CONTROLS:
        # `{kind = "scalable", ai_cnt = 50}` is `{kind = "scalable", params = {ai_cnt = 50}}`
        if isinstance(v, str):
            return {"kind": v}
        if isinstance(v, dict) and "params" not in v:
            return {"kind": kind, "params": {k: x for k, x in v.items() if k != "kind"}}
    return {"kind": v} if isinstance(v, str) else v


def _cc_tag(v: Any) -> str | None:
    """The union member of a control: its kind, or ``registered``."""
    if isinstance(v, KernelModuleCc) or (isinstance(v, dict) and "module" in v and "kind" not in v):
        return "module"
    kind = _kind_of("cubic")(v)
    return "registered" if kind in REGISTERED and kind not in BUILTIN_CONTROLS else kind


CcConfig = lazy_union(
    {"reno": Reno, "cubic": Cubic, "dctcp": Dctcp, "linear": Linear, "fractional": Fractional,
     "expolinear": Expolinear, "bbr": Bbr, "highspeed": HighSpeed, "vegas": Vegas, "python": PythonCc,
     "module": KernelModuleCc, "registered": Registered},
    _cc_tag,
    BeforeValidator(_cc_shorthand),
)
"""A congestion control: a name (``"dctcp"``), a table with ``kind`` and
parameters, a Linux module's C source (``{module = "tcp_cubic.c"}``,
:func:`dumbbell.KernelModule`), or (in Python) an instance of a subclass of
:class:`dumbbell.controls.CongestionControl`."""


class TcpOptions(_Model):
    """TCP stack options. Unset fields take the core's defaults (Linux's):
    MSS 1448 B, 40 B of headers, initial window 10, receive window 64 MiB,
    SACK on, ECN off (forced on by DCTCP), handshake on, delayed ACKs on
    (40 ms timer, quick-ACK for the first 16 segments), RTO min 200 ms,
    max 120 s, initial 1 s, dupthresh 3, TSQ 128 KiB, no rate cap; and the
    loss recovery Linux runs by default, each switchable: ``tlp`` (tail loss
    probe, RFC 8985 §7), ``rack`` (RACK time-based loss detection, RFC 8985
    §6; off: RFC 6675's DupThresh), ``timestamps`` (RFC 7323: RTT samples
    Karn forbids and Eifel detection of spurious retransmissions, RFC 3522),
    ``dsack`` (RFC 2883) and ``frto`` (F-RTO, RFC 5682); spurious reductions
    are undone through the control's ``undo_cwnd``. TLP and RACK need SACK.
    Linux's reordering adaptation (``reordering_adapt``, up to
    ``max_reordering`` = 300) raises DupThresh when SACKs show reordering;
    ``growth_per_ack`` grows the window per ACK as kernels before 3.18/4.0.
    ``sndbuf_bytes`` bounds the unacknowledged data as Linux's send buffer
    (none by default). ``gso_max_bytes`` (0, off, by default) makes the
    sender send TSO-sized skbs as Linux: segments of Linux's autosize (or
    the control's own size: TCP Prague's, BBR's floor, BBRv3's) leave
    together, a paced sender's gap after each is its whole payload at the
    rate, and TSO deferral waits for bigger skbs while an ACK is near.
    ``gro`` (off) makes the receiver take each such skb whole, as Linux
    behind GRO or a virtio guest receiving whole GSO packets: one ACK per
    skb instead of one per two segments.
    ``profile`` (``linux-2.4`` ... ``linux-6.12``, the
    default era) gives unset options a kernel era's values, and, when given
    by name, the receive window and send buffer of the era's
    ``tcp_rmem``/``tcp_wmem`` maxima (:mod:`dumbbell.scenario.tcp_profiles`);
    options set explicitly win."""

    model_config = BUILT_AT_IMPORT

    mss_bytes: Annotated[int, Field(ge=MIN_MSS_BYTES, le=MAX_MSS_BYTES)] | None = Field(
        None, description="Segment payload, bytes (1448)."
    )
    header_bytes: Annotated[int, Field(ge=0, le=MAX_HEADER_BYTES)] | None = Field(
        None, description="TCP/IP header bytes on the wire per segment (40)."
    )
    init_cwnd_pkts: Annotated[int, Field(ge=1, le=MAX_INIT_CWND_PKTS)] | None = Field(
        None, description="Initial window, packets (10)."
    )
    rwnd_bytes: Annotated[int, Field(ge=1, le=MAX_RWND_BYTES)] | None = Field(
        None, description="Receive window, bytes, at least one MSS (64 MiB)."
    )
    sndbuf_bytes: Annotated[int, Field(ge=1, le=MAX_RWND_BYTES)] | None = Field(
        None, description="Send buffer, bytes: unacknowledged data is held within it, as Linux's sk_sndbuf (none)."
    )
    sack: bool | None = None
    ecn: bool | None = None
    handshake: bool | None = None
    delayed_ack: bool | None = None
    delack_timeout_s: Annotated[Seconds, Field(ge=MIN_DELACK_S, le=MAX_DELACK_S)] | None = Field(
        None, description="Delayed-ACK timer, s (0.04)."
    )
    quickack_segments: Annotated[int, Field(ge=0, le=U32_MAX)] | None = Field(
        None, description="Segments ACKed at once at the start, segments (16)."
    )
    min_rto_s: Annotated[Seconds, Field(ge=MIN_RTO_S, le=MAX_RTO_S)] | None = Field(
        None, description="Smallest RTO, s (0.2)."
    )
    max_rto_s: Annotated[Seconds, Field(ge=MIN_RTO_S, le=MAX_RTO_S)] | None = Field(
        None, description="Largest RTO, s, at least min_rto_s (120)."
    )
    init_rto_s: Annotated[Seconds, Field(ge=MIN_RTO_S, le=MAX_RTO_S)] | None = Field(
        None, description="RTO before the first RTT sample, s (1)."
    )
    dupthresh: Annotated[int, Field(ge=1, le=MAX_DUPTHRESH)] | None = Field(
        None, description="Duplicate-ACK threshold, packets (3)."
    )
    tsq_bytes: Annotated[int, Field(ge=0, le=MAX_TSQ_BYTES)] | None = Field(
        None, description="TCP-small-queues cap, bytes; 0 disables it (131072)."
    )
    max_rate_bps: Rate | None = Field(None, description="Sender rate cap, bit/s (none).")
    gso_max_bytes: Annotated[int, Field(ge=0, le=MAX_GSO_BYTES)] | None = Field(
        None, description="TSO bursts: largest skb, bytes (Linux gso_max_size, 65536); skbs of Linux's autosize "
        "leave together, paced per skb, and TSO deferral waits for bigger ones; 0 = off, segment by segment (0)."
    )
    gro: bool | None = Field(
        None, description="The receiver takes each TSO skb whole (Linux GRO, a virtio guest's whole GSO packets): "
        "one ACK per skb, not per two segments; acts with gso_max_bytes only (off)."
    )
    tlp: bool | None = Field(None, description="Tail loss probe, RFC 8985 (on; needs SACK).")
    rack: bool | None = Field(None, description="RACK loss detection, RFC 8985 (on; needs SACK).")
    timestamps: bool | None = Field(None, description="TCP timestamps with Eifel undo, RFC 7323/3522 (on).")
    dsack: bool | None = Field(None, description="D-SACK, RFC 2883 (on).")
    frto: bool | None = Field(None, description="F-RTO, RFC 5682 (on).")
    copy_effect: Literal["ce", "linux"] | None = Field(
        None, description="What the sender does with a copy of its own segment a switch returned (packet return): "
        "'ce', a congestion echo (the packet-return paper's intent; default); 'linux', Linux's receive path: "
        "dropped as out of window, a duplicate ACK to the peer, no effect on the window.")
    reordering_adapt: bool | None = Field(
        None, description="Linux's reordering adaptation: DupThresh rises to the reordering seen (on)."
    )
    max_reordering: Annotated[int, Field(ge=1, le=MAX_DUPTHRESH)] | None = Field(
        None, description="Cap of the reordering adaptation, packets (300; 127 before Linux 3.16)."
    )
    growth_per_ack: bool | None = Field(
        None, description="Window growth counts ACKs, not segments acked, as Linux before 3.18/4.0 (off)."
    )
    profile: str | None = Field(
        None,
        description=(
            "Kernel-era profile: linux-2.4, linux-2.6.32, linux-3.2, linux-6.8 or linux-6.12 (the default);"
            " unset options take the era's values (`tcp_profiles`)."
        ),
    )

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, v: str | None) -> str | None:
        return None if v is None else check_profile(v)

    @model_validator(mode="after")
    def _order(self) -> "TcpOptions":
        # Unset values are the core's defaults.
        lo = 0.2 if self.min_rto_s is None else self.min_rto_s
        hi = 120.0 if self.max_rto_s is None else self.max_rto_s
        if hi < lo:
            raise ConfigError("max_rto_s", f"must be at least min_rto_s ({hi:g} < {lo:g})")
        mss = 1448 if self.mss_bytes is None else self.mss_bytes
        if self.rwnd_bytes is not None and self.rwnd_bytes < mss:
            raise ConfigError("rwnd_bytes", f"must hold one MSS ({self.rwnd_bytes} < {mss})")
        if self.sndbuf_bytes is not None and self.sndbuf_bytes < mss:
            raise ConfigError("sndbuf_bytes", f"must hold one MSS ({self.sndbuf_bytes} < {mss})")
        if self.gso_max_bytes and self.gso_max_bytes < mss:
            raise ConfigError("gso_max_bytes", f"must hold one MSS, or be 0 ({self.gso_max_bytes} < {mss})")
        if self.sack is False:
            for name in ("tlp", "rack"):
                if getattr(self, name):
                    raise ConfigError(name, f"{name} needs SACK (sack is false)")
        return self

    def resolved(self) -> dict[str, Any]:
        """The options as set, with the profile's values for those left
        unset (``None`` still means the core's default)."""
        values = self.model_dump()
        named = values.pop("profile")
        mss = 1448 if self.mss_bytes is None else self.mss_bytes
        # The buffers only for a profile given by name (tcp_profiles).
        for name, value in profile_values(named or DEFAULT_PROFILE, mss, buffers=named is not None).items():
            if values[name] is None:
                values[name] = value
        return values

    def to_core(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in self.resolved().items():
            if value is None:
                continue
            if name.endswith("_s"):
                out[name[:-2] + "_ps"] = seconds_to_ps(value)
            else:
                out[name] = value
        return out
