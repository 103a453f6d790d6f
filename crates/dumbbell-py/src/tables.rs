//! A run's tables handed to Python without copying a number.
//!
//! The binding takes the core's `RunOutput` by value and converts it one
//! column at a time, so the core's tables and Python's never both exist
//! whole (docs/output.md, "Memory"):
//!
//! - a numeric column's `Vec` is moved into a [`Buffer`], a Python object
//!   that owns it and exposes its native-endian bytes through the buffer
//!   protocol (read-only): `numpy.frombuffer` views it, no copy is made;
//! - a string column is dictionary-encoded, `("strdict", (codes, values))`:
//!   `codes` a [`Buffer`] of `u32` indices into `values`, the list of its
//!   distinct strings (the core's own `Column::Dict` handed over as is, a
//!   `Column::Str` encoded here in order of first appearance). Four bytes a row
//!   instead of a Python `str` per row; the core's strings are freed as
//!   soon as the column is encoded.
//!
//! `dumbbell.tables` builds the same polars columns from this as from plain
//! lists (the stored tables are byte-identical).

use dumbbell_core::trace::Column;
use dumbbell_core::world::RunOutput;
use pyo3::exceptions::PyBufferError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::collections::HashMap;
use std::os::raw::{c_int, c_void};

/// The data a [`Buffer`] owns.
enum Data {
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    U32(Vec<u32>),
    Bool(Vec<bool>),
}

impl Data {
    /// The elements as native-endian bytes.
    fn bytes(&self) -> &[u8] {
        fn raw<T>(v: &[T]) -> &[u8] {
            // SAFETY: plain numbers (and `bool`, one byte of 0 or 1) have no
            // padding; the slice covers exactly the vector's elements and
            // borrows it.
            unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
        }
        match self {
            Data::U64(v) => raw(v),
            Data::I64(v) => raw(v),
            Data::F64(v) => raw(v),
            Data::U32(v) => raw(v),
            Data::Bool(v) => raw(v),
        }
    }
}

/// One column's buffer, moved out of the core: read-only bytes through the
/// buffer protocol (`memoryview(b)`, `numpy.frombuffer(b, dtype)`); freed
/// when the last view of it goes.
#[pyclass(module = "dumbbell._native", frozen)]
pub struct Buffer {
    data: Data,
}

#[pymethods]
impl Buffer {
    /// Bytes held.
    fn __len__(&self) -> usize {
        self.data.bytes().len()
    }

    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        if flags & ffi::PyBUF_WRITABLE == ffi::PyBUF_WRITABLE {
            return Err(PyBufferError::new_err("a table's buffer is read-only"));
        }
        let bytes = slf.get().data.bytes();
        // SAFETY: `view` is the caller's; FillInfo takes a reference on the
        // owner, which keeps the bytes alive (and unmoved: the object is
        // frozen) until the view is released.
        let rc = unsafe {
            ffi::PyBuffer_FillInfo(
                view,
                slf.as_ptr(),
                bytes.as_ptr() as *mut c_void,
                bytes.len() as ffi::Py_ssize_t,
                1,
                flags,
            )
        };
        if rc == -1 {
            return Err(PyErr::fetch(slf.py()));
        }
        Ok(())
    }

    unsafe fn __releasebuffer__(&self, _view: *mut ffi::Py_buffer) {}
}

fn buffer(py: Python<'_>, data: Data) -> PyResult<Bound<'_, PyAny>> {
    Ok(Bound::new(py, Buffer { data })?.into_any())
}

/// A string column as `(codes, values)`, consuming it.
fn strdict(py: Python<'_>, v: Vec<String>) -> PyResult<Bound<'_, PyAny>> {
    let mut index: HashMap<&str, u32> = HashMap::new();
    let mut values: Vec<&str> = Vec::new();
    let codes: Vec<u32> = v
        .iter()
        .map(|s| {
            *index.entry(s.as_str()).or_insert_with(|| {
                values.push(s.as_str());
                (values.len() - 1) as u32
            })
        })
        .collect();
    let values = PyList::new(py, values)?;
    drop(index);
    drop(v);
    Ok(PyTuple::new(py, [buffer(py, Data::U32(codes))?, values.into_any()])?.into_any())
}

/// One column as `(dtype, data)`, consuming it.
pub fn column_to_py(py: Python<'_>, c: Column) -> PyResult<Bound<'_, PyTuple>> {
    let (dtype, data) = match c {
        Column::U64(v) => ("u64", buffer(py, Data::U64(v))?),
        Column::I64(v) => ("i64", buffer(py, Data::I64(v))?),
        Column::F64(v) => ("f64", buffer(py, Data::F64(v))?),
        Column::U32(v) => ("u32", buffer(py, Data::U32(v))?),
        Column::Bool(v) => ("bool", buffer(py, Data::Bool(v))?),
        Column::Str(v) => ("strdict", strdict(py, v)?),
        Column::Dict(codes, values) => {
            let values = PyList::new(py, values)?.into_any();
            let codes = buffer(py, Data::U32(codes))?;
            ("strdict", PyTuple::new(py, [codes, values])?.into_any())
        }
    };
    PyTuple::new(py, [dtype.into_pyobject(py)?.into_any(), data])
}

/// A run's tables as `{table: {column: (dtype, data)}}`, consuming them
/// column by column (each freed from the core as it is handed over).
pub fn output_to_py(py: Python<'_>, out: RunOutput) -> PyResult<Bound<'_, PyDict>> {
    release_free_memory();
    let tables = PyDict::new(py);
    let stopped = out.stopped;
    for t in out.tables {
        let cols = PyDict::new(py);
        for (name, c) in t.columns {
            cols.set_item(name, column_to_py(py, c)?)?;
        }
        if t.name == "summary" {
            // The run's status, beside its counters.
            cols.set_item("stopped", column_to_py(py, Column::Bool(vec![stopped]))?)?;
        }
        tables.set_item(t.name, cols)?;
    }
    Ok(tables)
}

/// Gives the memory the finished run freed (its packets, events, the
/// recorders' outgrown buffers) back to the system before the tables are
/// converted, so that it does not add to the process's peak (glibc keeps
/// freed heap memory otherwise; elsewhere this does nothing).
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> c_int;
        }
        // SAFETY: glibc's malloc_trim only returns free memory to the
        // system; it is thread-safe and touches no live allocation.
        unsafe {
            malloc_trim(0);
        }
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Buffer>()
}
