//! `dumbbell._native`: the thin PyO3 binding of `dumbbell-core`.
//!
//! Config in, tables out, nothing else: Python hands the whole run
//! configuration over once as a JSON string (the `config.rs` contract), the
//! core runs with the GIL released, and every output table comes back as a
//! dict of whole columns. A numeric column is a `(dtype, bytes)` pair holding
//! the column's native-endian buffer (one copy out of the Rust `Vec`; Python
//! views it with `numpy.frombuffer` and hands it to polars); a string column
//! is `("str", list[str])`. No row is ever converted one at a time in Python.
//!
//! Errors keep their kind: a configuration error raises
//! `NativeConfigError(field, message)` (a `ValueError`), an internal failure
//! `NativeInternalError(message)` (a `RuntimeError`). The pure-Python wrapper
//! (`dumbbell.run`) turns them into `dumbbell.ConfigError` and
//! `dumbbell.SimulationError`.

use dumbbell_core::config::{ConfigError, RunConfig};
use dumbbell_core::trace::{Column, Table};
use dumbbell_core::world::{self, RunError, RunOutput};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

create_exception!(
    dumbbell._native,
    NativeConfigError,
    PyValueError,
    "Bad run configuration; args are (field, message)."
);
create_exception!(
    dumbbell._native,
    NativeInternalError,
    PyRuntimeError,
    "An invariant broke during the run; args are (message,)."
);

fn config_err(e: ConfigError) -> PyErr {
    NativeConfigError::new_err((e.field, e.message))
}

fn run_err(e: RunError) -> PyErr {
    match e {
        RunError::Config(c) => config_err(c),
        RunError::Internal(m) => NativeInternalError::new_err((m,)),
    }
}

/// Copies a slice of fixed-size numbers into one Python `bytes` object, in
/// native byte order.
fn numbers_to_bytes<'py, T: Copy, const N: usize>(
    py: Python<'py>,
    v: &[T],
    to_bytes: fn(T) -> [u8; N],
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, v.len() * N, |buf| {
        for (dst, x) in buf.chunks_exact_mut(N).zip(v) {
            dst.copy_from_slice(&to_bytes(*x));
        }
        Ok(())
    })
}

fn column_to_py<'py>(py: Python<'py>, c: &Column) -> PyResult<Bound<'py, PyTuple>> {
    let (dtype, data): (&str, Bound<'py, PyAny>) = match c {
        Column::U64(v) => ("u64", numbers_to_bytes(py, v, u64::to_ne_bytes)?.into_any()),
        Column::I64(v) => ("i64", numbers_to_bytes(py, v, i64::to_ne_bytes)?.into_any()),
        Column::F64(v) => ("f64", numbers_to_bytes(py, v, f64::to_ne_bytes)?.into_any()),
        Column::U32(v) => ("u32", numbers_to_bytes(py, v, u32::to_ne_bytes)?.into_any()),
        Column::Bool(v) => (
            "bool",
            numbers_to_bytes(py, v, |b: bool| [b as u8])?.into_any(),
        ),
        Column::Str(v) => ("str", PyList::new(py, v)?.into_any()),
    };
    PyTuple::new(py, [dtype.into_pyobject(py)?.into_any(), data])
}

fn table_to_py<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let cols = PyDict::new(py);
    for (name, c) in &t.columns {
        cols.set_item(name, column_to_py(py, c)?)?;
    }
    Ok(cols)
}

fn output_to_py<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<Bound<'py, PyDict>> {
    let tables = PyDict::new(py);
    for t in &out.tables {
        tables.set_item(&t.name, table_to_py(py, t)?)?;
    }
    Ok(tables)
}

/// Runs one scenario given as a `config.rs` JSON document and returns its
/// tables: `{table: {column: (dtype, data)}}`, where `dtype` is one of
/// `u64`, `i64`, `f64`, `u32`, `bool` (then `data` is the native-endian
/// buffer as `bytes`) or `str` (then `data` is a `list[str]`).
/// The GIL is released while the simulation runs.
#[pyfunction]
fn run_json<'py>(py: Python<'py>, config: String) -> PyResult<Bound<'py, PyDict>> {
    let out = py
        .allow_threads(move || world::run_json(&config))
        .map_err(run_err)?;
    output_to_py(py, &out)
}

/// Parses a `config.rs` JSON document without running it: raises
/// `NativeConfigError` if the core's decoder rejects it (unknown field,
/// wrong type, unknown `kind`). It does not check the physics.
#[pyfunction]
fn check_config(config: &str) -> PyResult<()> {
    RunConfig::from_json(config).map(|_| ()).map_err(config_err)
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

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(check_config, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(source_hash, m)?)?;
    m.add("NativeConfigError", m.py().get_type::<NativeConfigError>())?;
    m.add(
        "NativeInternalError",
        m.py().get_type::<NativeInternalError>(),
    )?;
    Ok(())
}
