//! Congestion controls written in Python, run by the core's own stack.
//!
//! The core knows nothing of Python: a configuration names such a control
//! `{"kind": "external", "id": "flows[0].cc"}` and the run is handed a
//! [`PyControls`] (the core's `cc::ExternalControls`) that maps each id to
//! the object the user passed as `cc=` (a subclass of
//! `dumbbell.controls.CongestionControl`). For every connection it builds a
//! [`PyControl`], which implements the core's `CongestionControl` trait by
//! calling the object's methods of the same names.
//!
//! - **The GIL** is taken inside each callback only (`Python::with_gil`);
//!   the run itself goes on with the GIL released, as every run does.
//! - **Only overridden hooks are called.** Which of the optional hooks the
//!   class overrides is read once per connection (`_dumbbell_spec`); the
//!   others keep the trait's defaults without entering Python, so a Reno
//!   written in Python costs one call per ACK (`cong_avoid`).
//! - **The socket** is one [`PyTcpSock`] per connection, refreshed from the
//!   stack's `TcpSock` before each call; after a hook that may write (those
//!   the trait gives `&mut TcpSock`), the window fields a control owns are
//!   copied back. The stack's own fields are read-only, and in `ssthresh`
//!   and `undo_cwnd` (which Linux gives a `const` socket) every field is.
//! - **Errors.** A hook that raises, or returns what is not a window, stops
//!   the run (the run's monitor) and skips every later Python call; the
//!   binding then raises `NativeControlError(id, control, hook, time_ps,
//!   message)` with the Python exception as its cause. Nothing panics, and
//!   nothing runs on in a broken state for more than the monitor's poll
//!   interval (1 024 events), during which the stack keeps its own defaults.

use dumbbell_core::cc::{
    tcp_reno_ssthresh, AckSample, CaEvent, CaState, CongestionControl, ExternalControls,
    RateSample, TcpSock,
};
use dumbbell_core::sim::{Dur, Rng, RunMonitor, Time};
use pyo3::exceptions::{PyAttributeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The first hook failure of a run.
pub struct HookError {
    /// The configuration's id of the control (`flows[0].cc`).
    pub id: String,
    /// The control's name (its class's `name`).
    pub control: String,
    pub hook: &'static str,
    /// Simulated time of the failing call, ps.
    pub time_ps: u64,
    pub err: PyErr,
}

/// What every control of one run shares: the first failure, and the run's
/// monitor to stop it.
pub struct Shared {
    failed: AtomicBool,
    error: Mutex<Option<HookError>>,
    monitor: Arc<RunMonitor>,
}

impl Shared {
    fn fail(&self, e: HookError) {
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        self.failed.store(true, Ordering::SeqCst);
        self.monitor.request_stop();
    }

    /// The first failure, if a hook failed.
    pub fn take_error(&self) -> Option<HookError> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// The run's factory: the `cc=` objects by configuration id.
pub struct PyControls {
    templates: HashMap<String, Py<PyAny>>,
    pub shared: Arc<Shared>,
}

impl PyControls {
    pub fn new(templates: HashMap<String, Py<PyAny>>, monitor: Arc<RunMonitor>) -> Self {
        PyControls {
            templates,
            shared: Arc::new(Shared {
                failed: AtomicBool::new(false),
                error: Mutex::new(None),
                monitor,
            }),
        }
    }
}

/// Control names live as long as the process (the trait's `name()` is
/// `&'static str`); there are as many as there are distinct class names.
fn intern_name(name: &str) -> &'static str {
    static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(n) = names.iter().find(|n| **n == name) {
        return n;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.push(leaked);
    leaked
}

// Which optional hooks the class overrides (bit per hook).
const H_INIT: u32 = 1;
const H_SET_STATE: u32 = 2;
const H_CWND_EVENT: u32 = 4;
const H_IN_ACK_EVENT: u32 = 8;
const H_PKTS_ACKED: u32 = 16;
const H_UNDO_CWND: u32 = 32;
const OPTIONAL_HOOKS: [(&str, u32); 6] = [
    ("init", H_INIT),
    ("set_state", H_SET_STATE),
    ("cwnd_event", H_CWND_EVENT),
    ("in_ack_event", H_IN_ACK_EVENT),
    ("pkts_acked", H_PKTS_ACKED),
    ("undo_cwnd", H_UNDO_CWND),
];

impl ExternalControls for PyControls {
    fn check(&self, id: &str) -> Result<(), String> {
        if self.templates.contains_key(id) {
            Ok(())
        } else {
            let mut known: Vec<&str> = self.templates.keys().map(String::as_str).collect();
            known.sort_unstable();
            Err(format!(
                "no Python control {id:?} was handed to this run (have: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ))
        }
    }

    fn make(&self, id: &str, mut rng: Rng) -> Box<dyn CongestionControl> {
        let seed = rng.next_u64();
        let shared = self.shared.clone();
        let template = self.templates.get(id).expect("checked by World::build");
        Python::with_gil(
            |py| match connect(py, template.bind(py), seed, id, &shared) {
                Ok(c) => Box::new(c) as Box<dyn CongestionControl>,
                Err(err) => {
                    shared.fail(HookError {
                        id: id.to_string(),
                        control: control_label(template.bind(py)),
                        hook: "clone",
                        time_ps: 0,
                        err,
                    });
                    Box::new(PyControl::broken(id, shared))
                }
            },
        )
    }
}

/// What names a control whose copy failed: the class of the object (or of
/// the template it stands for, `dumbbell.run._Connections.template`).
fn control_label(obj: &Bound<'_, PyAny>) -> String {
    let obj = obj.getattr("template").unwrap_or_else(|_| obj.clone());
    obj.get_type()
        .qualname()
        .map_or_else(|_| "?".into(), |q| q.to_string())
}

/// One connection's control: the object's per-connection copy
/// (`template._dumbbell_connect(seed)`) and what the class overrides.
fn connect(
    py: Python<'_>,
    template: &Bound<'_, PyAny>,
    seed: u64,
    id: &str,
    shared: &Arc<Shared>,
) -> PyResult<PyControl> {
    let obj = template.call_method1(intern!(py, "_dumbbell_connect"), (seed,))?;
    let spec = obj.call_method0(intern!(py, "_dumbbell_spec"))?;
    let spec = spec.downcast::<PyDict>()?;
    let get = |k: &str| -> PyResult<Bound<'_, PyAny>> {
        spec.get_item(k)?
            .ok_or_else(|| PyValueError::new_err(format!("_dumbbell_spec lacks {k:?}")))
    };
    let name: String = get("name")?.extract()?;
    let overridden = get("overridden")?;
    let mut hooks = 0;
    for (hook, bit) in OPTIONAL_HOOKS {
        if overridden.contains(hook)? {
            hooks |= bit;
        }
    }
    let tp = Py::new(
        py,
        PyTcpSock {
            inner: TcpSock::new(1, 1),
            writable: false,
        },
    )?;
    Ok(PyControl {
        id: id.to_string(),
        name: intern_name(&name),
        obj: Some(obj.unbind()),
        tp: Some(tp),
        hooks,
        has_cong_control: get("cong_control")?.extract()?,
        needs_ecn: get("needs_ecn")?.extract()?,
        wants_pacing: get("wants_pacing")?.extract()?,
        shared: shared.clone(),
    })
}

/// The core's `CongestionControl`, each hook a call into Python.
pub struct PyControl {
    id: String,
    name: &'static str,
    obj: Option<Py<PyAny>>,
    tp: Option<Py<PyTcpSock>>,
    hooks: u32,
    has_cong_control: bool,
    needs_ecn: bool,
    wants_pacing: bool,
    shared: Arc<Shared>,
}

impl PyControl {
    /// A control whose copy could not be made: the run is already stopping.
    fn broken(id: &str, shared: Arc<Shared>) -> Self {
        PyControl {
            id: id.to_string(),
            name: "python",
            obj: None,
            tp: None,
            hooks: 0,
            has_cong_control: false,
            needs_ecn: false,
            wants_pacing: false,
            shared,
        }
    }

    /// Calls `hook` with the socket proxy refreshed from `tp` (writable if
    /// `write`); copies the control's fields back after a writing hook.
    /// None if the run has already failed or this call fails (recorded).
    fn call<R>(
        &self,
        hook: &'static str,
        tp: &mut TcpSock,
        write: bool,
        f: impl for<'py> FnOnce(Python<'py>, &Bound<'py, PyAny>, &Bound<'py, PyTcpSock>) -> PyResult<R>,
    ) -> Option<R> {
        if self.shared.failed.load(Ordering::Relaxed) {
            return None;
        }
        let (obj, proxy) = (self.obj.as_ref()?, self.tp.as_ref()?);
        Python::with_gil(|py| {
            let proxy = proxy.bind(py);
            {
                let mut p = proxy.borrow_mut();
                p.inner.clone_from(tp);
                p.writable = write;
            }
            let out = f(py, obj.bind(py), proxy);
            let mut p = proxy.borrow_mut();
            p.writable = false;
            match out {
                Ok(v) => {
                    if write {
                        p.write_back(tp);
                    }
                    Some(v)
                }
                Err(err) => {
                    self.shared.fail(HookError {
                        id: self.id.clone(),
                        control: self.name.to_string(),
                        hook,
                        time_ps: tp.now.ps(),
                        err,
                    });
                    None
                }
            }
        })
    }
}

/// A window returned by `ssthresh` or `undo_cwnd`: an int of packets, at
/// least 1 and below 2^31 (Linux's `TCP_INFINITE_SSTHRESH` is the largest).
fn window(hook: &str, v: &Bound<'_, PyAny>) -> PyResult<u32> {
    let bad = || {
        PyTypeError::new_err(format!(
            "{hook} must return a window in packets, an int in [1, 2^31), got {}",
            v.repr().map_or_else(|_| "?".into(), |r| r.to_string())
        ))
    };
    if v.is_instance_of::<pyo3::types::PyBool>() {
        return Err(bad());
    }
    match v.extract::<u64>() {
        Ok(w) if (1..=0x7fff_ffff).contains(&w) => Ok(w as u32),
        _ => Err(bad()),
    }
}

impl CongestionControl for PyControl {
    fn name(&self) -> &'static str {
        self.name
    }

    fn init(&mut self, tp: &mut TcpSock) {
        if self.hooks & H_INIT != 0 {
            self.call("init", tp, true, |py, obj, proxy| {
                obj.call_method1(intern!(py, "init"), (proxy,)).map(drop)
            });
        }
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        let mut copy = tp.clone();
        self.call("ssthresh", &mut copy, false, |py, obj, proxy| {
            window(
                "ssthresh",
                &obj.call_method1(intern!(py, "ssthresh"), (proxy,))?,
            )
        })
        .unwrap_or_else(|| tcp_reno_ssthresh(tp))
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u64, acked: u32) {
        if self.has_cong_control {
            return;
        }
        self.call("cong_avoid", tp, true, |py, obj, proxy| {
            obj.call_method1(intern!(py, "cong_avoid"), (proxy, ack, acked))?;
            Ok(())
        });
    }

    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        if self.hooks & H_SET_STATE != 0 {
            self.call("set_state", tp, true, |py, obj, proxy| {
                obj.call_method1(intern!(py, "set_state"), (proxy, new_state as u8))
                    .map(drop)
            });
        }
    }

    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        if self.hooks & H_CWND_EVENT != 0 {
            self.call("cwnd_event", tp, true, |py, obj, proxy| {
                obj.call_method1(intern!(py, "cwnd_event"), (proxy, event_code(ev)))
                    .map(drop)
            });
        }
    }

    fn in_ack_event(&mut self, tp: &mut TcpSock, flags: u32) {
        if self.hooks & H_IN_ACK_EVENT != 0 {
            self.call("in_ack_event", tp, true, |py, obj, proxy| {
                obj.call_method1(intern!(py, "in_ack_event"), (proxy, flags))
                    .map(drop)
            });
        }
    }

    fn pkts_acked(&mut self, tp: &mut TcpSock, sample: &AckSample) {
        if self.hooks & H_PKTS_ACKED != 0 {
            let s = *sample;
            self.call("pkts_acked", tp, true, |py, obj, proxy| {
                let sample = Py::new(py, PyAckSample::from(&s))?;
                obj.call_method1(intern!(py, "pkts_acked"), (proxy, sample))?;
                Ok(())
            });
        }
    }

    fn undo_cwnd(&mut self, tp: &TcpSock) -> u32 {
        let default = tp.snd_cwnd.max(tp.prior_cwnd);
        if self.hooks & H_UNDO_CWND == 0 {
            return default;
        }
        let mut copy = tp.clone();
        self.call("undo_cwnd", &mut copy, false, |py, obj, proxy| {
            window(
                "undo_cwnd",
                &obj.call_method1(intern!(py, "undo_cwnd"), (proxy,))?,
            )
        })
        .unwrap_or(default)
    }

    fn has_cong_control(&self) -> bool {
        self.has_cong_control
    }

    fn cong_control(&mut self, tp: &mut TcpSock, ack: u64, rs: &RateSample) {
        let rs = *rs;
        self.call("cong_control", tp, true, |py, obj, proxy| {
            let rs = Py::new(py, PyRateSample::from(&rs))?;
            obj.call_method1(intern!(py, "cong_control"), (proxy, ack, rs))?;
            Ok(())
        });
    }

    fn needs_ecn(&self) -> bool {
        self.needs_ecn
    }

    fn wants_pacing(&self) -> bool {
        self.wants_pacing
    }
}

/// Linux `enum tcp_ca_event`'s values.
fn event_code(ev: CaEvent) -> u8 {
    match ev {
        CaEvent::TxStart => 0,
        CaEvent::CwndRestart => 1,
        CaEvent::CompleteCwr => 2,
        CaEvent::Loss => 3,
        CaEvent::EcnNoCe => 4,
        CaEvent::EcnIsCe => 5,
    }
}

/// The sender's state a control sees (the core's `TcpSock`), valid during
/// the hook it was passed to. Windows in packets, times in picoseconds
/// (`_ps`), rates in bit/s. The window fields a control owns are writable
/// (`snd_cwnd`, `snd_ssthresh`, `snd_cwnd_cnt`, `snd_cwnd_clamp`,
/// `prior_cwnd`, `pacing_rate_bps`, `app_limited`); the stack owns the rest.
#[pyclass(module = "dumbbell._native", name = "TcpSock")]
pub struct PyTcpSock {
    inner: TcpSock,
    writable: bool,
}

impl PyTcpSock {
    /// Copies the fields a control owns into the stack's socket.
    fn write_back(&self, tp: &mut TcpSock) {
        let s = &self.inner;
        tp.snd_cwnd = s.snd_cwnd;
        tp.snd_ssthresh = s.snd_ssthresh;
        tp.snd_cwnd_cnt = s.snd_cwnd_cnt;
        tp.snd_cwnd_clamp = s.snd_cwnd_clamp;
        tp.prior_cwnd = s.prior_cwnd;
        tp.pacing_rate_bps = s.pacing_rate_bps;
        tp.app_limited = s.app_limited;
    }

    fn check_writable(&self, field: &str) -> PyResult<()> {
        if self.writable {
            Ok(())
        } else {
            Err(PyAttributeError::new_err(format!(
                "tp.{field} is read-only here: ssthresh and undo_cwnd return the window \
                 instead of writing it (and tp is valid only during the hook it was passed to)"
            )))
        }
    }
}

/// A u32 field in `[lo, 2^32)`.
fn set_u32(field: &str, v: &Bound<'_, PyAny>, lo: u32) -> PyResult<u32> {
    if v.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "tp.{field} is an int, got a bool"
        )));
    }
    match v.extract::<u32>() {
        Ok(x) if x >= lo => Ok(x),
        _ => Err(PyValueError::new_err(format!(
            "tp.{field} must be an int in [{lo}, 2^32), got {}",
            v.repr().map_or_else(|_| "?".into(), |r| r.to_string())
        ))),
    }
}

fn set_u64(field: &str, v: &Bound<'_, PyAny>) -> PyResult<u64> {
    if v.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "tp.{field} is an int, got a bool"
        )));
    }
    v.extract::<u64>().map_err(|_| {
        PyValueError::new_err(format!(
            "tp.{field} must be an int in [0, 2^64), got {}",
            v.repr().map_or_else(|_| "?".into(), |r| r.to_string())
        ))
    })
}

#[pymethods]
impl PyTcpSock {
    // ---- the fields a control writes (windows in packets)
    /// Congestion window, packets (at least 1).
    #[getter]
    fn snd_cwnd(&self) -> u32 {
        self.inner.snd_cwnd
    }
    #[setter]
    fn set_snd_cwnd(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_writable("snd_cwnd")?;
        self.inner.snd_cwnd = set_u32("snd_cwnd", v, 1)?;
        Ok(())
    }
    /// Slow-start threshold, packets (`INFINITE_SSTHRESH` = 2^31 − 1 at first).
    #[getter]
    fn snd_ssthresh(&self) -> u32 {
        self.inner.snd_ssthresh
    }
    #[setter]
    fn set_snd_ssthresh(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_writable("snd_ssthresh")?;
        self.inner.snd_ssthresh = set_u32("snd_ssthresh", v, 1)?;
        Ok(())
    }
    /// Linear-increase counter, packets acked since the last increase.
    #[getter]
    fn snd_cwnd_cnt(&self) -> u32 {
        self.inner.snd_cwnd_cnt
    }
    #[setter]
    fn set_snd_cwnd_cnt(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_writable("snd_cwnd_cnt")?;
        self.inner.snd_cwnd_cnt = set_u32("snd_cwnd_cnt", v, 0)?;
        Ok(())
    }
    /// Largest congestion window, packets.
    #[getter]
    fn snd_cwnd_clamp(&self) -> u32 {
        self.inner.snd_cwnd_clamp
    }
    #[setter]
    fn set_snd_cwnd_clamp(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_writable("snd_cwnd_clamp")?;
        self.inner.snd_cwnd_clamp = set_u32("snd_cwnd_clamp", v, 1)?;
        Ok(())
    }
    /// cwnd before the current reduction started (what `undo_cwnd` restores).
    #[getter]
    fn prior_cwnd(&self) -> u32 {
        self.inner.prior_cwnd
    }
    #[setter]
    fn set_prior_cwnd(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_writable("prior_cwnd")?;
        self.inner.prior_cwnd = set_u32("prior_cwnd", v, 0)?;
        Ok(())
    }
    /// Pacing rate, bit/s (0: unset); used if the control `wants_pacing`.
    #[getter]
    fn pacing_rate_bps(&self) -> u64 {
        self.inner.pacing_rate_bps
    }
    #[setter]
    fn set_pacing_rate_bps(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_writable("pacing_rate_bps")?;
        self.inner.pacing_rate_bps = set_u64("pacing_rate_bps", v)?;
        Ok(())
    }
    /// Application-limited until `delivered` passes this count (0: not).
    #[getter]
    fn app_limited(&self) -> u64 {
        self.inner.app_limited
    }
    #[setter]
    fn set_app_limited(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_writable("app_limited")?;
        self.inner.app_limited = set_u64("app_limited", v)?;
        Ok(())
    }

    // ---- the stack's fields, read-only
    /// Simulated time now, ps.
    #[getter]
    fn now_ps(&self) -> u64 {
        self.inner.now.ps()
    }
    /// Payload bytes per segment.
    #[getter]
    fn mss(&self) -> u32 {
        self.inner.mss
    }
    /// Oldest unacknowledged sequence number, bytes.
    #[getter]
    fn snd_una(&self) -> u64 {
        self.inner.snd_una
    }
    /// Next sequence number to send, bytes.
    #[getter]
    fn snd_nxt(&self) -> u64 {
        self.inner.snd_nxt
    }
    /// Segments sent and not cumulatively acknowledged.
    #[getter]
    fn packets_out(&self) -> u32 {
        self.inner.packets_out
    }
    #[getter]
    fn sacked_out(&self) -> u32 {
        self.inner.sacked_out
    }
    #[getter]
    fn lost_out(&self) -> u32 {
        self.inner.lost_out
    }
    #[getter]
    fn retrans_out(&self) -> u32 {
        self.inner.retrans_out
    }
    /// Packets delivered (acked or SACKed) so far.
    #[getter]
    fn delivered(&self) -> u64 {
        self.inner.delivered
    }
    /// Delivered packets that carried a CE echo.
    #[getter]
    fn delivered_ce(&self) -> u64 {
        self.inner.delivered_ce
    }
    /// Packets marked lost so far.
    #[getter]
    fn lost(&self) -> u64 {
        self.inner.lost
    }
    /// When `delivered` last grew, ps.
    #[getter]
    fn delivered_mstamp_ps(&self) -> u64 {
        self.inner.delivered_mstamp.ps()
    }
    /// Smoothed RTT, ps (0 before the first sample).
    #[getter]
    fn srtt_ps(&self) -> u64 {
        self.inner.srtt.ps()
    }
    /// Smallest RTT seen, ps (2^64 − 1 before the first sample).
    #[getter]
    fn min_rtt_ps(&self) -> u64 {
        self.inner.min_rtt.ps()
    }
    /// Recovery state (`CaState`: 0 Open, 1 Disorder, 2 CWR, 3 Recovery, 4 Loss).
    #[getter]
    fn ca_state(&self) -> u8 {
        self.inner.ca_state as u8
    }
    /// The last window was fully used (`tcp_is_cwnd_limited`).
    #[getter]
    fn is_cwnd_limited(&self) -> bool {
        self.inner.is_cwnd_limited
    }
    #[getter]
    fn max_packets_out(&self) -> u32 {
        self.inner.max_packets_out
    }
    /// Earliest departure of the next paced segment, ps.
    #[getter]
    fn wstamp_ps(&self) -> u64 {
        self.inner.wstamp.ps()
    }
    /// ECN was negotiated.
    #[getter]
    fn ecn_ok(&self) -> bool {
        self.inner.ecn_ok
    }
    /// Time of the last window change, ps.
    #[getter]
    fn snd_cwnd_stamp_ps(&self) -> u64 {
        self.inner.snd_cwnd_stamp.ps()
    }
    /// Time of the last data transmission, ps.
    #[getter]
    fn lsndtime_ps(&self) -> u64 {
        self.inner.lsndtime.ps()
    }

    /// Linux `tcp_packets_in_flight`: out − (sacked + lost) + retransmitted.
    fn in_flight(&self) -> u32 {
        self.inner.in_flight()
    }

    /// Linux `tcp_in_slow_start`: `snd_cwnd < snd_ssthresh`.
    fn in_slow_start(&self) -> bool {
        self.inner.in_slow_start()
    }

    fn __repr__(&self) -> String {
        let s = &self.inner;
        format!(
            "TcpSock(now_ps={}, snd_cwnd={}, snd_ssthresh={}, ca_state={}, srtt_ps={}, in_flight={})",
            s.now.ps(),
            s.snd_cwnd,
            s.snd_ssthresh,
            s.ca_state as u8,
            s.srtt.ps(),
            s.in_flight()
        )
    }
}

fn rtt_ps(d: Option<Dur>) -> Option<u64> {
    d.map(Dur::ps)
}

/// `pkts_acked`'s sample (Linux `struct ack_sample`).
#[pyclass(module = "dumbbell._native", name = "AckSample", frozen, get_all)]
pub struct PyAckSample {
    /// Packets newly acked or SACKed by this ACK.
    pkts_acked: u32,
    /// RTT of the most recent never-retransmitted packet acked, ps (None: none, Karn).
    rtt_ps: Option<u64>,
    /// Packets in flight before this ACK.
    in_flight: u32,
}

impl From<&AckSample> for PyAckSample {
    fn from(s: &AckSample) -> Self {
        PyAckSample {
            pkts_acked: s.pkts_acked,
            rtt_ps: rtt_ps(s.rtt),
            in_flight: s.in_flight,
        }
    }
}

#[pymethods]
impl PyAckSample {
    fn __repr__(&self) -> String {
        format!(
            "AckSample(pkts_acked={}, rtt_ps={:?}, in_flight={})",
            self.pkts_acked, self.rtt_ps, self.in_flight
        )
    }
}

/// `cong_control`'s delivery-rate sample (Linux `struct rate_sample`).
#[pyclass(module = "dumbbell._native", name = "RateSample", frozen, get_all)]
pub struct PyRateSample {
    prior_delivered: u64,
    prior_delivered_ce: u64,
    prior_time_ps: u64,
    /// Packets delivered over the interval (None: no valid sample).
    delivered: Option<u64>,
    delivered_ce: u64,
    interval_ps: u64,
    snd_interval_ps: u64,
    rcv_interval_ps: u64,
    rtt_ps: Option<u64>,
    losses: u32,
    acked_sacked: u32,
    prior_in_flight: u32,
    is_app_limited: bool,
    is_retrans: bool,
    rate_pps: Option<f64>,
}

impl From<&RateSample> for PyRateSample {
    fn from(r: &RateSample) -> Self {
        PyRateSample {
            prior_delivered: r.prior_delivered,
            prior_delivered_ce: r.prior_delivered_ce,
            prior_time_ps: Time::ps(r.prior_time),
            delivered: r.delivered,
            delivered_ce: r.delivered_ce,
            interval_ps: r.interval.ps(),
            snd_interval_ps: r.snd_interval.ps(),
            rcv_interval_ps: r.rcv_interval.ps(),
            rtt_ps: rtt_ps(r.rtt),
            losses: r.losses,
            acked_sacked: r.acked_sacked,
            prior_in_flight: r.prior_in_flight,
            is_app_limited: r.is_app_limited,
            is_retrans: r.is_retrans,
            rate_pps: r.rate_pps(),
        }
    }
}

#[pymethods]
impl PyRateSample {
    fn __repr__(&self) -> String {
        format!(
            "RateSample(delivered={:?}, interval_ps={}, rtt_ps={:?}, losses={}, acked_sacked={}, is_app_limited={})",
            self.delivered, self.interval_ps, self.rtt_ps, self.losses, self.acked_sacked, self.is_app_limited
        )
    }
}

/// Registers the classes a hook receives.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTcpSock>()?;
    m.add_class::<PyAckSample>()?;
    m.add_class::<PyRateSample>()?;
    Ok(())
}
