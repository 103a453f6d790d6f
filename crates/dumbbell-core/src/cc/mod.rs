//! Congestion control: the [`CongestionControl`] trait, which mirrors Linux's
//! `struct tcp_congestion_ops` hook for hook, the shared helpers
//! (`tcp_slow_start`, `tcp_cong_avoid_ai`) and one file per control.
//!
//! Mechanism lives in the stack, policy in the control: the sender
//! (`tcp::sender`) owns loss detection, recovery, RTT and delivery-rate
//! sampling; a control reads and writes the window fields of [`TcpSock`].
//!
//! # The per-ACK hook order (one place, one path)
//!
//! For every ACK that reaches an established sender, `Sender::on_ack` runs,
//! in this order (as `tcp_ack()` in `net/ipv4/tcp_input.c`):
//!
//! 1. the scoreboard is updated: a D-SACK block first (it counts against
//!    the undo of the current reduction and widens RACK's window), then the
//!    SACK blocks and the cumulative ACK; RACK's most recently delivered
//!    segment advances; reordering is noted (a hole filled by its
//!    original); RTT is taken from newly delivered segments (Karn), or from
//!    the echoed timestamp when Karn forbids it; the rate sample's
//!    per-packet part is taken;
//! 2. `in_ack_event(flags)` — with [`ack_flags::ECE`] if the ACK echoes
//!    congestion;
//! 3. `pkts_acked(sample)` — if any packet was newly acked or SACKed;
//! 4. RACK's reordering window is updated (`tcp_rack_update_reo_wnd`);
//!    during a tail-loss-probe episode the ACK is checked against the probe
//!    (`tcp_process_tlp_ack`: a retransmitted probe that repaired a loss
//!    enters and leaves CWR here, with `ssthresh()`, `set_state(Cwr)`,
//!    `cwnd_event(CompleteCwr)`);
//! 5. the recovery state machine (`tcp_fastretrans_alert`), for the ACKs
//!    Linux finds dubious (all but those advancing `snd_una` in Open with no
//!    SACK, ECE or D-SACK): exits at the recovery point (`set_state(Open)`
//!    then `cwnd_event(CompleteCwr)`, or `undo_cwnd()` if the reduction was
//!    spurious); the undo checks (D-SACK, Eifel timestamps, and in Loss
//!    F-RTO), each calling `undo_cwnd()`; loss detection (RACK, or RFC 6675
//!    DupThresh, or NewReno), which may arm RACK's reordering timer; on
//!    entering a reduction (Recovery on loss, CWR on ECE) `ssthresh()` is
//!    called and then `set_state(new)`; `set_state` is always called
//!    *before* `ca_state` changes; on RTO, the timer path calls `ssthresh()`
//!    and `cwnd_event(Loss)` (unless a reduction of the same window is
//!    under way) and then `set_state(Loss)` — on every RTO, also when
//!    already in Loss, as Linux's `tcp_enter_loss`;
//! 6. if the ACK advanced `snd_una` and RACK did not arm its timer, the
//!    retransmission timer restarts: as the tail loss probe where one may be
//!    scheduled (Open or CWR), else as the RTO (`tcp_set_xmit_timer`);
//! 7. the rate sample is completed (`tcp_rate_gen`);
//! 8. if the control implements `cong_control`, it alone sets cwnd and
//!    pacing; otherwise the stack reduces the window (PRR) while in CWR or
//!    Recovery, or calls `cong_avoid(ack, acked)` when it may grow;
//! 9. transmission: retransmissions of lost segments, then new data (new
//!    data only on F-RTO's step 2b); after new data the probe is scheduled
//!    again.
//!
//! # Returned copies (packet return, not an ACK)
//!
//! A switch with a packet-return policy (`queue::feedback`; Silva, Vieira
//! and Nacif, "Data Center TCP com Histerese em Switches P4", §4.2) sends
//! a copy of a congested segment back to its sender. The copy carries no
//! acknowledgment. With `TcpConfig::copy_effect = Linux` the sender drops
//! it as Linux's receive path does (out of window, a duplicate ACK to the
//! peer) and nothing below happens; with `Ce` (the default)
//! `Sender::on_returned` treats it as a congestion echo for the flow, in
//! this order:
//!
//! 7. `tp.delivered_ce` grows by one: DCTCP (and any control that reads
//!    `delivered_ce`) counts one more marked segment in its current
//!    observation window, taken into alpha at the next window boundary in
//!    `in_ack_event` (step 2 of a later ACK);
//! 8. unless a reduction is already under way (CWR, Recovery or Loss), the
//!    stack enters CWR exactly as on ECE in step 4: `ssthresh()`, then
//!    `set_state(Cwr)`; the window then shrinks by PRR on the following
//!    ACKs (step 6). CWR lasts until `snd_una` passes the recovery point,
//!    about one RTT, so however many copies arrive in one window the window
//!    is reduced once. No other hook runs: there is nothing acknowledged,
//!    no RTT and no rate sample.
//!
//! `cwnd_event(TxStart)` is raised when a data segment, new or
//! retransmitted, leaves with nothing in flight (Linux
//! `tcp_event_data_sent`: the first segment, a restart after idle, the
//! retransmission after an RTO), `cwnd_event(CompleteCwr)` when a CWR or
//! Recovery reduction completes (not for controls with `cong_control`, as
//! in Linux).

pub mod bbr;
/// BBRv3 (registered as `bbr3`).
pub mod bbr3;
pub mod bbr_common;
pub mod cubic;
mod cubic_root;
pub mod dctcp;
pub mod highspeed;
pub mod prague;
pub mod registry;
pub mod reno;
pub mod scalable;
// Madeira and Mattos's Linear, Fractional, Expolinear and the phase machine they share.
pub mod expolinear;
pub mod fractional;
pub mod linear;
pub mod loss_phases;

pub mod vegas;

pub use registry::CcConfig;

use crate::param::{ConfigError, ParamError, Params};
use crate::sim::{Dur, Rng, Time};

/// How a control is built from its parameters (unset ones at their
/// defaults) and the connection's random stream, or why the parameters
/// are refused.
pub type MakeFn = fn(&Params, Rng) -> Result<Box<dyn CongestionControl>, ParamError>;

/// One control as a configuration names it (`cc/<name>.rs` declares its
/// own; [`registry`] lists them).
pub type Registration = crate::param::Registration<MakeFn>;

/// A built-in control's [`Registration`], as its file declares it: its
/// name and sentence, its parameters (the `PARAMS` table, the struct whose
/// `Default` holds the defaults, and the `check` of its ranges and rules)
/// and how it is built: `new` from the parameters alone, or `build` from
/// them and the connection's random stream. A control whose only rules are
/// its ranges gives `ranges: [field, ...]` in place of `check` and writes
/// the macro as a statement: it writes `check` and `REGISTRATION` both
/// (`param::ranged_registration!`).
macro_rules! registration {
    { name: $name:literal, about: $about:literal, params: $params:expr, config: $config:ty,
      check: $check:expr, build: $build:expr $(,)? } => {
        $crate::cc::Registration::new::<$config>($name, $about, $params, |params, rng| {
            $crate::cc::made::<$config, _>(params, $check, |p| ($build)(p, rng))
        })
    };
    { name: $name:literal, about: $about:literal, params: $params:expr, config: $config:ty,
      check: $check:expr, new: $new:path $(,)? } => {
        $crate::cc::registration! { name: $name, about: $about, params: $params, config: $config,
            check: $check, build: |p, _rng| $new(p) }
    };
    // `ranges: [...]` in place of `check:`: a statement that writes the
    // `check` of those ranges and the `REGISTRATION` (param.rs).
    { $($item:tt)+ } => { $crate::param::ranged_registration! { cc, $($item)+ } };
}
pub(crate) use registration;

/// What a control's `make` does: decodes its parameters (unset ones at
/// their defaults), checks them, and builds the control from them.
pub fn made<T: serde::de::DeserializeOwned, C: CongestionControl + 'static>(
    params: &Params,
    check: fn(&T) -> Result<(), ParamError>,
    build: impl FnOnce(T) -> C,
) -> Result<Box<dyn CongestionControl>, ParamError> {
    crate::param::made(params, check, |p| {
        Box::new(build(p)) as Box<dyn CongestionControl>
    })
}

/// Linux `enum tcp_ca_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
#[repr(u8)]
pub enum CaState {
    #[default]
    Open = 0,
    Disorder = 1,
    Cwr = 2,
    Recovery = 3,
    Loss = 4,
}

/// Linux `enum tcp_ca_event`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaEvent {
    /// First transmission when no packets are in flight.
    TxStart,
    /// Congestion window restart after idle.
    CwndRestart,
    /// The end of a CWR or Recovery reduction.
    CompleteCwr,
    /// Retransmission timeout.
    Loss,
    /// Receiver-side ECN events (the accurate-ECN receiver in `tcp::receiver`
    /// implements DCTCP's echo itself; these are kept for ported modules).
    EcnNoCe,
    EcnIsCe,
}

/// Flags of `in_ack_event` (Linux `enum tcp_ca_ack_event_flags`).
pub mod ack_flags {
    /// Not the fast path (always set in dumbbell: there is no header prediction).
    pub const SLOWPATH: u32 = 1;
    /// The ACK updated the receive window.
    pub const WIN_UPDATE: u32 = 2;
    /// The ACK carries ECE.
    pub const ECE: u32 = 4;
}

/// Per-ACK sample for `pkts_acked` (Linux `struct ack_sample`).
#[derive(Clone, Copy, Debug, Default)]
pub struct AckSample {
    /// Packets newly acked or SACKed by this ACK.
    pub pkts_acked: u32,
    /// RTT from the most recently sent never-retransmitted packet this ACK
    /// covers (Karn), if there is one.
    pub rtt: Option<Dur>,
    /// Packets in flight before this ACK.
    pub in_flight: u32,
}

/// A delivery-rate sample (Linux `struct rate_sample`, `tcp_rate.c`).
#[derive(Clone, Copy, Debug, Default)]
pub struct RateSample {
    /// `delivered` of the most recent packet this ACK delivered, when it was sent.
    pub prior_delivered: u64,
    pub prior_delivered_ce: u64,
    /// When that packet's delivery snapshot was taken.
    pub prior_time: Time,
    /// Packets delivered over the interval (None if no valid sample).
    pub delivered: Option<u64>,
    pub delivered_ce: u64,
    /// Interval over which `delivered` were delivered: max(send, ack) phase.
    pub interval: Dur,
    pub snd_interval: Dur,
    pub rcv_interval: Dur,
    /// RTT of the most recent delivered packet (None if retransmitted).
    pub rtt: Option<Dur>,
    /// Packets marked lost upon this ACK.
    pub losses: u32,
    /// Packets newly acked or SACKed by this ACK.
    pub acked_sacked: u32,
    /// Packets in flight before this ACK.
    pub prior_in_flight: u32,
    /// The sample was taken while the application limited sending.
    pub is_app_limited: bool,
    /// The most recent delivered packet was a retransmission.
    pub is_retrans: bool,
    /// Packets in flight when the most recent delivered packet was sent,
    /// itself included (Linux v3 `rs->tx_in_flight`; BBRv3 reads it).
    pub tx_in_flight: u32,
    /// `tp.lost` when that packet was sent, and the packets marked lost
    /// since (Linux v3 `rs->lost`: the losses over the sample's flight).
    pub prior_lost: u64,
    pub lost: u64,
    /// The ACK echoed congestion (ECE; Linux v3 `rs->is_ece`).
    pub is_ece: bool,
}

/// What a control learns of a segment the stack has just marked lost
/// (Linux v3 `skb_marked_lost`), from the segment's send-time snapshot.
#[derive(Clone, Copy, Debug, Default)]
pub struct LostSegment {
    /// Packets in flight when it was sent, itself included (`tx.in_flight`).
    pub tx_in_flight: u32,
    /// Packets marked lost since it was sent, itself included
    /// (`tp->lost - tx.lost`).
    pub lost: u64,
    /// It was sent while the application limited sending.
    pub is_app_limited: bool,
}

impl RateSample {
    /// Delivery rate in packets per second, if the sample is valid.
    pub fn rate_pps(&self) -> Option<f64> {
        match self.delivered {
            Some(d) if !self.interval.is_zero() => Some(d as f64 / self.interval.secs_f64()),
            _ => None,
        }
    }
}

/// The part of a TCP sender a congestion control may read and write
/// (the fields of Linux's `struct tcp_sock` that controls use).
/// Windows are in packets, as in Linux.
#[derive(Clone, Debug)]
pub struct TcpSock {
    pub now: Time,
    pub mss: u32,
    pub snd_cwnd: u32,
    pub snd_ssthresh: u32,
    /// Linear-increase counter (`snd_cwnd_cnt`).
    pub snd_cwnd_cnt: u32,
    pub snd_cwnd_clamp: u32,
    /// cwnd before the last reduction started (for undo).
    pub prior_cwnd: u32,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub packets_out: u32,
    pub sacked_out: u32,
    pub lost_out: u32,
    pub retrans_out: u32,
    /// Total packets delivered (acked or SACKed) and CE-echoed so far.
    pub delivered: u64,
    pub delivered_ce: u64,
    /// Total packets marked lost so far.
    pub lost: u64,
    /// When `delivered` last grew (Linux `delivered_mstamp`); reset to the
    /// send time when a flight starts with nothing outstanding.
    pub delivered_mstamp: Time,
    /// Application-limited until `delivered` passes this count; 0 = not
    /// limited (Linux `tp->app_limited`, set by `tcp_rate_check_app_limited`,
    /// and by BBR during ProbeRTT). [`APP_LIMITED_AT_START`] marks the first
    /// flight, as Linux's `tcp_init_sock` does with `~0U`.
    pub app_limited: u64,
    pub srtt: Dur,
    pub min_rtt: Dur,
    pub ca_state: CaState,
    /// The last window was fully used (`tcp_is_cwnd_limited`).
    pub is_cwnd_limited: bool,
    pub max_packets_out: u32,
    /// Pacing rate in bit/s (Linux's `sk_pacing_rate` is in bytes/s); 0 = unset.
    pub pacing_rate_bps: u64,
    /// Earliest departure time of the next paced segment (Linux
    /// `tcp_wstamp_ns`); in the past when the sender may send at once.
    pub wstamp: Time,
    /// ECN was negotiated on this connection.
    pub ecn_ok: bool,
    /// Accurate ECN (`tcp::accecn`) was negotiated: `delivered_ce` counts
    /// the CE-marked packets the receiver's ACE counter reported.
    pub accecn_ok: bool,
    /// Time of the last window change (`snd_cwnd_stamp`).
    pub snd_cwnd_stamp: Time,
    /// Time of the last data transmission (`lsndtime`). As in Linux's
    /// `tcp_event_data_sent`, the stack raises `cwnd_event(TxStart)` before
    /// updating it, so the control sees when sending last happened.
    pub lsndtime: Time,
}

impl TcpSock {
    pub fn new(mss: u32, init_cwnd: u32) -> Self {
        TcpSock {
            now: Time::ZERO,
            mss,
            snd_cwnd: init_cwnd,
            snd_ssthresh: INFINITE_SSTHRESH,
            snd_cwnd_cnt: 0,
            snd_cwnd_clamp: u32::MAX / 2,
            prior_cwnd: init_cwnd,
            snd_una: 0,
            snd_nxt: 0,
            packets_out: 0,
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            delivered: 0,
            delivered_ce: 0,
            lost: 0,
            delivered_mstamp: Time::ZERO,
            app_limited: APP_LIMITED_AT_START,
            srtt: Dur::ZERO,
            min_rtt: Dur::MAX,
            ca_state: CaState::Open,
            is_cwnd_limited: false,
            max_packets_out: 0,
            pacing_rate_bps: 0,
            wstamp: Time::ZERO,
            ecn_ok: false,
            accecn_ok: false,
            snd_cwnd_stamp: Time::ZERO,
            lsndtime: Time::ZERO,
        }
    }

    /// Linux `tcp_packets_in_flight`: out − (sacked + lost) + retransmitted.
    pub fn in_flight(&self) -> u32 {
        (self.packets_out + self.retrans_out).saturating_sub(self.sacked_out + self.lost_out)
    }

    /// Linux `tcp_in_slow_start`.
    pub fn in_slow_start(&self) -> bool {
        self.snd_cwnd < self.snd_ssthresh
    }
}

/// Linux `TCP_INFINITE_SSTHRESH`.
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// `tp.app_limited` of a new connection. Linux's `tcp_init_sock` sets
/// `app_limited = ~0U`: the first flight's rate samples are app-limited
/// (nothing was sent before it), and the first `tcp_rate_gen` clears the
/// mark, since with 32-bit wrap-around any small `delivered` count is
/// "after" `~0U`. The stack reproduces that with this sentinel.
pub const APP_LIMITED_AT_START: u64 = u64::MAX;

/// The interface every congestion control implements. Required: `name`,
/// `ssthresh`, and `cong_avoid` unless `cong_control` is implemented.
pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;

    /// Called once when the connection is established.
    fn init(&mut self, _tp: &mut TcpSock) {}

    /// New slow-start threshold on entering a reduction (loss, ECE, RTO).
    fn ssthresh(&mut self, tp: &TcpSock) -> u32;

    /// Window growth on an ACK when the stack may raise cwnd.
    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u64, acked: u32);

    /// Called before `tp.ca_state` changes to `new_state`.
    fn set_state(&mut self, _tp: &mut TcpSock, _new_state: CaState) {}

    fn cwnd_event(&mut self, _tp: &mut TcpSock, _ev: CaEvent) {}

    /// Called at the start of ACK processing with [`ack_flags`].
    fn in_ack_event(&mut self, _tp: &mut TcpSock, _flags: u32) {}

    fn pkts_acked(&mut self, _tp: &mut TcpSock, _sample: &AckSample) {}

    /// A segment was just marked lost, `tp.lost` already counting it
    /// (Linux v3's `skb_marked_lost`; BBRv3 finds there where, in the
    /// flight, the loss rate crossed its threshold).
    fn skb_marked_lost(&mut self, _tp: &mut TcpSock, _seg: &LostSegment) {}

    /// cwnd after a reduction turned out spurious (`tcp_reno_undo_cwnd`).
    fn undo_cwnd(&mut self, tp: &TcpSock) -> u32 {
        tp.snd_cwnd.max(tp.prior_cwnd)
    }

    /// True if the control sets cwnd and pacing itself from rate samples;
    /// the stack then skips its own reduction and growth.
    fn has_cong_control(&self) -> bool {
        false
    }

    fn cong_control(&mut self, _tp: &mut TcpSock, _ack: u64, _rs: &RateSample) {}

    /// The control needs ECN (Linux `TCP_CONG_NEEDS_ECN`).
    fn needs_ecn(&self) -> bool {
        false
    }

    /// An L4S control (RFC 9331): its data is sent ECT(1) rather than
    /// ECT(0), and the connection asks for Accurate ECN in the handshake.
    fn l4s(&self) -> bool {
        false
    }

    /// The stack must pace at `tp.pacing_rate_bps` (Linux `SK_PACING_NEEDED`).
    fn wants_pacing(&self) -> bool {
        false
    }

    /// Internal state for tracing, as (name, value) pairs.
    fn trace_vars(&self, _out: &mut dyn FnMut(&'static str, f64)) {}

    /// The segments of the skbs the control wants with TSO on
    /// (`TcpConfig::gso_max_bytes`): Linux's `tso_segs` hook of
    /// `tcp_congestion_ops`, which `tcp_tso_segs` calls in place of the
    /// generic autosize; `pacing_bytes_per_s` is the rate the stack paces
    /// at (0: none), `gso_max_bytes` the largest skb. `None`: the generic
    /// rule (`tcp::sender::tso`), with [`Self::min_tso_segs`] its floor.
    fn tso_segs(
        &self,
        _tp: &TcpSock,
        _pacing_bytes_per_s: u64,
        _gso_max_bytes: u32,
    ) -> Option<u32> {
        None
    }

    /// The floor of the generic autosize: Linux's `min_tso_segs` hook;
    /// `None`: the `tcp_min_tso_segs` sysctl (2).
    fn min_tso_segs(&self, _tp: &TcpSock, _pacing_bytes_per_s: u64) -> Option<u32> {
        None
    }
}

/// Linux `tcp_slow_start`: grow by `acked` up to ssthresh; return the
/// leftover acked packets.
pub fn tcp_slow_start(tp: &mut TcpSock, acked: u32) -> u32 {
    let cwnd = (tp.snd_cwnd.saturating_add(acked)).min(tp.snd_ssthresh);
    let left = acked - (cwnd - tp.snd_cwnd).min(acked);
    tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp);
    left
}

/// Linux `tcp_cong_avoid_ai`: grow by one packet every `w` acked packets.
pub fn tcp_cong_avoid_ai(tp: &mut TcpSock, w: u32, acked: u32) {
    let w = w.max(1);
    if tp.snd_cwnd_cnt >= w {
        tp.snd_cwnd_cnt = 0;
        tp.snd_cwnd += 1;
    }
    tp.snd_cwnd_cnt += acked;
    if tp.snd_cwnd_cnt >= w {
        let delta = tp.snd_cwnd_cnt / w;
        tp.snd_cwnd_cnt -= delta * w;
        tp.snd_cwnd += delta;
    }
    tp.snd_cwnd = tp.snd_cwnd.min(tp.snd_cwnd_clamp);
}

/// The opening every Linux `cong_avoid` hook shares: nothing while the flow
/// is not cwnd-limited, then slow start takes its share of the ACKed packets.
/// Returns the packets left for congestion avoidance, or `None` when there is
/// nothing more to do (not cwnd-limited, or slow start used them all).
pub fn slow_start_then_avoid(tp: &mut TcpSock, acked: u32) -> Option<u32> {
    if !tp.is_cwnd_limited {
        return None;
    }
    if !tp.in_slow_start() {
        return Some(acked);
    }
    match tcp_slow_start(tp, acked) {
        0 => None,
        left => Some(left),
    }
}

/// Linux `tcp_reno_cong_avoid`.
pub fn tcp_reno_cong_avoid(tp: &mut TcpSock, acked: u32) {
    if let Some(acked) = slow_start_then_avoid(tp, acked) {
        tcp_cong_avoid_ai(tp, tp.snd_cwnd, acked);
    }
}

/// Linux `tcp_reno_ssthresh`: half the window, at least 2.
pub fn tcp_reno_ssthresh(tp: &TcpSock) -> u32 {
    (tp.snd_cwnd >> 1).max(2)
}

/// Builds the controls a configuration names `external` (`CcConfig::External`):
/// the way an embedding adds controls the core does not know, without the
/// core knowing anything of it (the Python binding implements it with
/// classes written in Python; a Rust program can implement it directly).
///
/// The run asks [`check`](Self::check) for every external control before
/// anything is built, and [`make`](Self::make) once per connection (a flow,
/// or each connection of a task), in the order connections are created.
pub trait ExternalControls: Send + Sync {
    /// `Err(why)` if this factory cannot build a control for `id`.
    fn check(&self, id: &str) -> Result<(), String>;

    /// A new control for one connection. `rng` is the connection's own
    /// stream, as [`make`] hands built-in controls.
    fn make(&self, id: &str, rng: Rng) -> Box<dyn CongestionControl>;
}

/// Builds the control a configuration names. `rng` is the flow's own
/// random stream (`flow:<name>:cc`, see `world.rs`) for the controls that
/// draw (BBR's gain-cycle phase, Linux `prandom`); the others ignore it.
/// An `external` control needs the run's factory: see [`make_with`].
pub fn make(cfg: &CcConfig, rng: Rng) -> Box<dyn CongestionControl> {
    make_with(cfg, rng, None)
}

/// [`make`], with the run's factory of external controls (`World::build`
/// has checked with [`ExternalControls::check`] that it knows every id).
pub fn make_with(
    cfg: &CcConfig,
    rng: Rng,
    external: Option<&dyn ExternalControls>,
) -> Box<dyn CongestionControl> {
    match cfg {
        CcConfig::Registered(p) => {
            let r = registry::find(&p.name).expect("checked by validate");
            (r.make)(&p.params, rng).expect("checked by validate")
        }
        CcConfig::External(p) => match external {
            Some(f) => f.make(&p.id, rng),
            None => panic!("external control {:?} without a factory", p.id),
        },
        CcConfig::Reno => Box::new(reno::Reno),
        CcConfig::Cubic(p) => Box::new(cubic::Cubic::new(p.clone())),
        CcConfig::Dctcp(p) => Box::new(dctcp::Dctcp::new(p.clone())),
        // Linear, Fractional, Expolinear: the initial sequence number their 32-bit gate counts from.
        CcConfig::Linear(p) => Box::new(linear::Linear::new(p.clone()).with_isn(isn(rng))),
        CcConfig::Fractional(p) => {
            Box::new(fractional::Fractional::new(p.clone()).with_isn(isn(rng)))
        }
        CcConfig::Expolinear(p) => {
            Box::new(expolinear::Expolinear::new(p.clone()).with_isn(isn(rng)))
        }
        CcConfig::Bbr(p) => Box::new(bbr::Bbr::new(p.clone(), rng)),
        CcConfig::Highspeed(p) => Box::new(highspeed::HighSpeed::new(p.clone())),
        CcConfig::Vegas(p) => Box::new(vegas::Vegas::new(p.clone())),
    }
}

/// A connection's control as the sender holds it: the built-in controls
/// the benchmarks and most experiments run (Reno, Cubic, DCTCP) held
/// directly, so that their hooks are static calls the compiler can inline
/// on the per-ACK path; every other control (BBR, Madeira and Mattos's controls,
/// registered and external ones, ...) behind the trait object. Both
/// behave alike: `Control` is itself a [`CongestionControl`].
pub enum Control {
    Reno(reno::Reno),
    Cubic(Box<cubic::Cubic>),
    Dctcp(Box<dctcp::Dctcp>),
    Dyn(Box<dyn CongestionControl>),
}

impl From<Box<dyn CongestionControl>> for Control {
    fn from(cc: Box<dyn CongestionControl>) -> Self {
        Control::Dyn(cc)
    }
}

/// Forwards one `CongestionControl` call to the variant's control.
macro_rules! each_control {
    ($self:expr, $c:ident => $e:expr) => {
        match $self {
            Control::Reno($c) => $e,
            Control::Cubic($c) => $e,
            Control::Dctcp($c) => $e,
            Control::Dyn($c) => $e,
        }
    };
}

impl CongestionControl for Control {
    fn name(&self) -> &'static str {
        each_control!(self, c => c.name())
    }
    fn init(&mut self, tp: &mut TcpSock) {
        each_control!(self, c => c.init(tp))
    }
    #[inline]
    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        each_control!(self, c => c.ssthresh(tp))
    }
    #[inline]
    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u64, acked: u32) {
        each_control!(self, c => c.cong_avoid(tp, ack, acked))
    }
    #[inline]
    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        each_control!(self, c => c.set_state(tp, new_state))
    }
    #[inline]
    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        each_control!(self, c => c.cwnd_event(tp, ev))
    }
    #[inline]
    fn in_ack_event(&mut self, tp: &mut TcpSock, flags: u32) {
        each_control!(self, c => c.in_ack_event(tp, flags))
    }
    #[inline]
    fn pkts_acked(&mut self, tp: &mut TcpSock, sample: &AckSample) {
        each_control!(self, c => c.pkts_acked(tp, sample))
    }
    #[inline]
    fn skb_marked_lost(&mut self, tp: &mut TcpSock, seg: &LostSegment) {
        each_control!(self, c => c.skb_marked_lost(tp, seg))
    }
    #[inline]
    fn undo_cwnd(&mut self, tp: &TcpSock) -> u32 {
        each_control!(self, c => c.undo_cwnd(tp))
    }
    fn has_cong_control(&self) -> bool {
        each_control!(self, c => c.has_cong_control())
    }
    #[inline]
    fn cong_control(&mut self, tp: &mut TcpSock, ack: u64, rs: &RateSample) {
        each_control!(self, c => c.cong_control(tp, ack, rs))
    }
    fn needs_ecn(&self) -> bool {
        each_control!(self, c => c.needs_ecn())
    }
    fn l4s(&self) -> bool {
        each_control!(self, c => c.l4s())
    }
    fn wants_pacing(&self) -> bool {
        each_control!(self, c => c.wants_pacing())
    }
    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        each_control!(self, c => c.trace_vars(out))
    }
    #[inline]
    fn tso_segs(&self, tp: &TcpSock, pacing_bytes_per_s: u64, gso_max_bytes: u32) -> Option<u32> {
        each_control!(self, c => c.tso_segs(tp, pacing_bytes_per_s, gso_max_bytes))
    }
    #[inline]
    fn min_tso_segs(&self, tp: &TcpSock, pacing_bytes_per_s: u64) -> Option<u32> {
        each_control!(self, c => c.min_tso_segs(tp, pacing_bytes_per_s))
    }
}

/// [`make_with`] as a [`Control`]: Reno, Cubic and DCTCP built the same
/// way, held directly; every other control as `make_with` builds it.
pub fn make_control(cfg: &CcConfig, rng: Rng, external: Option<&dyn ExternalControls>) -> Control {
    match cfg {
        CcConfig::Reno => Control::Reno(reno::Reno),
        CcConfig::Cubic(p) => Control::Cubic(Box::new(cubic::Cubic::new(p.clone()))),
        CcConfig::Dctcp(p) => Control::Dctcp(Box::new(dctcp::Dctcp::new(p.clone()))),
        _ => Control::Dyn(make_with(cfg, rng, external)),
    }
}

pub use cubic::MAX_CUBIC_C;
pub use dctcp::MAX_DCTCP_SHIFT_G;

/// A random 32-bit initial sequence number from the flow's stream.
pub(crate) fn isn(mut rng: Rng) -> u32 {
    (rng.next_u64() >> 32) as u32
}

/// Rejects out-of-range parameters of a configuration; `field` is its path
/// (`flows[0].cc`). Every float is finite and every parameter has a range;
/// each control's file declares and checks its own.
pub fn validate(cfg: &CcConfig, field: &str) -> Result<(), ConfigError> {
    let checked = match cfg {
        CcConfig::Cubic(p) => cubic::check(p),
        CcConfig::Dctcp(p) => dctcp::check(p),
        CcConfig::Highspeed(p) => highspeed::check(p),
        CcConfig::Vegas(p) => vegas::check(p),
        CcConfig::Bbr(p) => bbr::check(p),
        CcConfig::Linear(p) => linear::check(p),
        CcConfig::Fractional(p) => fractional::check(p),
        CcConfig::Expolinear(p) => expolinear::check(p),
        CcConfig::Reno => Ok(()),
        CcConfig::Registered(p) => return validate_registered(p, field),
        CcConfig::External(p) => {
            if p.id.is_empty() {
                Err(ParamError::new("id", "an external control needs an id"))
            } else {
                Ok(())
            }
        }
    };
    checked.map_err(|e| e.at(field, field))
}

/// An L4S control (Prague) on a connection without ECN is refused, naming
/// `tcp_field` (`flows[0].tcp.ecn`): it cannot send ECT(1) or read marks.
pub fn check_l4s_ecn(
    cc: &CcConfig,
    ecn: bool,
    tcp_field: &str,
) -> Result<(), crate::param::ConfigError> {
    let CcConfig::Registered(p) = cc else {
        return Ok(());
    };
    let l4s = registry::find(&p.name)
        .and_then(|r| (r.make)(&p.params, crate::sim::rng_for(0, "cc:check")).ok())
        .is_some_and(|c| c.l4s());
    if l4s && !ecn {
        return Err(crate::param::ConfigError::new(
            format!("{tcp_field}.ecn"),
            format!(
                "{} is an L4S control: it needs ECN (set ecn = true)",
                p.name
            ),
        ));
    }
    Ok(())
}

/// A registered control's name and parameters, errors naming
/// `field.name` or `field.params.<name>`.
fn validate_registered(p: &registry::RegisteredParams, field: &str) -> Result<(), ConfigError> {
    let Some(r) = registry::find(&p.name) else {
        let known: Vec<&str> = registry::REGISTRY.iter().map(|r| r.name).collect();
        return Err(ConfigError::new(
            format!("{field}.name"),
            format!(
                "unknown registered control {:?} (known: {})",
                p.name,
                known.join(", ")
            ),
        ));
    };
    (r.make)(&p.params, crate::sim::rng_for(0, "cc:check"))
        .map(drop)
        .map_err(|e| e.at(&format!("{field}.params"), &format!("{field}.params")))
}

/// Refuses an external control the run's factory does not build (or any,
/// when the run has no factory), naming `field.id`.
pub fn check_external(
    cfg: &CcConfig,
    field: &str,
    external: Option<&dyn ExternalControls>,
) -> Result<(), ConfigError> {
    let CcConfig::External(p) = cfg else {
        return Ok(());
    };
    let why = match external {
        None => "this run has no external controls: they are built by the embedding \
                 (a Python class passed as `cc=` runs through `dumbbell.run`), \
                 and a configuration file cannot name one"
            .to_string(),
        Some(f) => match f.check(&p.id) {
            Ok(()) => return Ok(()),
            Err(why) => why,
        },
    };
    Err(ConfigError::new(format!("{field}.id"), why))
}

/// How many variables a control of this configuration traces per sample
/// (the width of its `cc_vars` rows), for the recording estimate.
/// An external control traces nothing.
pub fn traced_var_count(cfg: &CcConfig) -> usize {
    if let CcConfig::External(_) = cfg {
        return 0;
    }
    let control = make(cfg, crate::sim::rng_for(0, "cc:count"));
    let mut n = 0;
    control.trace_vars(&mut |_, _| n += 1);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_leftover() {
        let mut tp = TcpSock::new(1448, 10);
        tp.snd_ssthresh = 12;
        assert_eq!(tcp_slow_start(&mut tp, 5), 3);
        assert_eq!(tp.snd_cwnd, 12);
    }

    #[test]
    fn additive_increase_is_one_packet_per_window() {
        let mut tp = TcpSock::new(1448, 10);
        tp.snd_ssthresh = 10;
        tp.is_cwnd_limited = true;
        for _ in 0..10 {
            tcp_reno_cong_avoid(&mut tp, 1);
        }
        assert_eq!(tp.snd_cwnd, 11);
        for _ in 0..11 {
            tcp_reno_cong_avoid(&mut tp, 1);
        }
        assert_eq!(tp.snd_cwnd, 12);
    }

    /// The sender's `Control` holds Reno, Cubic and DCTCP directly and
    /// every other control behind the trait object, each built as
    /// `make_with` builds it: same name, declarations and window answers.
    #[test]
    fn control_matches_the_boxed_control() {
        use {bbr::BbrParams, cubic::CubicParams, dctcp::DctcpParams, vegas::VegasParams};
        let cases = [
            (CcConfig::Reno, "static"),
            (CcConfig::Cubic(CubicParams::default()), "static"),
            (CcConfig::Dctcp(DctcpParams::default()), "static"),
            (CcConfig::Bbr(BbrParams::default()), "dyn"),
            (CcConfig::Vegas(VegasParams::default()), "dyn"),
        ];
        for (cfg, held) in cases {
            let rng = || crate::sim::rng_for(3, "flow:f:cc");
            let mut a = make_control(&cfg, rng(), None);
            let mut b = make_with(&cfg, rng(), None);
            let is_dyn = matches!(a, Control::Dyn(_));
            assert_eq!(is_dyn, held == "dyn", "{}", b.name());
            assert_eq!(a.name(), b.name());
            assert_eq!(a.has_cong_control(), b.has_cong_control());
            assert_eq!(a.needs_ecn(), b.needs_ecn());
            assert_eq!(a.wants_pacing(), b.wants_pacing());
            let (mut ta, mut tb) = (TcpSock::new(1448, 10), TcpSock::new(1448, 10));
            a.init(&mut ta);
            b.init(&mut tb);
            for t in [&mut ta, &mut tb] {
                t.snd_cwnd = 100;
                t.snd_ssthresh = 50;
                t.is_cwnd_limited = true;
                t.srtt = Dur::from_ps(20_000_000_000);
                t.min_rtt = t.srtt;
            }
            for i in 0..200u64 {
                ta.now = Time::from_ps(i * 1_000_000_000);
                tb.now = ta.now;
                a.cong_avoid(&mut ta, i * 1448, 1);
                b.cong_avoid(&mut tb, i * 1448, 1);
            }
            assert_eq!(ta.snd_cwnd, tb.snd_cwnd, "{}", a.name());
            assert_eq!(a.ssthresh(&ta), b.ssthresh(&tb), "{}", a.name());
        }
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut tp = TcpSock::new(1448, 10);
        tp.is_cwnd_limited = false;
        tcp_reno_cong_avoid(&mut tp, 5);
        assert_eq!(tp.snd_cwnd, 10);
    }
}
