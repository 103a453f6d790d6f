//! Results as columnar tables.
//!
//! Recorders append to typed column vectors during the run; at the end the
//! world hands out [`Table`]s whose columns are plain `Vec`s, which the
//! binding passes to Python as whole buffers (one copy per column, never a
//! row at a time).
//!
//! Buffers grow as the run goes, never reserved from the horizon. A large
//! buffer doubles in [`headroom`], called at the event loop's polls, where a
//! failed allocation becomes an error, rather than inside a `push`, where it
//! would abort the process.

use std::collections::TryReserveError;

/// Makes sure a growing buffer has room for a quarter more (at least 1 024)
/// elements, growing it fallibly if not. Unused (empty) buffers stay empty.
pub fn headroom<T>(v: &mut Vec<T>) -> Result<(), TryReserveError> {
    let len = v.len();
    if len == 0 {
        return Ok(());
    }
    let want = (len / 4).max(1024);
    if v.capacity() - len < want {
        v.try_reserve(len.max(1024))?;
    }
    Ok(())
}

/// [`headroom`] for each named column of `$rows` in turn, stopping at the
/// first that cannot grow: `headroom_of!(self: time, flow, rtt)`.
macro_rules! headroom_of {
    ($rows:ident: $($col:ident),+) => {{
        $($crate::trace::headroom(&mut $rows.$col)?;)+
        Ok(())
    }};
}
pub(crate) use headroom_of;

/// Bytes a buffer's elements take.
pub fn bytes_of<T>(v: &[T]) -> u64 {
    std::mem::size_of_val(v) as u64
}

/// One typed column.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    U32(Vec<u32>),
    Bool(Vec<bool>),
    Str(Vec<String>),
    /// Strings as indices into their distinct values: row `i` is
    /// `values[codes[i]]`. A name repeated on every row of a long table
    /// costs four bytes a row instead of a `String`; the binding hands it
    /// over as is, and the Python table is the same string column.
    Dict(Vec<u32>, Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::Dict(codes, _) => codes.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A string column (`Str` or `Dict`) row by row; `None` for numbers.
    pub fn strings(&self) -> Option<Vec<&str>> {
        match self {
            Column::Str(v) => Some(v.iter().map(String::as_str).collect()),
            Column::Dict(codes, values) => {
                Some(codes.iter().map(|&c| values[c as usize].as_str()).collect())
            }
            _ => None,
        }
    }

    /// Dictionary-encodes `rows` (values in order of first appearance).
    pub fn dict_of<'a>(rows: impl IntoIterator<Item = &'a str>) -> Column {
        let mut index: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
        let mut values = Vec::new();
        let codes = rows
            .into_iter()
            .map(|s| {
                *index.entry(s).or_insert_with(|| {
                    values.push(s.to_string());
                    (values.len() - 1) as u32
                })
            })
            .collect();
        Column::Dict(codes, values)
    }
}

/// A named table of equally long columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub name: String,
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn new(name: &str) -> Self {
        Table {
            name: name.to_string(),
            columns: Vec::new(),
        }
    }

    /// A table of timed events: `time_ps`, then the `key` column of ids
    /// (the port, flow or capture point each event belongs to).
    pub fn events(name: &str, time_ps: Vec<u64>, key: &str, ids: Vec<u32>) -> Self {
        Table::new(name)
            .with("time_ps", Column::U64(time_ps))
            .with(key, Column::U32(ids))
    }

    pub fn with(mut self, col: &str, c: Column) -> Self {
        if let Some((_, first)) = self.columns.first() {
            assert_eq!(
                first.len(),
                c.len(),
                "column {col} of table {} has a different length",
                self.name
            );
        }
        self.columns.push((col.to_string(), c));
        self
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    pub fn f64s(&self, name: &str) -> Option<&[f64]> {
        match self.column(name)? {
            Column::F64(v) => Some(v),
            _ => None,
        }
    }

    pub fn u64s(&self, name: &str) -> Option<&[u64]> {
        match self.column(name)? {
            Column::U64(v) => Some(v),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headroom_grows_before_a_buffer_fills_and_leaves_empty_ones_alone() {
        let mut empty: Vec<u64> = Vec::new();
        headroom(&mut empty).unwrap();
        assert_eq!(empty.capacity(), 0);
        let mut v: Vec<u64> = Vec::with_capacity(4096);
        v.extend(0..4000);
        headroom(&mut v).unwrap();
        assert!(v.capacity() - v.len() >= 1000, "{}", v.capacity());
        // A failed reservation is an error, not an abort.
        let mut huge: Vec<u64> = vec![0; 1];
        assert!(huge.try_reserve(usize::MAX / 2).is_err());
    }
}
