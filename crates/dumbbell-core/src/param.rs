//! Parameters of a component (a congestion control, a queue discipline):
//! the table each component declares once in its own file (name, type,
//! range, one line about it; defaults are its parameters' `Default`), the
//! range checks that read that table, the registration that names the
//! component, and the error that names the field at fault.
//!
//! A leaf of the crate: it knows no component and no configuration, so
//! `cc/`, `queue/`, `config` and `validate` all build on it without
//! importing one another back.

use crate::sim::{PS_PER_MS, PS_PER_S, PS_PER_US};
use serde::de::DeserializeOwned;
use std::fmt::{self, Display};

/// A component's parameters as the configuration gives them.
pub type Params = serde_json::Map<String, serde_json::Value>;

/// A configuration error naming the field at fault.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    pub field: String,
    pub message: String,
}

impl ConfigError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Why parameters were refused: the parameter at fault (None: the table as
/// a whole) and the reason.
#[derive(Debug)]
pub struct ParamError {
    pub param: Option<String>,
    pub why: String,
}

impl ParamError {
    pub fn new(param: &str, why: impl Into<String>) -> Self {
        ParamError {
            param: Some(param.to_string()),
            why: why.into(),
        }
    }

    /// As a configuration error: the parameter under `field`
    /// (`flows[0].cc` + `beta`), or `whole` when no parameter is at fault.
    pub fn at(self, field: &str, whole: &str) -> ConfigError {
        match self.param {
            Some(p) => ConfigError::new(format!("{field}.{p}"), self.why),
            None => ConfigError::new(whole, self.why),
        }
    }
}

/// The defaults of a component with required parameters: `required`
/// holds a valid value for each of those, which are left out.
pub fn defaults_beside_required<T: DeserializeOwned + serde::Serialize>(
    required: serde_json::Value,
) -> Params {
    let serde_json::Value::Object(req) = required else {
        return Params::new();
    };
    let mut out = match decode::<T>(&req) {
        Ok(t) => encode(&t),
        Err(_) => Params::new(),
    };
    out.retain(|k, _| !req.contains_key(k));
    out
}

/// `lo <= v <= hi` for an integer parameter with no table entry.
pub fn int_param<T: Into<u128> + Copy + Display>(
    name: &str,
    v: T,
    lo: T,
    hi: T,
    unit: &str,
) -> Result<(), ParamError> {
    int_msg(v.into(), lo.into(), hi.into(), &v, unit)
        .map_or(Ok(()), |m| Err(ParamError::new(name, m)))
}

/// A component's typed parameters from a configuration's table: a struct
/// with `#[serde(deny_unknown_fields, default)]` gives unknown names and
/// wrong types as errors, and its `Default` for unset parameters.
pub fn decode<T: DeserializeOwned>(params: &Params) -> Result<T, ParamError> {
    serde_json::from_value(serde_json::Value::Object(params.clone())).map_err(|e| ParamError {
        param: None,
        why: e.to_string(),
    })
}

/// What a registration's `make` does: decodes the parameters into `T`
/// (unset ones at their defaults), checks them, and builds from them.
pub fn made<T: DeserializeOwned, R>(
    params: &Params,
    check: impl FnOnce(&T) -> Result<(), ParamError>,
    build: impl FnOnce(T) -> R,
) -> Result<R, ParamError> {
    let t: T = decode(params)?;
    check(&t)?;
    Ok(build(t))
}

/// Typed parameters as a table (their defaults, for the schema).
pub fn encode<T: serde::Serialize>(p: &T) -> Params {
    match serde_json::to_value(p) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => Params::new(),
    }
}

/// A parameter's type as the schema names it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ty {
    Bool,
    Int,
    Float,
    /// Picoseconds.
    Time,
    /// One of these names.
    Choice(&'static [&'static str]),
    /// A list of integers.
    IntList,
    /// The type, or unset (`null`).
    Optional(&'static Ty),
}

impl Ty {
    pub fn name(&self) -> String {
        match self {
            Ty::Bool => "bool".into(),
            Ty::Int => "int".into(),
            Ty::Float => "float".into(),
            Ty::Time => "time_ps".into(),
            Ty::Choice(names) => format!("choice[{}]", names.join("|")),
            Ty::IntList => "list[int]".into(),
            Ty::Optional(t) => format!("optional[{}]", t.name()),
        }
    }
}

/// The values a parameter may take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// Whatever its type allows.
    Any,
    /// `lo <= v <= hi`; `unit` follows the bounds in messages (" bytes").
    Int {
        lo: u128,
        hi: u128,
        unit: &'static str,
    },
    /// A finite float between the bounds; `open_*` excludes a bound.
    Float {
        lo: f64,
        open_lo: bool,
        hi: f64,
        open_hi: bool,
    },
    /// `lo <= v <= hi` picoseconds; messages speak seconds.
    Time { lo: u64, hi: u64 },
}

impl Range {
    /// Every value of a `u32` parameter: its type bounds it, and the schema
    /// says so (a Python model reads both bounds from it).
    pub const U32: Range = Range::int(0, u32::MAX as u128, "");
    /// Every value of a `u64` parameter.
    pub const U64: Range = Range::int(0, u64::MAX as u128, "");
    /// Every value of a `u32` count that must be at least 1.
    pub const POSITIVE: Range = Range::int(1, u32::MAX as u128, "");

    pub const fn int(lo: u128, hi: u128, unit: &'static str) -> Range {
        Range::Int { lo, hi, unit }
    }

    pub const fn float(lo: f64, open_lo: bool, hi: f64, open_hi: bool) -> Range {
        Range::Float {
            lo,
            open_lo,
            hi,
            open_hi,
        }
    }
}

/// One parameter of a component.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub ty: Ty,
    pub range: Range,
    /// One line for the documentation.
    pub about: &'static str,
}

impl Param {
    pub const fn new(name: &'static str, ty: Ty, range: Range, about: &'static str) -> Param {
        Param {
            name,
            ty,
            range,
            about,
        }
    }

    /// A boolean switch (no range).
    pub const fn flag(name: &'static str, about: &'static str) -> Param {
        Param::new(name, Ty::Bool, Range::Any, about)
    }

    /// An integer in `range`.
    pub const fn int_in(name: &'static str, range: Range, about: &'static str) -> Param {
        Param::new(name, Ty::Int, range, about)
    }

    /// A float in `range`.
    pub const fn float_in(name: &'static str, range: Range, about: &'static str) -> Param {
        Param::new(name, Ty::Float, range, about)
    }

    /// A time (picoseconds) in `range`.
    pub const fn time_in(name: &'static str, range: Range, about: &'static str) -> Param {
        Param::new(name, Ty::Time, range, about)
    }

    /// Checks an integer against the declared range.
    pub fn int<T: Into<u128> + Copy + Display>(&self, v: T) -> Result<(), ParamError> {
        match self.range {
            Range::Int { lo, hi, unit } => {
                int_msg(v.into(), lo, hi, &v, unit).map_or(Ok(()), |m| Err(self.err(m)))
            }
            _ => panic!("{}: not an integer range", self.name),
        }
    }

    /// Checks a float against the declared range.
    pub fn float(&self, v: f64) -> Result<(), ParamError> {
        match self.range {
            Range::Float {
                lo,
                open_lo,
                hi,
                open_hi,
            } => float_msg(v, (lo, open_lo), (hi, open_hi)).map_or(Ok(()), |m| Err(self.err(m))),
            _ => panic!("{}: not a float range", self.name),
        }
    }

    /// Checks a time (picoseconds) against the declared range.
    pub fn time(&self, v: u64) -> Result<(), ParamError> {
        match self.range {
            Range::Time { lo, hi } => time_msg(v, lo, hi).map_or(Ok(()), |m| Err(self.err(m))),
            _ => panic!("{}: not a time range", self.name),
        }
    }

    fn err(&self, why: String) -> ParamError {
        ParamError::new(self.name, why)
    }

    /// The schema entry: name, type, default (`null`: required or unset),
    /// range and about.
    pub fn describe(&self, defaults: &Params) -> serde_json::Value {
        use serde_json::json;
        let range = match self.range {
            Range::Any => serde_json::Value::Null,
            Range::Int { lo, hi, unit } => {
                json!({"min": json_int(lo), "max": json_int(hi), "unit": unit.trim()})
            }
            Range::Float {
                lo,
                open_lo,
                hi,
                open_hi,
            } => json!({"min": lo, "max": hi, "min_open": open_lo, "max_open": open_hi}),
            Range::Time { lo, hi } => json!({"min": lo as f64, "max": hi as f64, "unit": "ps"}),
        };
        json!({
            "name": self.name,
            "type": self.ty.name(),
            "default": defaults.get(self.name).cloned().unwrap_or(serde_json::Value::Null),
            "required": !defaults.contains_key(self.name) && !matches!(self.ty, Ty::Optional(_)),
            "range": range,
            "about": self.about,
        })
    }
}

/// An integer bound as JSON: exact up to `u64::MAX` (a float would round
/// `u64::MAX` up to 2^64).
fn json_int(v: u128) -> serde_json::Value {
    u64::try_from(v).map_or(serde_json::json!(v as f64), serde_json::Value::from)
}

/// The parameter called `name` of a table (a component's checks name
/// their own parameters: a missing one is a bug its tests catch).
pub fn param(table: &'static [Param], name: &str) -> &'static Param {
    table
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no parameter {name}"))
}

/// A field of a component's parameter struct, as its row of the `PARAMS`
/// table reads it: an integer against an integer range (a time range for
/// picoseconds), a float against a float range, an unset option not at
/// all, a list element by element.
pub trait Value {
    /// Checks the value against `p`'s declared range.
    fn check(&self, p: &Param) -> Result<(), ParamError>;
}

macro_rules! int_value {
    ($($t:ty),+) => {$(
        impl Value for $t {
            fn check(&self, p: &Param) -> Result<(), ParamError> {
                match p.range {
                    Range::Any => Ok(()),
                    Range::Time { .. } => p.time(u64::from(*self)),
                    _ => p.int(*self),
                }
            }
        }
    )+};
}
int_value!(u8, u16, u32, u64);

impl Value for f64 {
    fn check(&self, p: &Param) -> Result<(), ParamError> {
        match p.range {
            Range::Any => Ok(()),
            _ => p.float(*self),
        }
    }
}

impl<T: Value> Value for Option<T> {
    fn check(&self, p: &Param) -> Result<(), ParamError> {
        self.as_ref().map_or(Ok(()), |v| v.check(p))
    }
}

impl<T: Value> Value for Vec<T> {
    fn check(&self, p: &Param) -> Result<(), ParamError> {
        self.iter().try_for_each(|v| v.check(p))
    }
}

/// Each named value checked against its row of `table`, in order; the
/// first refused names its parameter. Written through [`check_fields!`].
pub fn check_each(
    table: &'static [Param],
    fields: &[(&str, &dyn Value)],
) -> Result<(), ParamError> {
    fields
        .iter()
        .try_for_each(|(name, v)| v.check(param(table, name)))
}

/// `check_fields!(PARAMS, p, [beta, c, hz])`: the range checks of a
/// component's `check` in one call: each field of `p` named here against
/// the row of `PARAMS` with its name, in this order, the first refused
/// naming its parameter. The `check` keeps only its cross-field rules
/// beside it; the registry's tests hold every declared range to a check.
macro_rules! check_fields {
    ($table:expr, $p:expr, [$($field:ident),+ $(,)?]) => {
        $crate::param::check_each(
            $table,
            &[$((stringify!($field), &$p.$field as &dyn $crate::param::Value)),+],
        )
    };
}
pub(crate) use check_fields;

/// The statement form of the `registration!` of `cc` and `queue` (`$kind`),
/// for a component whose only rules are its declared ranges: given
/// `ranges: [beta, c, hz]` in place of `check:`, it writes the component's
/// `check` (each field named against its row of `PARAMS`, in this order,
/// the first refused naming its parameter: [`check_fields!`]) and its
/// `REGISTRATION` with that check. A component with a rule across fields
/// writes its `check` itself, around `check_fields!`.
macro_rules! ranged_registration {
    { $kind:ident, $(#[$doc:meta])* name: $name:literal, about: $about:literal, params: $params:expr,
      config: $config:ty, ranges: [$($field:ident),+ $(,)?], $($make:tt)+ } => {
        /// Refuses out-of-range parameters, naming the one at fault.
        pub fn check(p: &$config) -> Result<(), $crate::param::ParamError> {
            $crate::param::check_fields!($params, p, [$($field),+])
        }
        $(#[$doc])*
        pub const REGISTRATION: $crate::$kind::Registration = $crate::$kind::registration! {
            name: $name, about: $about, params: $params, config: $config, check: check, $($make)+
        };
    };
}
pub(crate) use ranged_registration;

/// A registration's `defaults`: the parameters' `Default`, as a table.
pub fn defaults<T: Default + serde::Serialize>() -> Params {
    encode(&T::default())
}

/// One component as a configuration names it: `make` turns its parameters
/// (a table, unset ones at their defaults) into what the run builds from,
/// or says which parameter is refused.
pub struct Registration<M: 'static> {
    /// The name a configuration gives it (its `kind`; lower case, unique).
    pub name: &'static str,
    /// One sentence for `dumbbell list` and the documentation.
    pub about: &'static str,
    /// Its parameters, ranges declared once.
    pub params: &'static [Param],
    /// Its parameters' defaults (a parameter without one is required).
    pub defaults: fn() -> Params,
    pub make: M,
}

impl<M> Registration<M> {
    /// A component whose parameters are `T`, their defaults `T::default()`
    /// (the `registration!` macros of `cc` and `queue` write this).
    pub const fn new<T: Default + serde::Serialize>(
        name: &'static str,
        about: &'static str,
        params: &'static [Param],
        make: M,
    ) -> Self {
        Registration {
            name,
            about,
            params,
            defaults: defaults::<T>,
            make,
        }
    }

    /// The schema entry: name, about, parameters.
    pub fn describe(&self) -> serde_json::Value {
        let defaults = (self.defaults)();
        serde_json::json!({
            "name": self.name,
            "about": self.about,
            "params": self.params.iter().map(|p| p.describe(&defaults)).collect::<Vec<_>>(),
        })
    }
}

/// `lo <= v <= hi` for an integer field.
pub fn int_in<T: Into<u128> + Copy + Display>(
    v: T,
    lo: T,
    hi: T,
    field: impl FnOnce() -> String,
    unit: &str,
) -> Result<(), ConfigError> {
    int_msg(v.into(), lo.into(), hi.into(), &v, unit)
        .map_or(Ok(()), |m| Err(ConfigError::new(field(), m)))
}

fn int_msg(x: u128, lo: u128, hi: u128, v: &dyn Display, unit: &str) -> Option<String> {
    (x < lo || x > hi).then(|| format!("must be in [{lo}, {hi}]{unit}, got {v}"))
}

/// A finite float in the interval; `open_lo`/`open_hi` exclude the bounds.
pub fn float_in(
    v: f64,
    lo: (f64, bool),
    hi: (f64, bool),
    field: impl FnOnce() -> String,
) -> Result<(), ConfigError> {
    float_msg(v, lo, hi).map_or(Ok(()), |m| Err(ConfigError::new(field(), m)))
}

fn float_msg(v: f64, (lo, open_lo): (f64, bool), (hi, open_hi): (f64, bool)) -> Option<String> {
    let above = if open_lo { v > lo } else { v >= lo };
    let below = if open_hi { v < hi } else { v <= hi };
    if !v.is_finite() || !above || !below {
        let (l, r) = (
            if open_lo { "(" } else { "[" },
            if open_hi { ")" } else { "]" },
        );
        return Some(format!(
            "must be a finite number in {l}{lo}, {hi}{r}, got {v}"
        ));
    }
    None
}

/// `lo <= v <= hi` for a time in picoseconds; the message speaks seconds.
pub fn time_in(
    v: u64,
    lo: u64,
    hi: u64,
    field: impl FnOnce() -> String,
) -> Result<(), ConfigError> {
    time_msg(v, lo, hi).map_or(Ok(()), |m| Err(ConfigError::new(field(), m)))
}

fn time_msg(v: u64, lo: u64, hi: u64) -> Option<String> {
    (v < lo || v > hi).then(|| {
        format!(
            "must be in [{}, {}], got {}",
            fmt_ps(lo),
            fmt_ps(hi),
            fmt_ps(v)
        )
    })
}

/// Picoseconds as a short human time, for messages.
pub fn fmt_ps(ps: u64) -> String {
    let s = ps as f64 / PS_PER_S as f64;
    if ps == 0 {
        "0 s".into()
    } else if ps < PS_PER_US {
        format!("{} ns", ps as f64 / 1e3)
    } else if ps < PS_PER_MS {
        format!("{} µs", ps as f64 / 1e6)
    } else if ps < PS_PER_S {
        format!("{} ms", ps as f64 / 1e9)
    } else {
        format!("{s} s")
    }
}

/// A value just outside a parameter's declared range, in the type the
/// configuration gives it (None: no range, or none outside it): for the
/// tests that hold every declared range to its check.
#[cfg(test)]
pub fn out_of_range(p: &Param) -> Option<serde_json::Value> {
    use serde_json::json;
    let v = match p.range {
        Range::Any => return None,
        Range::Int { lo, .. } if lo > 0 => json!(lo as u64 - 1),
        Range::Int { hi, .. } if hi < u32::MAX as u128 => json!(hi as u64 + 1),
        Range::Int { .. } => return None,
        Range::Float { hi, .. } => json!(hi * 2.0 + 1.0),
        Range::Time { lo, .. } if lo > 0 => json!(lo - 1),
        Range::Time { hi, .. } => json!(hi.checked_add(1)?),
    };
    Some(if p.ty == Ty::IntList { json!([v]) } else { v })
}
