//! Linux congestion-control modules (`dumbbell-kmod`) from Python.
//!
//! A scenario's `KernelModule` control reaches the core as
//! `{"kind": "external", "id": "kmod:<spec>"}`, where `<spec>` is a JSON
//! object (the module's source path and content hash, parameters, kernel
//! version, `HZ`, and the host the connection starts from): the id alone
//! says what to load, so a configuration stays self-contained (stored
//! runs, sweeps, child processes). `run_json` hands the core a
//! [`Combined`] factory: module ids to [`KmodControls`], the others to the
//! Python controls.

use crate::control::PyControls;
use dumbbell_core::cc::{CongestionControl, ExternalControls};
use dumbbell_core::config::CcConfig;
use dumbbell_core::sim::Rng;
use dumbbell_kmod::{compare, BuildOptions, KmodControls, KmodError, ModuleSpec};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// The prefix of a module control's id.
pub const PREFIX: &str = "kmod:";

fn kmod_err(e: KmodError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// `"6.12"` → (6, 12).
fn version(v: &str) -> PyResult<(u32, u32)> {
    let bad = || PyValueError::new_err(format!("linux_version must be MAJOR.MINOR, got {v:?}"));
    let (a, b) = v.split_once('.').ok_or_else(bad)?;
    Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
}

fn options(linux_version: &str, hz: u32, cache_dir: Option<String>) -> PyResult<BuildOptions> {
    let mut o = BuildOptions {
        linux_version: version(linux_version)?,
        hz,
        ..BuildOptions::default()
    };
    if let Some(d) = cache_dir {
        o.cache_dir = PathBuf::from(d);
    }
    Ok(o)
}

/// A module spec from its id (`kmod:{...}`).
fn spec_of(id: &str) -> PyResult<ModuleSpec> {
    let text = id
        .strip_prefix(PREFIX)
        .ok_or_else(|| PyValueError::new_err(format!("not a module id: {id:?}")))?;
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| PyValueError::new_err(format!("a module id's spec: {e}")))?;
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let source = s("source").ok_or_else(|| PyValueError::new_err("a module id names no source"))?;
    let mut params = Vec::new();
    if let Some(map) = v.get("params").and_then(|p| p.as_object()) {
        for (k, x) in map {
            let text = match x {
                serde_json::Value::Bool(b) => (if *b { "1" } else { "0" }).to_string(),
                serde_json::Value::String(t) => t.clone(),
                other => other.to_string(),
            };
            params.push((k.clone(), text));
        }
    }
    let hz = v.get("hz").and_then(|x| x.as_u64()).unwrap_or(250) as u32;
    let lv = s("linux_version").unwrap_or_else(|| "6.12".into());
    Ok(ModuleSpec {
        id: id.to_string(),
        source: PathBuf::from(source),
        params,
        host: s("host").unwrap_or_default(),
        build: options(&lv, hz, s("cache_dir"))?,
    })
}

/// Builds the run's module factory for `ids` (each `kmod:{...}`).
pub fn factory(ids: &[String]) -> PyResult<Arc<KmodControls>> {
    let specs = ids
        .iter()
        .map(|i| spec_of(i))
        .collect::<PyResult<Vec<_>>>()?;
    KmodControls::new(&specs).map(Arc::new).map_err(kmod_err)
}

/// Module ids to the modules, every other id to the Python controls.
pub struct Combined {
    pub kmod: Option<Arc<KmodControls>>,
    pub py: Option<Arc<PyControls>>,
}

impl ExternalControls for Combined {
    fn check(&self, id: &str) -> Result<(), String> {
        match (id.starts_with(PREFIX), &self.kmod, &self.py) {
            (true, Some(k), _) => k.check(id),
            (false, _, Some(p)) => p.check(id),
            _ => Err(format!("no control was handed to this run for {id:?}")),
        }
    }
    fn make(&self, id: &str, rng: Rng) -> Box<dyn CongestionControl> {
        if id.starts_with(PREFIX) {
            self.kmod.as_ref().expect("checked").make(id, rng)
        } else {
            self.py.as_ref().expect("checked").make(id, rng)
        }
    }
}

/// Compiles a module's source with the shim (or finds it cached); returns
/// the shared object's path. Raises `ValueError` with the compiler's
/// error (file and line), a missing symbol's name, or no compiler.
#[pyfunction]
#[pyo3(signature = (source, linux_version = "6.12", hz = 250, cache_dir = None))]
pub fn kmod_build(
    py: Python<'_>,
    source: String,
    linux_version: &str,
    hz: u32,
    cache_dir: Option<String>,
) -> PyResult<String> {
    let o = options(linux_version, hz, cache_dir)?;
    py.allow_threads(move || dumbbell_kmod::build(std::path::Path::new(&source), &o))
        .map(|p| p.display().to_string())
        .map_err(kmod_err)
}

/// Loads a module once (in this process) and returns its parameter names
/// after setting `params` (name → value as text): raises `ValueError` for
/// an unknown parameter (listing the module's) or a refused value.
#[pyfunction]
pub fn kmod_load_check(id: String) -> PyResult<Vec<String>> {
    let f = factory(std::slice::from_ref(&id))?;
    Ok(f.instance(&id).map(|i| i.params()).unwrap_or_default())
}

/// Reports a fatal signal in this process as one line on stderr naming the
/// module, hook and simulated time (for the child process a module run
/// executes in; see `dumbbell._kmod_child`).
#[pyfunction]
pub fn kmod_install_crash_report() {
    dumbbell_kmod::crash::install_crash_report();
}

/// `(module, hook, time_ps, signal)` of the crash line in `stderr`, if any.
#[pyfunction]
pub fn kmod_parse_crash(stderr: &str) -> Option<(String, String, u64, i32)> {
    dumbbell_kmod::crash::parse_crash_line(stderr)
}

/// Runs `module compare`: every scenario with the port `as_config` (a
/// control's core configuration as JSON) and with the module `id`
/// (`kmod:{...}`); returns the JSON report.
#[pyfunction]
pub fn kmod_compare(
    py: Python<'_>,
    id: String,
    as_config: String,
    label: String,
) -> PyResult<String> {
    let spec = spec_of(&id)?;
    let port: CcConfig = serde_json::from_str(&as_config)
        .map_err(|e| PyValueError::new_err(format!("--as: {e}")))?;
    let as_name = serde_json::from_str::<serde_json::Value>(&as_config)
        .ok()
        .and_then(|v| {
            // a registered control (`bbr3`) goes by its name
            let kind = v.get("kind").and_then(|k| k.as_str())?;
            let name = v.get("name").and_then(|k| k.as_str());
            Some(
                if kind == "registered" {
                    name.unwrap_or(kind)
                } else {
                    kind
                }
                .to_string(),
            )
        })
        .unwrap_or_default();
    py.allow_threads(move || {
        let mut results = Vec::new();
        for s in compare::scenarios() {
            results.push(compare::compare_one(&s, &port, &spec)?);
        }
        Ok(compare::report_json(&label, &as_name, &results).to_string())
    })
    .map_err(kmod_err)
}

/// Registers the functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(kmod_build, m)?)?;
    m.add_function(wrap_pyfunction!(kmod_load_check, m)?)?;
    m.add_function(wrap_pyfunction!(kmod_install_crash_report, m)?)?;
    m.add_function(wrap_pyfunction!(kmod_parse_crash, m)?)?;
    m.add_function(wrap_pyfunction!(kmod_compare, m)?)?;
    Ok(())
}
