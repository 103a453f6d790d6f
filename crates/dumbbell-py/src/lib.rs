//! `dumbbell._native`: the thin PyO3 binding of `dumbbell-core`.
//!
//! Config in, tables out, nothing else: Python hands the whole run
//! configuration over once as a JSON string (the `config.rs` contract), the
//! core runs with the GIL released, and every output table comes back as a
//! dict of whole columns (`tables.rs`). A numeric column is a `(dtype,
//! buffer)` pair: the core's `Vec` moved, not copied, into a `Buffer` that
//! Python views with `numpy.frombuffer`; a string column is `("strdict",
//! (u32 codes buffer, list of distinct values))`. No row is ever converted
//! one at a time in Python.
//!
//! Errors keep their kind: a configuration error raises
//! `NativeConfigError(field, message)` (a `ValueError`), a limit reached while
//! running (`record.max_bytes`, memory) `NativeLimitError(field, message)`,
//! an internal failure `NativeInternalError(message)` (a `RuntimeError`). A
//! panic in the core never escapes as pyo3's `PanicException` (which derives
//! from `BaseException` and slips past `except Exception`): it is caught and
//! raised as `NativeInternalError("panic: <message> at <file:line>")`. The
//! pure-Python wrapper (`dumbbell.run`) turns them into `dumbbell.ConfigError`,
//! `dumbbell.LimitError` and `dumbbell.SimulationError`.
//!
//! Congestion controls written in Python (`control`): `run_json(config,
//! handle, controls)` takes the `cc=` objects by the ids the configuration
//! names them with (`{"kind": "external", "id": ...}`) and hands the core a
//! factory of controls that call back into Python, taking the GIL only
//! inside each callback. A hook that raises stops the run, which raises
//! `NativeControlError(id, control, hook, time_ps, message)` with the
//! Python exception as its `__cause__`.
//!
//! Stopping a run: every run polls a `RunHandle` (the core's `RunMonitor`).
//! `RunHandle.stop()` stops one run from any thread; `request_stop()` stops
//! every run of this process that is running (what Python does on Ctrl-C,
//! and what a sweep does to cancel its running jobs). A stopped run returns
//! the tables of the time it reached, its summary saying `stopped = true`.

mod control;
mod kmod;
mod tables;

use dumbbell_core::cc::ExternalControls;
use dumbbell_core::config::{ConfigError, RunConfig};
use dumbbell_core::sim::{Phase, RunMonitor};
use dumbbell_core::world::{self, RunError, World};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex, Once, Weak};

create_exception!(
    dumbbell._native,
    NativeConfigError,
    PyValueError,
    "Bad run configuration; args are (field, message)."
);
create_exception!(
    dumbbell._native,
    NativeLimitError,
    PyValueError,
    "A limit named by a field was reached while running; args are (field, message)."
);
create_exception!(
    dumbbell._native,
    NativeControlError,
    PyRuntimeError,
    "A hook of a control written in Python raised; args are (id, control, hook, time_ps, message), the cause the hook's exception."
);
create_exception!(
    dumbbell._native,
    NativeInternalError,
    PyRuntimeError,
    "An invariant broke during the run, or the core panicked; args are (message,)."
);

fn config_err(e: ConfigError) -> PyErr {
    NativeConfigError::new_err((e.field, e.message))
}

fn run_err(e: RunError) -> PyErr {
    match e {
        RunError::Config(c) => config_err(c),
        RunError::Limit(c) => NativeLimitError::new_err((c.field, c.message)),
        RunError::Internal(m) => NativeInternalError::new_err((m,)),
    }
}

thread_local! {
    /// The message and place of the last panic on this thread.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Records panics for `catch_panic` instead of printing them (set
/// `DUMBBELL_DEBUG=1` to also see the standard report on stderr).
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
                (*s).to_string()
            } else if let Some(s) = info.payload().downcast_ref::<String>() {
                s.clone()
            } else {
                "unknown panic".to_string()
            };
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg}{at}")));
            if std::env::var_os("DUMBBELL_DEBUG").is_some() {
                default(info);
            }
        }));
    });
}

/// Runs `f`, turning a panic into `RunError::Internal("panic: ...")`.
fn catch_panic<T>(f: impl FnOnce() -> Result<T, RunError>) -> Result<T, RunError> {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            let what = LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| "unknown panic".into());
            Err(RunError::Internal(format!("panic: {what}")))
        }
    }
}

/// Monitors of the runs in progress, for `request_stop`.
static LIVE: Mutex<Vec<Weak<RunMonitor>>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<Weak<RunMonitor>>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A handle on one run: stop it from any thread, read its progress.
///
/// Create one, pass it to `run_json(config, handle)` (which blocks), and
/// call `stop()` or `progress()` from another thread. A handle stopped
/// before its run starts stops that run as soon as its loop begins. One
/// handle serves one run.
#[pyclass(module = "dumbbell._native", frozen)]
struct RunHandle {
    monitor: Arc<RunMonitor>,
}

#[pymethods]
impl RunHandle {
    /// `event_limit`: the run also stops by itself after about that many
    /// events. `instant_limit`: events at one simulated instant after which
    /// the run is declared stuck (an internal error); default 2^24.
    #[new]
    #[pyo3(signature = (event_limit = None, instant_limit = None))]
    fn new(event_limit: Option<u64>, instant_limit: Option<u64>) -> Self {
        let mut monitor = match event_limit {
            Some(n) => RunMonitor::with_event_limit(n),
            None => RunMonitor::new(),
        };
        if let Some(n) = instant_limit {
            monitor = monitor.with_instant_limit(n);
        }
        RunHandle {
            monitor: Arc::new(monitor),
        }
    }

    /// Asks the run to stop; it returns what it has within milliseconds.
    fn stop(&self) {
        self.monitor.request_stop();
    }

    /// Whether `stop()` (or `request_stop()`) was called.
    #[getter]
    fn stop_requested(&self) -> bool {
        self.monitor.stop_requested()
    }

    /// `(phase, now_ps, end_ps, events)`: phase is "building", "running" or
    /// "done"; the simulated time reached and the run's end in picoseconds;
    /// the events executed. Updated every 1 024 events.
    fn progress(&self) -> (&'static str, u64, u64, u64) {
        let p = self.monitor.progress();
        let phase = match p.phase {
            Phase::Building => "building",
            Phase::Running => "running",
            Phase::Done => "done",
        };
        (phase, p.now_ps, p.end_ps, p.events)
    }
}

/// Stops every run of this process that is in progress (each returns what
/// it has, marked stopped); returns how many were asked. Runs started later
/// are not affected.
#[pyfunction]
fn request_stop() -> usize {
    let mut runs = live();
    runs.retain(|w| w.strong_count() > 0);
    for m in runs.iter().filter_map(Weak::upgrade) {
        m.request_stop();
    }
    runs.len()
}

/// The `cc=` objects of a run, by configuration id, as the core's factory.
fn py_controls(
    controls: Option<&Bound<'_, PyDict>>,
    monitor: &Arc<RunMonitor>,
) -> PyResult<Option<Arc<control::PyControls>>> {
    let Some(controls) = controls else {
        return Ok(None);
    };
    let mut templates = HashMap::new();
    for (k, v) in controls.iter() {
        templates.insert(k.extract::<String>()?, v.unbind());
    }
    Ok(Some(Arc::new(control::PyControls::new(
        templates,
        monitor.clone(),
    ))))
}

/// The run's factory: the Python controls, and the kernel modules `modules`
/// (ids `kmod:{...}`, see `kmod.rs`) loaded now (one copy per host).
fn with_modules(
    py: Option<Arc<control::PyControls>>,
    modules: Option<&[String]>,
) -> PyResult<Option<Arc<dyn ExternalControls>>> {
    let kmod = match modules {
        Some(ids) if !ids.is_empty() => Some(kmod::factory(ids)?),
        _ => None,
    };
    Ok(match (kmod, py) {
        (None, None) => None,
        (None, Some(p)) => Some(p as Arc<dyn ExternalControls>),
        (kmod, py) => Some(Arc::new(kmod::Combined { kmod, py })),
    })
}

/// The first failure of a Python control as `NativeControlError`, its
/// cause the hook's own exception.
fn control_err(py: Python<'_>, e: control::HookError) -> PyErr {
    let message = e.err.value(py).str().map_or_else(
        |_| "?".to_string(),
        |m| {
            format!(
                "{}: {m}",
                e.err
                    .get_type(py)
                    .name()
                    .map_or_else(|_| "?".into(), |n| n.to_string())
            )
        },
    );
    let err = NativeControlError::new_err((e.id, e.control, e.hook, e.time_ps, message));
    err.set_cause(py, Some(e.err));
    err
}

/// Runs one scenario given as a `config.rs` JSON document and returns its
/// tables: `{table: {column: (dtype, data)}}`, where `dtype` is one of
/// `u64`, `i64`, `f64`, `u32`, `bool` (then `data` is a read-only
/// `Buffer` of the native-endian numbers, moved out of the core) or
/// `strdict` (then `data` is `(codes, values)`: a `Buffer` of `u32`
/// indices into `values`, the column's distinct strings). The summary
/// has a `stopped` column (true if the run was stopped before its end).
/// The GIL is released while the simulation runs; `handle` (a `RunHandle`)
/// lets another thread stop it or read its progress. `controls` maps the
/// ids of the configuration's `external` controls to Python objects
/// (`dumbbell.controls.CongestionControl`); the GIL is taken back only to
/// call their hooks.
#[pyfunction]
#[pyo3(signature = (config, handle = None, controls = None, modules = None))]
fn run_json<'py>(
    py: Python<'py>,
    config: String,
    handle: Option<&RunHandle>,
    controls: Option<&Bound<'py, PyDict>>,
    modules: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyDict>> {
    install_panic_hook();
    let monitor = handle.map_or_else(|| Arc::new(RunMonitor::new()), |h| h.monitor.clone());
    let ext = py_controls(controls, &monitor)?;
    let factory = with_modules(ext.clone(), modules.as_deref())?;
    live().push(Arc::downgrade(&monitor));
    let m = monitor.clone();
    let result = py.allow_threads(move || {
        catch_panic(|| {
            let opts = world::RunOptions {
                monitor: Some(&m),
                external: factory.as_ref(),
            };
            world::run_json(&config, opts)
        })
    });
    let ptr = Arc::as_ptr(&monitor);
    live().retain(|w| w.strong_count() > 0 && !std::ptr::eq(w.as_ptr(), ptr));
    if let Some(e) = ext.and_then(|x| x.shared.take_error()) {
        return Err(control_err(py, e));
    }
    tables::output_to_py(py, result.map_err(run_err)?)
}

/// Decodes a `config.rs` JSON document and builds its world without running
/// it: raises `NativeConfigError` for anything a run would refuse before
/// simulating (unknown field, wrong type, a value out of range, an unknown
/// node, a disconnected topology, a recording estimate over budget).
/// `controls` as for `run_json`: building makes each connection's copy.
#[pyfunction]
#[pyo3(signature = (config, controls = None, modules = None))]
fn check_config(
    py: Python<'_>,
    config: String,
    controls: Option<&Bound<'_, PyDict>>,
    modules: Option<Vec<String>>,
) -> PyResult<()> {
    install_panic_hook();
    let monitor = Arc::new(RunMonitor::new());
    let ext = py_controls(controls, &monitor)?;
    let factory = with_modules(ext.clone(), modules.as_deref())?;
    let result = py.allow_threads(move || {
        catch_panic(|| {
            let cfg = RunConfig::from_json(&config)?;
            World::build_with(&cfg, factory)?;
            Ok(())
        })
    });
    if let Some(e) = ext.and_then(|x| x.shared.take_error()) {
        return Err(control_err(py, e));
    }
    result.map_err(run_err)
}

/// Panics inside the core's error boundary, as a core bug would: for the
/// tests of panic capture (`NativeInternalError`, never `PanicException`).
#[pyfunction]
fn _panic_for_tests(py: Python<'_>, message: String) -> PyResult<()> {
    install_panic_hook();
    py.allow_threads(move || catch_panic(|| -> Result<(), RunError> { panic!("{message}") }))
        .map_err(run_err)
}

/// The controls of the core's registry (`cc::registry::REGISTRY`), as
/// `(name, about)` pairs, in registration order.
#[pyfunction]
fn registered_controls() -> Vec<(&'static str, &'static str)> {
    dumbbell_core::cc::registry::REGISTRY
        .iter()
        .map(|r| (r.name, r.about))
        .collect()
}

/// The parameters of every control and queue discipline, declared once in
/// the core (`config::schema`): a JSON document `{"controls": [...],
/// "queues": [...]}`, each `{name, about, registered, params: [{name,
/// type, default, required, range, about}]}`; times in picoseconds.
#[pyfunction]
fn schema() -> String {
    dumbbell_core::config::schema().to_string()
}

/// The version of the core and binding (the Cargo workspace version).
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// A hash of the simulator's source files at build time (16 hex digits;
/// see `build.rs`): part of every stored run's identity.
#[pyfunction]
fn source_hash() -> &'static str {
    env!("DUMBBELL_SOURCE_HASH")
}

/// How this extension was compiled: `plain`, or `profile-guided
/// (<profile>)` when `make setup` built it with profile guidance
/// (`tools/pgo/build.sh`; see `build.rs`). Results do not depend on it;
/// speed does.
#[pyfunction]
fn build() -> &'static str {
    env!("DUMBBELL_BUILD")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    install_panic_hook();
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(check_config, m)?)?;
    m.add_function(wrap_pyfunction!(request_stop, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(registered_controls, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(source_hash, m)?)?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    kmod::register(m)?;
    m.add_class::<RunHandle>()?;
    control::register(m)?;
    tables::register(m)?;
    m.add(
        "NativeControlError",
        m.py().get_type::<NativeControlError>(),
    )?;
    m.add("NativeConfigError", m.py().get_type::<NativeConfigError>())?;
    m.add("NativeLimitError", m.py().get_type::<NativeLimitError>())?;
    m.add(
        "NativeInternalError",
        m.py().get_type::<NativeInternalError>(),
    )?;
    Ok(())
}
