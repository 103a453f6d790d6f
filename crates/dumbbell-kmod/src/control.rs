//! A loaded module as the core's congestion control: one [`Instance`] (a
//! copy of the shared object, its own statics: one kernel) per simulated
//! host, one [`KmodControl`] (one `struct sock`) per connection, and
//! [`KmodControls`], the run's `cc::ExternalControls`.
//!
//! Each hook of the core's `CongestionControl` trait calls the module's
//! hook of the same name, at the same point (the core's stack already
//! follows Linux's order, `cc/mod.rs`): the sender's `TcpSock` is copied
//! into the module's `struct tcp_sock` (kernel names and units: jiffies,
//! microseconds, bytes per second, 32-bit sequence numbers from the
//! connection's initial sequence number), the hook runs, and the fields a
//! control owns (`snd_cwnd`, `snd_ssthresh`, `snd_cwnd_cnt`,
//! `snd_cwnd_clamp`, `prior_cwnd`, `sk_pacing_rate`, `app_limited`) are
//! copied back where the module changed them. `ssthresh` and `undo_cwnd`
//! get a const socket, as in Linux: nothing is copied back.

use crate::compile::{self, BuildOptions};
use crate::crash;
use crate::error::KmodError;
use crate::ffi::{caps, AckSampleC, Glue, Hook, LostSegmentC, RateSampleC, View};
use dumbbell_core::cc::{
    AckSample, CaEvent, CaState, CongestionControl, ExternalControls, LostSegment, RateSample,
    TcpSock, APP_LIMITED_AT_START,
};
use dumbbell_core::sim::{Dur, Rng};
use std::collections::HashMap;
use std::ffi::{c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One loaded copy of a module: one simulated host's kernel.
pub struct Instance {
    glue: Glue,
    /// The module's registered name (`tcp_congestion_ops.name`).
    pub name: &'static str,
    /// What names the module in errors: its file and registered name.
    pub label: &'static str,
    /// The layout of its private state ([`crate::private`]): its
    /// registered name, but `bbr3` for BBRv3 (google/bbr, branch v3),
    /// which registers as `bbr` as v1 does and alone has `skb_marked_lost`.
    pub layout: &'static str,
    caps: u32,
}

/// Lives as long as the process (the trait's `name()` is `&'static str`).
fn intern(s: String) -> &'static str {
    static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(n) = names.iter().find(|n| **n == s) {
        return n;
    }
    let leaked: &'static str = Box::leak(s.into_boxed_str());
    names.push(leaked);
    leaked
}

/// The random stream callback: `below == 0` draws a full `u32`, else a
/// uniform integer below it (`get_random_u32_below`, drawn as the core's
/// ports draw, `Rng::below`).
extern "C" fn draw(rng: *mut c_void, below: u32) -> u32 {
    if rng.is_null() {
        return 0;
    }
    // SAFETY: `rng` is the connection's boxed Rng, alive while its socket is.
    let rng = unsafe { &mut *(rng as *mut Rng) };
    if below == 0 {
        (rng.next_u64() >> 32) as u32
    } else {
        rng.below(below as u64) as u32
    }
}

impl Instance {
    /// Loads a fresh copy of `so`, sets `params` (name, value as text) and
    /// runs the module's `module_init`. `file` names the source in errors.
    pub fn load(
        so: &Path,
        file: &str,
        params: &[(String, String)],
    ) -> Result<Arc<Instance>, KmodError> {
        static COPIES: AtomicU64 = AtomicU64::new(0);
        let n = COPIES.fetch_add(1, Ordering::Relaxed);
        let copy = so.with_extension(format!("{}-{n}.so", std::process::id()));
        std::fs::copy(so, &copy).map_err(|e| KmodError::Load {
            path: copy.display().to_string(),
            why: e.to_string(),
        })?;
        let glue = Glue::open(&copy);
        let _ = std::fs::remove_file(&copy);
        let glue = glue.map_err(|why| KmodError::Load {
            path: so.display().to_string(),
            why,
        })?;
        let mut known = glue.params();
        known.sort();
        for (name, value) in params {
            if !known.contains(name) {
                return Err(KmodError::UnknownParam {
                    module: file.to_string(),
                    name: name.clone(),
                    known,
                });
            }
            let (cn, cv) = (
                CString::new(name.as_str()).unwrap_or_default(),
                CString::new(value.as_str()).unwrap_or_default(),
            );
            // SAFETY: two C strings; the shim parses and stores the value.
            let r = unsafe { (glue.param_set)(cn.as_ptr(), cv.as_ptr()) };
            if r != 0 {
                return Err(KmodError::BadParam {
                    module: file.to_string(),
                    name: name.clone(),
                    value: value.clone(),
                });
            }
        }
        crash::enter(intern(file.to_string()), Hook::Init, 0);
        // SAFETY: the module's init, with the random stream callback.
        let r = unsafe { (glue.load)(draw) };
        crash::leave();
        match r {
            0 => {}
            -1000 => {
                return Err(KmodError::Init {
                    module: file.to_string(),
                    why: "no module_init(...) in the file".to_string(),
                })
            }
            -1001 => {
                return Err(KmodError::Init {
                    module: file.to_string(),
                    why: "module_init registered no congestion control \
                          (tcp_register_congestion_control)"
                        .to_string(),
                })
            }
            e => {
                return Err(KmodError::Init {
                    module: file.to_string(),
                    why: format!(
                        "module_init failed with {e} (a control needs ssthresh, undo_cwnd, \
                         and cong_avoid or cong_control)"
                    ),
                })
            }
        }
        // SAFETY: a static string of the registered ops.
        let name = unsafe { CStr::from_ptr((glue.ops_name)()) }
            .to_string_lossy()
            .into_owned();
        // SAFETY: reads the registered ops.
        let caps = unsafe { (glue.ops_caps)() };
        Ok(Arc::new(Instance {
            glue,
            label: intern(format!("{file} ({name})")),
            name: intern(format!("kmod:{name}")),
            layout: if name == "bbr" && caps & caps::SKB_MARKED_LOST != 0 {
                "bbr3"
            } else {
                intern(name.clone())
            },
            caps,
        }))
    }

    /// The module's parameter names.
    pub fn params(&self) -> Vec<String> {
        self.glue.params()
    }
}

/// One connection's control: a `struct sock` of the host's kernel.
pub struct KmodControl {
    inst: Arc<Instance>,
    sk: *mut c_void,
    /// The connection's random stream: the socket holds a pointer to it
    /// (`get_random_u32`), so it lives (boxed, never moved) as long.
    _rng: Box<Rng>,
    /// The connection's initial sequence number (the module sees 32-bit
    /// sequence numbers counted from it, as in Linux).
    isn: u32,
    view: View,
}

// The socket belongs to this control alone, driven by one run's thread.
unsafe impl Send for KmodControl {}

fn us(d: Dur) -> u64 {
    d.ps() / 1_000_000
}

impl KmodControl {
    /// A new socket of `inst`. The initial sequence number is the first
    /// draw of a copy of `rng` (as the core's ports of Linear, Fractional
    /// and Expolinear draw it); the module's `get_random_u32` draws from
    /// `rng` itself.
    pub fn new(inst: Arc<Instance>, rng: Rng) -> KmodControl {
        let isn = (rng.clone().next_u64() >> 32) as u32;
        let mut rng = Box::new(rng);
        let ctx = &mut *rng as *mut Rng as *mut c_void;
        // SAFETY: allocates a zeroed socket bound to the registered ops.
        let sk = unsafe { (inst.glue.sock_new)(ctx) };
        assert!(!sk.is_null(), "out of memory for a module socket");
        KmodControl {
            inst,
            sk,
            _rng: rng,
            isn,
            view: View::default(),
        }
    }

    /// The module's private state of this socket (`icsk_ca_priv`).
    pub fn private_state(&self) -> Vec<u8> {
        self.private_bytes().to_vec()
    }

    /// The module's private area, borrowed from the socket.
    fn private_bytes(&self) -> &[u8] {
        let mut len = 0u32;
        // SAFETY: a pointer into the socket (which lives as long as self)
        // and its length.
        unsafe {
            let p = (self.inst.glue.sock_priv)(self.sk, &mut len);
            std::slice::from_raw_parts(p, len as usize)
        }
    }

    fn fill(&mut self, tp: &TcpSock) {
        fill_view(&mut self.view, self.isn, tp);
    }

    /// Calls `hook` with the view of `tp`; returns the hook's value and
    /// the view as the module left it.
    fn call(
        &mut self,
        hook: Hook,
        tp: &TcpSock,
        a: u32,
        b: u32,
        sample: *const c_void,
    ) -> (u32, View) {
        self.fill(tp);
        let before = self.view;
        crash::enter(self.inst.label, hook, tp.now.ps());
        // SAFETY: the socket and view are ours; the shim runs the hook.
        let r =
            unsafe { (self.inst.glue.hook)(self.sk, &mut self.view, hook as i32, a, b, sample) };
        crash::leave();
        let _ = before;
        (r, self.view)
    }

    /// Calls a hook that may write the socket, and copies back what the
    /// module changed among the fields a control owns.
    fn call_mut(&mut self, hook: Hook, tp: &mut TcpSock, a: u32, b: u32, sample: *const c_void) {
        self.fill(tp);
        let before = self.view;
        crash::enter(self.inst.label, hook, tp.now.ps());
        // SAFETY: as in `call`.
        unsafe {
            (self.inst.glue.hook)(self.sk, &mut self.view, hook as i32, a, b, sample);
        }
        crash::leave();
        let v = &self.view;
        if v.snd_cwnd != before.snd_cwnd {
            tp.snd_cwnd = v.snd_cwnd;
        }
        if v.snd_ssthresh != before.snd_ssthresh {
            tp.snd_ssthresh = v.snd_ssthresh;
        }
        if v.snd_cwnd_cnt != before.snd_cwnd_cnt {
            tp.snd_cwnd_cnt = v.snd_cwnd_cnt;
        }
        if v.snd_cwnd_clamp != before.snd_cwnd_clamp {
            tp.snd_cwnd_clamp = v.snd_cwnd_clamp;
        }
        if v.prior_cwnd != before.prior_cwnd {
            tp.prior_cwnd = v.prior_cwnd;
        }
        if v.pacing_rate != before.pacing_rate {
            tp.pacing_rate_bps = v.pacing_rate.saturating_mul(8);
        }
        if v.app_limited != before.app_limited {
            tp.app_limited = v.app_limited as u64;
        }
    }

    /// Asks a hook that only answers (Linux's `tso_segs` and
    /// `min_tso_segs`, which `tcp_tso_segs` calls as it sizes an skb) on a
    /// view of its own, with `sk_pacing_rate` the rate the stack's
    /// autosize reads (`pacing_bytes_per_s`) and `a` the hook's argument;
    /// nothing is copied back. `None`: the socket's ops (a module may have
    /// moved it to other ops) have no such hook.
    fn ask(&self, hook: Hook, tp: &TcpSock, pacing_bytes_per_s: u64, a: u32) -> Option<u32> {
        let mut v = View::default();
        fill_view(&mut v, self.isn, tp);
        v.pacing_rate = pacing_bytes_per_s;
        let mut has = 0u32;
        crash::enter(self.inst.label, hook, tp.now.ps());
        // SAFETY: the socket is ours and outlives the call; the shim writes
        // the view and `has` (whether the socket's ops have the hook) only.
        let r = unsafe {
            (self.inst.glue.hook)(
                self.sk,
                &mut v,
                hook as i32,
                a,
                0,
                &mut has as *mut u32 as *const c_void,
            )
        };
        crash::leave();
        (has != 0).then_some(r)
    }

    fn seq(&self, ack: u64) -> u32 {
        self.isn.wrapping_add(ack as u32)
    }
}

/// `v` as the module sees `tp` (`isn`: the connection's initial sequence
/// number).
fn fill_view(v: &mut View, isn: u32, tp: &TcpSock) {
    v.now_ns = tp.now.ps() / 1000;
    v.pacing_rate = tp.pacing_rate_bps / 8;
    v.wstamp_ns = tp.wstamp.ps() / 1000;
    v.delivered_mstamp_ns = tp.delivered_mstamp.ps() / 1000;
    v.snd_cwnd_stamp_ns = tp.snd_cwnd_stamp.ps() / 1000;
    v.lsndtime_ns = tp.lsndtime.ps() / 1000;
    v.mss = tp.mss;
    v.snd_cwnd = tp.snd_cwnd;
    v.snd_ssthresh = tp.snd_ssthresh;
    v.snd_cwnd_cnt = tp.snd_cwnd_cnt;
    v.snd_cwnd_clamp = tp.snd_cwnd_clamp;
    v.prior_cwnd = tp.prior_cwnd;
    v.snd_una = isn.wrapping_add(tp.snd_una as u32);
    v.snd_nxt = isn.wrapping_add(tp.snd_nxt as u32);
    v.packets_out = tp.packets_out;
    v.sacked_out = tp.sacked_out;
    v.lost_out = tp.lost_out;
    v.retrans_out = tp.retrans_out;
    v.delivered = tp.delivered as u32;
    v.delivered_ce = tp.delivered_ce as u32;
    v.lost = tp.lost as u32;
    v.app_limited = if tp.app_limited == APP_LIMITED_AT_START {
        u32::MAX
    } else {
        tp.app_limited as u32
    };
    v.srtt_us = us(tp.srtt).min(u32::MAX as u64 >> 3) as u32;
    v.min_rtt_us = if tp.min_rtt == Dur::MAX {
        u32::MAX
    } else {
        us(tp.min_rtt).min(u32::MAX as u64) as u32
    };
    v.max_packets_out = tp.max_packets_out;
    v.ca_state = tp.ca_state as u8;
    v.is_cwnd_limited = tp.is_cwnd_limited as u8;
    v.ecn_ok = tp.ecn_ok as u8;
    v.pacing_needed = 0;
}

impl Drop for KmodControl {
    fn drop(&mut self) {
        // SAFETY: the socket was made by this copy and is freed once.
        // (`_rng`, which the socket points to, is dropped after it.)
        unsafe { (self.inst.glue.sock_free)(self.sk) };
    }
}

fn event_code(ev: CaEvent) -> u32 {
    match ev {
        CaEvent::TxStart => 0,
        CaEvent::CwndRestart => 1,
        CaEvent::CompleteCwr => 2,
        CaEvent::Loss => 3,
        CaEvent::EcnNoCe => 4,
        CaEvent::EcnIsCe => 5,
    }
}

impl CongestionControl for KmodControl {
    fn name(&self) -> &'static str {
        self.inst.name
    }

    fn init(&mut self, tp: &mut TcpSock) {
        if self.inst.caps & caps::INIT != 0 {
            self.call_mut(Hook::Init, tp, 0, 0, std::ptr::null());
        }
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        self.call(Hook::Ssthresh, tp, 0, 0, std::ptr::null()).0
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u64, acked: u32) {
        if self.inst.caps & caps::CONG_CONTROL != 0 {
            return;
        }
        let a = self.seq(ack);
        self.call_mut(Hook::CongAvoid, tp, a, acked, std::ptr::null());
    }

    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        if self.inst.caps & caps::SET_STATE != 0 {
            self.call_mut(Hook::SetState, tp, new_state as u32, 0, std::ptr::null());
        }
    }

    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        if self.inst.caps & caps::CWND_EVENT != 0 {
            self.call_mut(Hook::CwndEvent, tp, event_code(ev), 0, std::ptr::null());
        }
    }

    fn in_ack_event(&mut self, tp: &mut TcpSock, flags: u32) {
        if self.inst.caps & caps::IN_ACK_EVENT != 0 {
            self.call_mut(Hook::InAckEvent, tp, flags, 0, std::ptr::null());
        }
    }

    fn pkts_acked(&mut self, tp: &mut TcpSock, sample: &AckSample) {
        if self.inst.caps & caps::PKTS_ACKED != 0 {
            let s = AckSampleC {
                pkts_acked: sample.pkts_acked,
                rtt_us: sample.rtt.map_or(-1, |d| us(d).min(i32::MAX as u64) as i32),
                in_flight: sample.in_flight,
            };
            self.call_mut(Hook::PktsAcked, tp, 0, 0, &s as *const _ as *const c_void);
        }
    }

    /// BBRv3's kernel hook: the stack has just marked a segment lost.
    fn skb_marked_lost(&mut self, tp: &mut TcpSock, seg: &LostSegment) {
        if self.inst.caps & caps::SKB_MARKED_LOST != 0 {
            let s = LostSegmentC {
                tx_in_flight: seg.tx_in_flight,
                lost: seg.lost.min(u32::MAX as u64) as u32,
                is_app_limited: seg.is_app_limited as u8,
            };
            self.call_mut(
                Hook::SkbMarkedLost,
                tp,
                0,
                0,
                &s as *const _ as *const c_void,
            );
        }
    }

    fn undo_cwnd(&mut self, tp: &TcpSock) -> u32 {
        if self.inst.caps & caps::UNDO_CWND == 0 {
            return tp.snd_cwnd.max(tp.prior_cwnd);
        }
        self.call(Hook::UndoCwnd, tp, 0, 0, std::ptr::null()).0
    }

    fn has_cong_control(&self) -> bool {
        self.inst.caps & caps::CONG_CONTROL != 0
    }

    fn cong_control(&mut self, tp: &mut TcpSock, ack: u64, rs: &RateSample) {
        let valid = rs.delivered.is_some();
        let s = RateSampleC {
            prior_mstamp: rs.prior_time.ps() / 1_000_000,
            prior_delivered: rs.prior_delivered as u32,
            prior_delivered_ce: rs.prior_delivered_ce as u32,
            delivered: rs.delivered.map_or(-1, |d| d as i32),
            delivered_ce: rs.delivered_ce as i32,
            interval_us: if valid { us(rs.interval) as i64 } else { -1 },
            snd_interval_us: us(rs.snd_interval) as u32,
            rcv_interval_us: us(rs.rcv_interval) as u32,
            rtt_us: rs.rtt.map_or(-1, |d| us(d) as i64),
            losses: rs.losses as i32,
            acked_sacked: rs.acked_sacked,
            prior_in_flight: rs.prior_in_flight,
            last_end_seq: 0,
            is_app_limited: rs.is_app_limited,
            is_retrans: rs.is_retrans,
            is_ack_delayed: false,
            tx_in_flight: rs.tx_in_flight,
            lost: rs.lost.min(i32::MAX as u64) as i32,
            is_ece: rs.is_ece,
            is_acking_tlp_retrans_seq: false,
        };
        let a = self.seq(ack);
        self.call_mut(Hook::CongControl, tp, a, 0, &s as *const _ as *const c_void);
    }

    /// Linux's `tso_segs` hook (BBRv3's kernel): the module sizes its own
    /// skbs when the connection's `gso_max_bytes` is set; the device's
    /// `sk_gso_max_size` is `gso_max_bytes`, `mss_now` the MSS. At least
    /// one segment (the stack caps it at the largest skb's).
    fn tso_segs(&self, tp: &TcpSock, pacing_bytes_per_s: u64, gso_max_bytes: u32) -> Option<u32> {
        if self.inst.caps & caps::TSO_SEGS == 0 {
            return None;
        }
        self.ask(Hook::TsoSegs, tp, pacing_bytes_per_s, gso_max_bytes)
            .map(|segs| segs.max(1))
    }

    /// Linux's `min_tso_segs` hook (BBR's one segment below 1.2 Mb/s): the
    /// floor of the generic autosize, at least one segment.
    fn min_tso_segs(&self, tp: &TcpSock, pacing_bytes_per_s: u64) -> Option<u32> {
        if self.inst.caps & caps::MIN_TSO_SEGS == 0 {
            return None;
        }
        self.ask(Hook::MinTsoSegs, tp, pacing_bytes_per_s, 0)
            .map(|segs| segs.max(1))
    }

    fn needs_ecn(&self) -> bool {
        self.inst.caps & caps::NEEDS_ECN != 0
    }

    /// A module that sets cwnd and pacing itself (`cong_control`) is
    /// paced at the rate it sets, as Linux's internal pacing does for BBR.
    fn wants_pacing(&self) -> bool {
        self.inst.caps & caps::CONG_CONTROL != 0
    }

    /// The module's private state under the port's names, for the modules
    /// whose layout [`crate::private`] knows (Cubic, DCTCP).
    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        crate::private::decode(self.inst.layout, self.private_bytes(), out);
    }
}

/// One module control of a run's configuration.
#[derive(Clone, Debug)]
pub struct ModuleSpec {
    /// The configuration's id of the control (`flows[0].cc`).
    pub id: String,
    /// The module's source file.
    pub source: PathBuf,
    /// The module's parameters, values as the kernel's parser reads them.
    pub params: Vec<(String, String)>,
    /// The simulated host the connection starts from: one kernel (one
    /// loaded copy) per (module, host).
    pub host: String,
    pub build: BuildOptions,
}

/// The run's factory of module controls (`cc::ExternalControls`).
pub struct KmodControls {
    by_id: HashMap<String, Arc<Instance>>,
}

impl KmodControls {
    /// Compiles (or finds cached) and loads every module: one copy per
    /// (source, build options, parameters, host).
    pub fn new(specs: &[ModuleSpec]) -> Result<KmodControls, KmodError> {
        // (shared object, host, parameters) -> that host's kernel
        type Kernel = (PathBuf, String, Vec<(String, String)>);
        let mut kernels: HashMap<Kernel, Arc<Instance>> = HashMap::new();
        let mut by_id = HashMap::new();
        for s in specs {
            let so = compile::build(&s.source, &s.build)?;
            let key = (so.clone(), s.host.clone(), s.params.clone());
            let inst = match kernels.get(&key) {
                Some(i) => i.clone(),
                None => {
                    let file = s.source.file_name().map_or_else(
                        || s.source.display().to_string(),
                        |f| f.to_string_lossy().into_owned(),
                    );
                    let i = Instance::load(&so, &file, &s.params)?;
                    kernels.insert(key, i.clone());
                    i
                }
            };
            by_id.insert(s.id.clone(), inst);
        }
        Ok(KmodControls { by_id })
    }

    /// The loaded instance behind `id`.
    pub fn instance(&self, id: &str) -> Option<&Arc<Instance>> {
        self.by_id.get(id)
    }
}

impl ExternalControls for KmodControls {
    fn check(&self, id: &str) -> Result<(), String> {
        if self.by_id.contains_key(id) {
            Ok(())
        } else {
            Err(format!("no kernel module was loaded for {id:?}"))
        }
    }

    fn make(&self, id: &str, rng: Rng) -> Box<dyn CongestionControl> {
        let inst = self.by_id.get(id).expect("checked by World::build");
        Box::new(KmodControl::new(inst.clone(), rng))
    }
}
