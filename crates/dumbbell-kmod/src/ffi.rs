//! The C side's interface: `dlopen`, and the shim's glue functions and
//! structures (`shim/dumbbell_shim.c`; keep both in step).

use std::ffi::{c_char, c_int, c_void, CStr, CString};

#[link(name = "dl")]
extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *const c_char;
    fn dlclose(handle: *mut c_void) -> c_int;
}

const RTLD_NOW: c_int = 2;
const RTLD_LOCAL: c_int = 0;

/// The sender's state in dumbbell's units (`struct dumbbell_view`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct View {
    pub now_ns: u64,
    pub pacing_rate: u64,
    pub wstamp_ns: u64,
    pub delivered_mstamp_ns: u64,
    pub snd_cwnd_stamp_ns: u64,
    pub lsndtime_ns: u64,
    pub mss: u32,
    pub snd_cwnd: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd_cnt: u32,
    pub snd_cwnd_clamp: u32,
    pub prior_cwnd: u32,
    pub snd_una: u32,
    pub snd_nxt: u32,
    pub packets_out: u32,
    pub sacked_out: u32,
    pub lost_out: u32,
    pub retrans_out: u32,
    pub delivered: u32,
    pub delivered_ce: u32,
    pub lost: u32,
    pub app_limited: u32,
    pub srtt_us: u32,
    pub min_rtt_us: u32,
    pub max_packets_out: u32,
    pub ca_state: u8,
    pub is_cwnd_limited: u8,
    pub ecn_ok: u8,
    pub pacing_needed: u8,
}

/// `struct ack_sample` of the shim.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct AckSampleC {
    pub pkts_acked: u32,
    pub rtt_us: i32,
    pub in_flight: u32,
}

/// `struct rate_sample` of the shim.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct RateSampleC {
    pub prior_mstamp: u64,
    pub prior_delivered: u32,
    pub prior_delivered_ce: u32,
    pub delivered: i32,
    pub delivered_ce: i32,
    pub interval_us: i64,
    pub snd_interval_us: u32,
    pub rcv_interval_us: u32,
    pub rtt_us: i64,
    pub losses: i32,
    pub acked_sacked: u32,
    pub prior_in_flight: u32,
    pub last_end_seq: u32,
    pub is_app_limited: bool,
    pub is_retrans: bool,
    pub is_ack_delayed: bool,
    // BBRv3's kernel adds:
    pub tx_in_flight: u32,
    pub lost: i32,
    pub is_ece: bool,
    pub is_acking_tlp_retrans_seq: bool,
}

/// `struct dumbbell_lost` of the shim: a segment just marked lost
/// (`cc::LostSegment`), for BBRv3's `skb_marked_lost`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct LostSegmentC {
    pub tx_in_flight: u32,
    pub lost: u32,
    pub is_app_limited: u8,
}

/// Hook numbers of `dumbbell_hook` (`enum dumbbell_hook`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Hook {
    Init = 0,
    Ssthresh = 1,
    CongAvoid = 2,
    SetState = 3,
    CwndEvent = 4,
    InAckEvent = 5,
    PktsAcked = 6,
    UndoCwnd = 7,
    CongControl = 8,
    Release = 9,
    SkbMarkedLost = 10,
    TsoSegs = 11,
    MinTsoSegs = 12,
}

impl Hook {
    pub const NAMES: [&'static str; 13] = [
        "init",
        "ssthresh",
        "cong_avoid",
        "set_state",
        "cwnd_event",
        "in_ack_event",
        "pkts_acked",
        "undo_cwnd",
        "cong_control",
        "release",
        "skb_marked_lost",
        "tso_segs",
        "min_tso_segs",
    ];
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// Capability bits of `dumbbell_ops_caps`.
pub mod caps {
    pub const INIT: u32 = 1 << 0;
    pub const SET_STATE: u32 = 1 << 3;
    pub const CWND_EVENT: u32 = 1 << 4;
    pub const IN_ACK_EVENT: u32 = 1 << 5;
    pub const PKTS_ACKED: u32 = 1 << 6;
    pub const UNDO_CWND: u32 = 1 << 7;
    pub const CONG_CONTROL: u32 = 1 << 8;
    pub const RELEASE: u32 = 1 << 9;
    pub const SKB_MARKED_LOST: u32 = 1 << 10;
    pub const TSO_SEGS: u32 = 1 << 11;
    pub const MIN_TSO_SEGS: u32 = 1 << 12;
    pub const NEEDS_ECN: u32 = 1 << 16;
}

pub type RandCb = extern "C" fn(*mut c_void, u32) -> u32;
pub type HookFn =
    unsafe extern "C" fn(*mut c_void, *mut View, c_int, u32, u32, *const c_void) -> u32;

/// The glue functions of one loaded copy.
pub struct Glue {
    handle: *mut c_void,
    pub load: unsafe extern "C" fn(RandCb) -> c_int,
    pub ops_name: unsafe extern "C" fn() -> *const c_char,
    pub ops_caps: unsafe extern "C" fn() -> u32,
    pub param_count: unsafe extern "C" fn() -> c_int,
    pub param_name: unsafe extern "C" fn(c_int) -> *const c_char,
    pub param_set: unsafe extern "C" fn(*const c_char, *const c_char) -> c_int,
    pub sock_new: unsafe extern "C" fn(*mut c_void) -> *mut c_void,
    pub sock_free: unsafe extern "C" fn(*mut c_void),
    pub sock_priv: unsafe extern "C" fn(*const c_void, *mut u32) -> *const u8,
    pub hook: HookFn,
}

// The copy is used by one run's thread at a time (one kernel per host per
// run); nothing in it is shared between runs.
unsafe impl Send for Glue {}
unsafe impl Sync for Glue {}

fn last_dl_error() -> String {
    // SAFETY: dlerror returns a thread-local C string or null.
    unsafe {
        let e = dlerror();
        if e.is_null() {
            "unknown error".to_string()
        } else {
            CStr::from_ptr(e).to_string_lossy().into_owned()
        }
    }
}

impl Glue {
    /// Loads the shared object at `path` (a fresh copy: its own statics).
    /// Each symbol is cast to the type of the field it fills.
    #[allow(clippy::missing_transmute_annotations)]
    pub fn open(path: &std::path::Path) -> Result<Glue, String> {
        let c = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
        // SAFETY: plain dlopen/dlsym; symbols are cast to the shim's
        // signatures, which `dumbbell_shim.c` defines.
        unsafe {
            let handle = dlopen(c.as_ptr(), RTLD_NOW | RTLD_LOCAL);
            if handle.is_null() {
                return Err(last_dl_error());
            }
            let sym = |name: &str| -> Result<*mut c_void, String> {
                let n = CString::new(name).expect("no NUL in symbol names");
                let p = dlsym(handle, n.as_ptr());
                if p.is_null() {
                    Err(format!("the shim's symbol {name} is missing"))
                } else {
                    Ok(p)
                }
            };
            macro_rules! f {
                ($name:expr) => {
                    std::mem::transmute::<*mut c_void, _>(sym($name)?)
                };
            }
            Ok(Glue {
                handle,
                load: f!("dumbbell_load"),
                ops_name: f!("dumbbell_ops_name"),
                ops_caps: f!("dumbbell_ops_caps"),
                param_count: f!("dumbbell_param_count"),
                param_name: f!("dumbbell_param_name"),
                param_set: f!("dumbbell_param_set"),
                sock_new: f!("dumbbell_sock_new"),
                sock_free: f!("dumbbell_sock_free"),
                sock_priv: f!("dumbbell_sock_priv"),
                hook: f!("dumbbell_hook"),
            })
        }
    }

    /// The module's parameter names, in declaration order.
    pub fn params(&self) -> Vec<String> {
        // SAFETY: indices below the count name static strings.
        unsafe {
            (0..(self.param_count)())
                .map(|i| {
                    CStr::from_ptr((self.param_name)(i))
                        .to_string_lossy()
                        .into_owned()
                })
                .collect()
        }
    }
}

impl Drop for Glue {
    fn drop(&mut self) {
        // SAFETY: every socket of this copy was freed by its control.
        unsafe {
            dlclose(self.handle);
        }
    }
}
