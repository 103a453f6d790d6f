//! The loss-phase machine the three controls of Madeira and Mattos ("Algoritmos de
//! Controle de Congestionamento Justos e Eficientes", §4) share: the phase
//! machine, the cubic-in-time slow start, loss detection from rate samples,
//! the upper threshold and the time origin. Each control ([`super::linear`],
//! [`super::fractional`], [`super::expolinear`]) supplies only its
//! [`Law`]: how much a loss takes away, and the window in recovery and in
//! congestion avoidance. [`PhaseMachine`] is the control, generic over the law.
//!
//! The reference for behaviour is the authors' public kernel modules
//! (`linha01.c`, `frac01.c`, `expolin01.c`, repository `CCAChikorita`). They
//! are `cong_control` modules: the stack neither reduces nor grows the window
//! for them, and so it is here ([`CongestionControl::has_cong_control`]).
//!
//! # The phases
//!
//! ```text
//!   SLOW START ────── loss ──────► RECOVERY ── cwnd ≥ threshold ──► SLOW START if cwnd < ssthresh,
//!   J += max(α·t³, min)            J = law.recover                  else AVOIDANCE
//!                                   ▲        ▲
//!   ssthresh hook (Linear, Expo.) ──┘        └──── loss ────── AVOIDANCE, J = law.avoid
//! ```
//!
//! Per ACK, in `cong_control`, exactly as the modules:
//!
//! 1. if the rate sample reports losses (`rs.losses > 0`): when not in
//!    recovery, or when `snd_nxt` has moved past the recovery point, a
//!    *reduction*: the threshold (the paper's upper limit, the modules'
//!    `snd_second_thresh`) becomes the current cwnd, ssthresh becomes
//!    cwnd/2, cwnd becomes what the law's reduction leaves, the recovery base
//!    b_r (`jBase`) becomes that new cwnd, the recovery point becomes
//!    `snd_nxt`, the time origin becomes now, and the control is in
//!    recovery. Otherwise nothing happens on that ACK (no growth either);
//! 2. else, if the ACK delivered something (`rs.acked_sacked > 0`), with
//!    t = whole milliseconds since the time origin:
//!    - in recovery, cwnd = the law's recovery window; once cwnd reaches
//!      the threshold, recovery ends (checked on the same ACK);
//!    - else, below ssthresh, slow start: cwnd += max(⌊α·t³⌋, `ss_min`),
//!      once per ACK event whatever the number of packets it acks;
//!    - else congestion avoidance: cwnd = the law's avoidance window.
//!
//! "At most once per window" is the modules' gate `!recovery_mode ||
//! snd_nxt > recovery_point`: a second reduction needs only *one new segment
//! sent* since the last one, not the recovery point acknowledged, so a burst
//! of losses reported over several ACKs while new data goes out can reduce
//! several times. We reproduce the gate as written.
//!
//! # The `ssthresh` hook
//!
//! The stack calls `ssthresh()` on entering Recovery (or CWR) and on an RTO
//! (`tcp::sender`, as Linux's `tcp_init_cwnd_reduction` and
//! `tcp_enter_loss`). In `linha01.c` and `expolin01.c` that hook resets the
//! time origin, enters recovery mode and sets the recovery point to
//! `snd_nxt`, but neither updates the threshold nor b_r; it returns cwnd/2.
//! `frac01.c`'s hook only returns cwnd/2. Linear and Expolinear reproduce
//! their modules' hook when their parameter `module_hook` is true
//! ([`Law::hook_enters_recovery`]); by default (false) their hook, like
//! Fractional's, only returns cwnd/2 and resets the time origin, so that a
//! loss reduces the window as the paper's equations say. The modules' hook
//! has these consequences:
//!
//! - Linux marks the losses before it enters Recovery, so the rate sample of
//!   the very ACK that entered Recovery reports them; for Linear and
//!   Expolinear the hook has just set the recovery point to `snd_nxt`, the
//!   gate is closed and that ACK does not reduce. The next delivering ACK
//!   sets cwnd to the recovery window built on the *stored* b_r, that of the
//!   last reduction made in `cong_control`, or [`initial_base_pkts`] (1) if
//!   there was none: Linear then restarts from 1 + t, Expolinear holds 2 to
//!   3 packets. An isolated loss therefore moves the window back to b_r
//!   rather than cutting it by the reduction percentage; a reduction proper
//!   happens when a later ACK reports more losses after new data was sent.
//! - After an RTO the stack sets cwnd to in-flight + 1 after the hook, and
//!   the next delivering ACK sets it from b_r in recovery (Linear,
//!   Expolinear).
//!
//! Why the default departs from the modules: with the state fresh per
//! connection, the modules' hook makes the *first* loss of a connection
//! rebuild the window on b_r = 1 (Linear restarts from 1 + t, Expolinear
//! stays at 2 to 3 packets until another loss opens the gate, which on a
//! clean link seldom comes). On E3's network with a clean 1 Gb/s link, 20 s,
//! seed 1, Expolinear with the hook gets 185 Mb/s at the base round trip of
//! 0.1 ms, 2.4 Mb/s with 20 ms added and 0.9 Mb/s with 100 ms, against 965,
//! 343 and 70 Mb/s without it (`python examples/lossy_cc_evidence.py
//! module-hook`; netem's 1000-packet limit caps the link at 600 and
//! 120 Mb/s at 20 and 100 ms), where the
//! paper reports Expolinear at about 96 % of every link (Fig. 2b). A module
//! loaded once and used by earlier connections (earlier runs, iperf's own
//! control connection) starts with the b_r, Δ_r and threshold they left in
//! its globals, which may be how the testbed escaped the collapse; the
//! paper does not say and we cannot trace it. The paper's equations (§4)
//! are unambiguous: a loss reduces the window and recovery starts from the
//! reduced window. `module_hook = true` reproduces the modules exactly as
//! they behave on a freshly loaded module.
//!
//! # Time
//!
//! t_ms = ⌊(now − origin) / 1 ms⌋, as the modules' `(now_ns − start_ns) /
//! 1000000`. The origin is set by `init` (the connection is established),
//! by every reduction, and by the `ssthresh` hook. `frac01.c` has no time
//! origin at all: its slow start reads a `time_in_ms` that is never
//! assigned (below); Fractional uses t only with `slow_start =
//! cubic_time`, and then the same t as the others (its hook resets the
//! origin but, as in the module, does not enter recovery).
//!
//! # The compiled modules against their source
//!
//! The paper measured the modules as GCC compiled them for x86-64, which in
//! places is not what their C seems to say. Case by case, what the
//! compiled module does and what dumbbell does (each can be checked by
//! copying the function into a user-space file with the kernel types it
//! touches reduced to plain structs, `gcc -O2 -S`, and reading the branch,
//! or running it; `cc/fractional.rs` describes the first in detail):
//!
//! 1. **Fractional's slow start** (`frac01.c`, `2·time_in_ms³` with
//!    `time_in_ms` never assigned): compiled, `cwnd += 1` per ACK event.
//!    dumbbell: the same by default (`slow_start = per_ack`);
//!    `cubic_time` gives the 2·t³ of the source and of eq. 1.
//! 2. **Expolinear's `65536 >> ⌊t/4⌋`** (`expolin01.c`, `expAdjust`): a
//!    shift by 32 or more is undefined in C; GCC emits `sar %cl`, and x86
//!    masks the count to 5 bits, so 2^(−k) is 2^(−(k mod 32)) and the
//!    recovery window J = b_r + Δ_r·(1 − 2^(−k)) + 1 falls back to b_r + 1
//!    at t = 128, 256, ... ms and climbs again (the compiled function gives
//!    801, 901, 951 at t = 128, 132, 136 ms for b_r = 800, Δ_r = 200, as at
//!    t = 0, 4, 8). Recovery normally ends within 4·log₂Δ_r ms of the loss,
//!    on the first ACK that finds J at the threshold; the mask shows only
//!    when no ACK comes in between (round trips of about 100 ms or more
//!    with few packets per window). dumbbell: the same by default
//!    (`shift_mod_32`); false keeps 2^(−k) = 0 from k = 17 on.
//! 3. **The reduction gate's sequence numbers** (all three modules,
//!    `tp->snd_nxt > recovery_point` on `u32`): Linux's sequence numbers
//!    start at a random value and wrap every 4 GiB, and the modules compare
//!    them with a plain `>`, not `after()`. A recovery point set shortly
//!    before a wrap makes every later `snd_nxt` look smaller: the gate stays
//!    shut until the point moves or recovery ends. In `linha01.c` and
//!    `expolin01.c` the `ssthresh` hook moves the point to `snd_nxt` at
//!    every Recovery entry, so a wrap shuts the gate only until the stack
//!    next enters Recovery. `frac01.c`'s hook does not touch it: the gate
//!    stays shut until recovery ends by itself (after a γ cycle, or never
//!    when Δ_r = 0, for windows below 50) or until 4 GiB more are sent, and
//!    Fractional with Δ_r = 0 freezes its window at its first wrap inside
//!    recovery (E3 at 10 Gb/s and 10 % loss: one round in ten at 6
//!    packets, then at 1 after an RTO, 82.5 Mb/s against 8.3–8.7 Gb/s).
//!    dumbbell: the same (`wrap_seq`, the initial sequence number drawn
//!    from the flow's stream `flow:<name>:cc`) for Fractional always and
//!    for Linear and Expolinear with `module_hook`; false compares 64-bit
//!    numbers from 0, which never wrap. For Linear and Expolinear
//!    `wrap_seq` defaults to `module_hook`: with the paper's hook (which
//!    resets t but does not move the point), a wrapped point would stay
//!    until 4 GiB more were sent, each Recovery entry resetting t so that
//!    the recovery window stays at b_r whatever the losses (Linear at
//!    10 Gb/s and 3 % loss held 89 packets from 77.5 s and got 1560.6 Mb/s
//!    over 100 s, where its other rounds got 321–338), a state neither the
//!    modules nor the paper's equations reach.
//! 4. **u32 products and sums that wrap** (not reproduced; dumbbell
//!    computes in 64 bits, saturates, and keeps cwnd within
//!    1..=`tp.snd_cwnd_clamp`, 2^31 − 1; slopes, which are parameters and
//!    may be fractional, in `f64`, floored: exact for the integer defaults
//!    while the products stay below 2^53). Each arises only at windows far
//!    above any receive window (E3's is 2172 packets), where both the
//!    module and dumbbell send as the receive window allows, and each is
//!    followed by a window that does not depend on the wrapped value:
//!    - slow start's `2·t³` wraps for t ≥ 1291 ms (a slow start that long:
//!      after repeated RTOs, which do not reset the origin), and
//!      `cwnd += step` wraps past 2^32. The module's cwnd then lands
//!      anywhere in [0, 2^32), below ssthresh with a chance of about
//!      ssthresh/2^32; ours pins at the clamp, 2^31 − 1, which equals the
//!      initial ssthresh, so both leave slow start, and the next ACK sets
//!      Linear's and Expolinear's avoidance window J = b_A + 2t, which does
//!      not read cwnd. (The first slow start, whose ssthresh is 2^31 − 1,
//!      ends in both when cwnd reaches 2^31 − 1 if it lasts less than
//!      1291 ms: the module's cwnd cannot jump over [2^31, 2^32) in one
//!      step of at most 2·1290³ < 2^32.)
//!    - Expolinear's `Δ_r·adjustment` wraps once Δ_r ≥ 65536, that is after
//!      a reduction of a window of 327,680 packets or more, which leaves
//!      b_r ≥ 262,144: J ≥ b_r + 1 in both.
//!    - Linear's `cwnd·9/10` wraps for cwnd ≥ 477,218,589, the reductions'
//!      `cwnd·2/10` for cwnd ≥ 2^31, Fractional's avoidance `cwnd·5/100`
//!      for cwnd ≥ 858,993,460 (and its `cwnd += step` past 2^32): the
//!      module's window lands anywhere below 4.3·10^8 (Linear) or 4.3·10^7
//!      (Fractional), under a receive window of thousands of packets with
//!      a chance of 10^−5 to 10^−4 per wrap; ours stays above 4·10^8 or at
//!      the clamp.
//!
//!    The floor of 1 also covers `linha01.c` reducing a window of 1 to 0
//!    (`1·9/10`).
//!
//! # Per-connection state
//!
//! The modules keep all of this in file-level globals (`static`), shared by
//! every connection using the module, and `init` resets only some of them
//! (the time origin, recovery mode and point), so a new connection resets
//! the others' time origin and recovery mode, and inherits the threshold,
//! b_r and Δ_r of whichever connection reduced last. That is a defect:
//! dumbbell keeps the state per connection, initialised at `init` with the
//! values the globals have when the module is loaded (threshold 200, b_r 1,
//! Δ_r 1, parameters `initial_*`).
//!
//! Other details: the stack's sequence numbers are 64-bit from 0; the gate
//! reads them in 32 bits as case 3 above says; `init` in the modules forces cwnd to `TCP_INIT_CWND` (10), we keep the
//! configured initial window (whose default is 10); `undo_cwnd` returns
//! max(cwnd, 2), as the modules.
//!
//! # Counting losses per window
//!
//! For Linear's adaptive reduction (paper eq. 3) the state counts, from the
//! rate samples, packets *lost* (`rs.losses`) and packets *sent*, taken as
//! the packets whose fate the ACKs revealed: delivered (`rs.acked_sacked`)
//! plus lost. A window is a round of data: the first starts at `init`, and
//! each next one on the first ACK at which `snd_una` has reached the
//! `snd_nxt` recorded when the previous one started (DCTCP's observation
//! window); that ACK is counted in the new window. The ratio lost/sent is taken
//! over the current window, up to and including the ACK being processed, and
//! the previous complete window, so that it always covers at least one full
//! round (a loss reported on the first ACK of a round would otherwise weigh
//! as a third or a half of the packets): Linear's `adaptive_count = round`.
//! Packets marked lost by the RTO itself are in no rate sample (as in
//! Linux) and are not counted. Linear's `adaptive_count = window` (the
//! default) counts as the paper's eq. 3 words it, "pkts_env o total de
//! pacotes enviados na janela atual": the losses reported in the current
//! window, up to and including the ACK being processed, over the packets
//! sent in that window, taken as those in flight (`snd_nxt − snd_una`, in
//! MSS) when it began, or the packets revealed in it so far if more (the
//! first window, begun at `init` with nothing in flight).
//! Linear's `adaptive_count = ack` takes instead the ratio of the one ACK
//! that reports the loss (its `rs.losses` over `rs.losses +
//! rs.acked_sacked`).
//!
//! # Traced variables
//!
//! `phase` (0 slow start, 1 recovery, 2 congestion avoidance, as of the
//! last hook call), `threshold_pkts`, `base_pkts` (b_r), `t_origin_s` (the
//! time origin, seconds of simulated time), `recovery_point` (bytes),
//! `window_loss_ratio` (lost/sent over the counting window above), and each
//! law's own: Linear `reduction_pct` (R of the last reduction), Fractional
//! `delta_pkts` and `gamma_idx` (Δ_r, the index of the next γ_r),
//! Expolinear `delta_pkts`.
//!
//! [`initial_base_pkts`]: crate::cc::linear::LinearParams::initial_base_pkts

use super::{CongestionControl, RateSample, TcpSock};
use crate::param::{Param, Range, Ty};
use crate::sim::{Time, PS_PER_MS};

/// The phase, as traced (`phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    SlowStart = 0,
    Recovery = 1,
    Avoidance = 2,
}

/// The state the three controls share, per connection.
#[derive(Clone, Debug)]
pub struct State {
    /// In recovery (the modules' `recovery_mode`).
    pub recovery: bool,
    /// `snd_nxt` at the last reduction or hook call (`recovery_point`).
    pub recovery_point: u64,
    /// The window before the last reduction, packets (`snd_second_thresh`):
    /// recovery ends when cwnd reaches it; b_A of Linear and Expolinear.
    pub threshold_pkts: u32,
    /// The window right after the last reduction, packets (`jBase`, b_r).
    pub base_pkts: u32,
    /// The time origin: the session start or the last loss.
    pub origin: Time,
    /// The phase after the last hook call.
    pub phase: Phase,
    // Loss accounting per round of data (see the module docs).
    round_end: u64,
    cur_sent: u64,
    cur_lost: u64,
    prev_sent: u64,
    prev_lost: u64,
    /// Packets of the current window: in flight when it began.
    cur_window: u64,
    // What the ACK being processed revealed.
    ack_lost: u64,
    ack_sent: u64,
}

impl State {
    fn new(threshold_pkts: u32, base_pkts: u32) -> Self {
        State {
            recovery: false,
            recovery_point: 0,
            threshold_pkts,
            base_pkts,
            origin: Time::ZERO,
            phase: Phase::SlowStart,
            round_end: 0,
            cur_sent: 0,
            cur_lost: 0,
            prev_sent: 0,
            prev_lost: 0,
            cur_window: 0,
            ack_lost: 0,
            ack_sent: 0,
        }
    }

    /// Whole milliseconds since the time origin.
    pub fn t_ms(&self, now: Time) -> u64 {
        now.saturating_since(self.origin).ps() / PS_PER_MS
    }

    /// (lost, sent) over the previous complete round and the current one.
    pub fn window_counts(&self) -> (u64, u64) {
        (
            self.prev_lost + self.cur_lost,
            self.prev_sent + self.cur_sent,
        )
    }

    /// (lost, sent) in the current window alone (paper eq. 3's "pacotes
    /// enviados na janela atual"): the losses reported since it began, up to
    /// and including the ACK being processed, over the packets it holds (in
    /// flight when it began, or the packets revealed in it if more).
    pub fn current_window_counts(&self) -> (u64, u64) {
        (self.cur_lost, self.cur_window.max(self.cur_sent))
    }

    /// A new window begins: it holds what is in flight now.
    fn start_window(&mut self, tp: &TcpSock) {
        self.round_end = tp.snd_nxt;
        self.cur_window = tp.snd_nxt.saturating_sub(tp.snd_una) / (tp.mss.max(1) as u64);
    }

    fn count(&mut self, tp: &TcpSock, rs: &RateSample) {
        if tp.snd_una >= self.round_end {
            self.prev_sent = self.cur_sent;
            self.prev_lost = self.cur_lost;
            self.cur_sent = 0;
            self.cur_lost = 0;
            self.start_window(tp);
        }
        self.cur_lost += rs.losses as u64;
        self.cur_sent += rs.losses as u64 + rs.acked_sacked as u64;
        self.ack_lost = rs.losses as u64;
        self.ack_sent = rs.losses as u64 + rs.acked_sacked as u64;
    }

    /// (lost, sent) revealed by the ACK being processed alone.
    pub fn ack_counts(&self) -> (u64, u64) {
        (self.ack_lost, self.ack_sent)
    }
}

/// `⌊x·t⌋` for a non-negative slope `x`, saturating (NaN gives 0).
pub fn floor_mul(x: f64, t: f64) -> u64 {
    (x * t).floor() as u64
}

/// The [`Law`] accessors of a law whose parameters `self.p` hold
/// `module_hook`, `ss_alpha`, `ss_min_pkts`, `initial_threshold_pkts`,
/// `initial_base_pkts` and `wrap_seq` (unset: as `module_hook`) under those
/// names (Linear's and Expolinear's; Fractional's are fixed by its module).
macro_rules! law_reads_params {
    () => {
        fn hook_enters_recovery(&self) -> bool {
            self.p.module_hook
        }
        fn ss_alpha(&self) -> f64 {
            self.p.ss_alpha
        }
        fn ss_min_pkts(&self) -> u32 {
            self.p.ss_min_pkts
        }
        fn initial_threshold_pkts(&self) -> u32 {
            self.p.initial_threshold_pkts
        }
        fn initial_base_pkts(&self) -> u32 {
            self.p.initial_base_pkts
        }
        fn wrap_seq(&self) -> bool {
            self.p.wrap_seq.unwrap_or(self.p.module_hook)
        }
    };
}
pub(crate) use law_reads_params;

/// The parameters of a law that [`law_reads_params!`] reads (Linear's and
/// Expolinear's), written once with their docs and the modules' defaults
/// around the law's own: the struct (serde: missing fields from `Default`,
/// unknown ones refused) and its `Default`. The law's own fields, each
/// `name: type = default,`, come after `ss_min_pkts`, and those in
/// `after_base { ... }` after `initial_base_pkts`; `$module` is the
/// module's source file.
macro_rules! module_params {
    (
        $(#[$meta:meta])*
        pub struct $name:ident ($module:literal) {
            $( $(#[$a_meta:meta])* $a:ident: $a_ty:ty = $a_default:expr, )*
        }
        after_base {
            $( $(#[$b_meta:meta])* $b:ident: $b_ty:ty = $b_default:expr, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
        #[serde(deny_unknown_fields, default)]
        pub struct $name {
            /// Slow start adds α·t³ per ACK event, packets/ms³ (module: 2).
            pub ss_alpha: f64,
            /// Smallest slow-start step per ACK event, packets (module: 2).
            pub ss_min_pkts: u32,
            $( $(#[$a_meta])* pub $a: $a_ty, )*
            /// Upper threshold before any reduction, packets (module: 200).
            pub initial_threshold_pkts: u32,
            /// Recovery base b_r before any reduction, packets (module: 1).
            pub initial_base_pkts: u32,
            $( $(#[$b_meta])* pub $b: $b_ty, )*
            #[doc = concat!("The `ssthresh` hook enters recovery as `", $module, "`'s does (see")]
            /// `cc::loss_phases`); false (default): a loss reduces the window as the
            /// paper's equations say.
            pub module_hook: bool,
            /// The reduction gate `snd_nxt > recovery_point` compares 32-bit
            /// sequence numbers from a random initial one, as the module's `u32`
            /// comparison does in Linux: once per 4 GiB sent, a recovery point just
            /// below the wrap keeps the gate shut until the point moves again.
            /// False: 64-bit, never wraps. Unset (default): as `module_hook`. The
            /// module's hook moves the point at every Recovery entry, which bounds
            /// a wrap's effect to milliseconds; without the hook only a reduction
            /// moves it, and the hook's reset of t (which keeps the recovery window
            /// at b_r under frequent losses) can keep the gate shut for 4 GiB of
            /// data: a state neither the module nor the paper's equations reach
            /// (`cc::loss_phases`, "The compiled modules against their source", 3).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub wrap_seq: Option<bool>,
        }

        impl Default for $name {
            fn default() -> Self {
                $name {
                    ss_alpha: 2.0,
                    ss_min_pkts: 2,
                    $( $a: $a_default, )*
                    initial_threshold_pkts: 200,
                    initial_base_pkts: 1,
                    $( $b: $b_default, )*
                    module_hook: false,
                    wrap_seq: None,
                }
            }
        }
    };
}
pub(crate) use module_params;

/// What distinguishes Linear, Fractional and Expolinear.
pub trait Law: Send {
    /// The control's name (Linux module name for Linear and Expolinear).
    const NAME: &'static str;
    /// The `ssthresh` hook also enters recovery and resets the recovery
    /// point (`linha01.c`, `expolin01.c`, with `module_hook`), or leaves the
    /// mode alone (`frac01.c`, and the paper's equations).
    fn hook_enters_recovery(&self) -> bool;
    /// α of the slow start J += α·t³, packets/ms³.
    fn ss_alpha(&self) -> f64;
    /// The smallest slow-start step, packets.
    fn ss_min_pkts(&self) -> u32;
    /// The slow-start step of an ACK event t ms after the origin:
    /// max(⌊α·t³⌋, min) (eq. 1). Fractional's compiled module differs.
    fn slow_start_step(&self, t_ms: u64) -> u64 {
        let t = t_ms as f64;
        floor_mul(self.ss_alpha(), t * t * t).max(self.ss_min_pkts() as u64)
    }
    /// Threshold and b_r before any reduction.
    fn initial_threshold_pkts(&self) -> u32;
    fn initial_base_pkts(&self) -> u32;
    /// Resets the law's own state (at `init`).
    fn reset(&mut self);
    /// The window left by a reduction of `cwnd` (at least 0; the caller
    /// floors it at 1).
    fn reduce(&mut self, st: &State, cwnd: u32) -> u64;
    /// The window in recovery, given the current one, t ms after the origin.
    fn recover(&mut self, st: &State, cwnd: u32, t_ms: u64) -> u64;
    /// The window in congestion avoidance.
    fn avoid(&mut self, st: &State, cwnd: u32, t_ms: u64) -> u64;
    /// The reduction gate compares 32-bit sequence numbers (the modules'
    /// plain `snd_nxt > recovery_point` on `u32`), offset by a random
    /// initial sequence number.
    fn wrap_seq(&self) -> bool;
    /// The law's own traced variables.
    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64));
}

/// A Madeira-Mattos control: the shared state machine driving law `L`.
#[derive(Clone, Debug)]
pub struct PhaseMachine<L> {
    pub law: L,
    pub state: State,
    /// The connection's initial sequence number, for the 32-bit gate.
    isn: u32,
}

impl<L: Law> PhaseMachine<L> {
    pub fn with_law(law: L) -> Self {
        let state = State::new(law.initial_threshold_pkts(), law.initial_base_pkts());
        PhaseMachine { law, state, isn: 0 }
    }

    /// Sets the initial sequence number the 32-bit gate counts from (Linux
    /// draws it at random per connection; `cc::make` draws it from the
    /// flow's stream).
    pub fn with_isn(mut self, isn: u32) -> Self {
        self.isn = isn;
        self
    }

    /// The reduction gate: `snd_nxt` has passed the recovery point, in
    /// 64 bits or, as the modules compare, in 32.
    fn past_recovery_point(&self, snd_nxt: u64) -> bool {
        if self.law.wrap_seq() {
            let seq32 = |x: u64| (x as u32).wrapping_add(self.isn);
            seq32(snd_nxt) > seq32(self.state.recovery_point)
        } else {
            snd_nxt > self.state.recovery_point
        }
    }

    fn set_phase(&mut self, tp: &TcpSock) {
        self.state.phase = if self.state.recovery {
            Phase::Recovery
        } else if tp.snd_cwnd < tp.snd_ssthresh {
            Phase::SlowStart
        } else {
            Phase::Avoidance
        };
    }
}

/// cwnd kept within 1..=clamp.
fn bound(x: u64, tp: &TcpSock) -> u32 {
    x.clamp(1, tp.snd_cwnd_clamp.max(1) as u64) as u32
}

impl<L: Law> CongestionControl for PhaseMachine<L> {
    fn name(&self) -> &'static str {
        L::NAME
    }

    fn init(&mut self, tp: &mut TcpSock) {
        self.law.reset();
        self.state = State::new(
            self.law.initial_threshold_pkts(),
            self.law.initial_base_pkts(),
        );
        self.state.origin = tp.now;
        self.state.start_window(tp);
        self.set_phase(tp);
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        self.state.origin = tp.now;
        if self.law.hook_enters_recovery() {
            self.state.recovery = true;
            self.state.recovery_point = tp.snd_nxt;
            self.state.phase = Phase::Recovery;
        }
        tp.snd_cwnd / 2
    }

    fn cong_avoid(&mut self, _tp: &mut TcpSock, _ack: u64, _acked: u32) {}

    fn has_cong_control(&self) -> bool {
        true
    }

    fn cong_control(&mut self, tp: &mut TcpSock, _ack: u64, rs: &RateSample) {
        self.state.count(tp, rs);
        let gate_open = !self.state.recovery || self.past_recovery_point(tp.snd_nxt);
        let st = &mut self.state;
        if rs.losses > 0 {
            if gate_open {
                let before = tp.snd_cwnd;
                let after = self.law.reduce(st, before);
                st.recovery = true;
                st.recovery_point = tp.snd_nxt;
                st.threshold_pkts = before;
                tp.snd_ssthresh = before / 2;
                tp.snd_cwnd = bound(after, tp);
                st.base_pkts = tp.snd_cwnd;
                st.origin = tp.now;
            }
        } else if rs.acked_sacked > 0 {
            let t_ms = st.t_ms(tp.now);
            if st.recovery {
                tp.snd_cwnd = bound(self.law.recover(st, tp.snd_cwnd, t_ms), tp);
                if tp.snd_cwnd >= st.threshold_pkts {
                    st.recovery = false;
                }
            } else if tp.snd_cwnd < tp.snd_ssthresh {
                let step = self.law.slow_start_step(t_ms);
                tp.snd_cwnd = bound((tp.snd_cwnd as u64).saturating_add(step), tp);
            } else {
                tp.snd_cwnd = bound(self.law.avoid(st, tp.snd_cwnd, t_ms), tp);
            }
        }
        self.set_phase(tp);
    }

    /// As the modules: max(cwnd, 2), whatever the window before.
    fn undo_cwnd(&mut self, tp: &TcpSock) -> u32 {
        tp.snd_cwnd.max(2)
    }

    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        let st = &self.state;
        out("phase", st.phase as u8 as f64);
        out("threshold_pkts", st.threshold_pkts as f64);
        out("base_pkts", st.base_pkts as f64);
        out("t_origin_s", st.origin.secs_f64());
        out("recovery_point", st.recovery_point as f64);
        let (lost, sent) = st.window_counts();
        out(
            "window_loss_ratio",
            if sent == 0 {
                0.0
            } else {
                lost as f64 / sent as f64
            },
        );
        self.law.trace_vars(out);
    }
}

/// Largest slope or gain of a Madeira-Mattos control (packets per ms, or per ms³).
pub const MAX_SLOPE: f64 = 1e6;
/// Largest Expolinear σ, per ms.
pub const MAX_SIGMA_PER_MS: f64 = 1000.0;
/// The range of a slope or gain.
pub const SLOPE: Range = Range::float(0.0, false, MAX_SLOPE, false);
/// The range of a reduction, percent.
pub const PERCENT: Range = Range::int(1, 99, "");

// The parameter rows Linear and Expolinear share, word for word.
/// The `ss_alpha` row of Linear's and Expolinear's `PARAMS`.
pub const SS_ALPHA_ROW: Param = Param::float_in(
    "ss_alpha",
    SLOPE,
    "Slow start adds alpha*t^3 per ACK event, packets/ms^3 (module: 2).",
);
/// The `ss_min_pkts` row of Linear's and Expolinear's `PARAMS`.
pub const SS_MIN_PKTS_ROW: Param = Param::int_in(
    "ss_min_pkts",
    Range::U32,
    "Smallest slow-start step per ACK event, packets (module: 2).",
);
/// The `initial_threshold_pkts` row of Linear's and Expolinear's `PARAMS`.
pub const INITIAL_THRESHOLD_ROW: Param = Param::int_in(
    "initial_threshold_pkts",
    Range::POSITIVE,
    "Upper threshold before any reduction, packets (module: 200).",
);
/// The `initial_base_pkts` row of Linear's and Expolinear's `PARAMS`.
pub const INITIAL_BASE_ROW: Param = Param::int_in(
    "initial_base_pkts",
    Range::POSITIVE,
    "Recovery base b_r before any reduction, packets (module: 1).",
);
/// The `wrap_seq` row of Linear's and Expolinear's `PARAMS`.
pub const WRAP_SEQ_ROW: Param = Param::new(
    "wrap_seq",
    Ty::Optional(&Ty::Bool),
    Range::Any,
    "32-bit sequence comparison of the reduction gate; unset: as module_hook.",
);

/// The harness the unit tests of the three controls share: a [`TcpSock`]
/// driven through the hooks in the stack's order (`cc/mod.rs`), with time
/// counted in milliseconds from the connection's start.
#[cfg(test)]
pub(crate) mod testkit {
    use super::*;
    use crate::cc::CaState;
    use crate::sim::Dur;

    pub const MSS: u64 = 1448;
    /// The connection is established at 1 s of simulated time.
    pub const T0: Time = Time::from_ps(1_000 * PS_PER_MS);

    pub struct Drive<L: Law> {
        pub tp: TcpSock,
        pub cc: PhaseMachine<L>,
    }

    /// The law a control builds from its default parameters changed by
    /// `f` (`new`: the control's constructor).
    pub fn law_with<P: Default, L: Law>(
        new: fn(P) -> PhaseMachine<L>,
        f: impl FnOnce(&mut P),
    ) -> L {
        let mut p = P::default();
        f(&mut p);
        new(p).law
    }

    /// The two builders each control's tests start from:
    /// `law_builders!(linear: Linear(LinearParams) -> LinearLaw)` writes
    /// `linear(f)`, the law from the default parameters changed by `f`
    /// ([`law_with`]), and `default()`, the law from the defaults.
    macro_rules! law_builders {
        ($name:ident: $control:ident($params:ty) -> $law:ty) => {
            fn $name(f: impl FnOnce(&mut $params)) -> $law {
                $crate::cc::loss_phases::testkit::law_with($control::new, f)
            }

            fn default() -> $law {
                $name(|_| {})
            }
        };
    }
    pub(crate) use law_builders;

    /// The machine's `undo_cwnd`, whatever the law: as the modules, the
    /// window, but at least two packets; and the control's `name`.
    pub fn check_undo_and_name<L: Law>(law: L, name: &str) {
        let mut d = Drive::new(law, 1);
        assert_eq!(d.cc.undo_cwnd(&d.tp), 2);
        d.tp.snd_cwnd = 700;
        assert_eq!(d.cc.undo_cwnd(&d.tp), 700);
        assert_eq!(d.cc.name(), name);
    }

    impl<L: Law> Drive<L> {
        pub fn new(law: L, cwnd: u32) -> Self {
            let mut tp = TcpSock::new(MSS as u32, cwnd);
            tp.now = T0;
            // Some data already out, so that the first ACKs stay in round 1.
            tp.snd_nxt = 1000 * MSS;
            let mut cc = PhaseMachine::with_law(law);
            cc.init(&mut tp);
            assert!(cc.has_cong_control());
            Drive { tp, cc }
        }

        pub fn at(&mut self, ms: u64) {
            self.tp.now = T0 + Dur::from_ms(ms);
        }

        /// An ACK at `ms` that delivers `acked` packets and reports
        /// `losses` newly lost ones; the cwnd it leaves.
        pub fn ack_lost(&mut self, ms: u64, acked: u32, losses: u32) -> u32 {
            self.at(ms);
            self.tp.snd_una += acked as u64 * MSS;
            let rs = RateSample {
                acked_sacked: acked,
                losses,
                ..Default::default()
            };
            let ack = self.tp.snd_una;
            self.cc.cong_control(&mut self.tp, ack, &rs);
            self.tp.snd_cwnd
        }

        /// A delivering ACK at `ms`.
        pub fn ack(&mut self, ms: u64) -> u32 {
            self.ack_lost(ms, 2, 0)
        }

        /// An ACK at `ms` that only reports `n` losses.
        pub fn loss(&mut self, ms: u64, n: u32) -> u32 {
            self.ack_lost(ms, 0, n)
        }

        /// The initial sequence number of the 32-bit gate.
        pub fn set_isn(&mut self, isn: u32) {
            self.cc.isn = isn;
        }

        /// New segments leave: `snd_nxt` advances.
        pub fn send(&mut self, pkts: u64) {
            self.tp.snd_nxt += pkts * MSS;
        }

        /// The stack enters Recovery at `ms` (Linux
        /// `tcp_init_cwnd_reduction`): `ssthresh()`, then `set_state`.
        pub fn enter_recovery(&mut self, ms: u64) {
            self.at(ms);
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.cc.ssthresh(&self.tp);
            self.cc.set_state(&mut self.tp, CaState::Recovery);
            self.tp.ca_state = CaState::Recovery;
        }

        /// The control's traced variable `name`.
        pub fn var(&self, name: &str) -> f64 {
            let mut v = None;
            self.cc.trace_vars(&mut |k, x| {
                if k == name {
                    v = Some(x);
                }
            });
            v.unwrap_or_else(|| panic!("no traced variable {name}"))
        }
    }
}
