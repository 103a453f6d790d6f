//! Controls added by registration: one file in `cc/` and one line in
//! [`REGISTRY`], nothing else. A configuration names one as
//! `{"kind": "registered", "name": "scalable", "params": {...}}` (in a
//! scenario, `cc = "scalable"` or `cc = {kind = "scalable", ai_cnt = 50}`);
//! `dumbbell list` shows it with its `about`; its parameters are decoded
//! by its own file ([`decode`]) and checked before the run, errors naming
//! `flows[i].cc.params.<name>`.
//!
//! The controls that predate the registry have their own configuration
//! variants (`CcConfig::Cubic`, ...) and Python models; a new control needs
//! neither. `docs/controls.md` walks through adding one, from a control
//! written in Python to its Rust port.

use super::CongestionControl;
use crate::sim::Rng;
use serde::de::DeserializeOwned;

/// A control's parameters as the configuration gives them.
pub type Params = serde_json::Map<String, serde_json::Value>;

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
}

/// How a registered control is built: from its parameters and the
/// connection's random stream, or why the parameters are refused.
pub type MakeFn = fn(&Params, Rng) -> Result<Box<dyn CongestionControl>, ParamError>;

/// One registered control.
pub struct Registration {
    /// The name a configuration gives it (lower case, unique).
    pub name: &'static str,
    /// One sentence for `dumbbell list`.
    pub about: &'static str,
    /// A new control for one connection from its parameters; `rng` is the
    /// connection's own random stream. Called once before the run (to check
    /// the parameters) and then once per connection.
    pub make: MakeFn,
}

/// Every registered control: add one line here.
pub const REGISTRY: &[Registration] = &[super::scalable::REGISTRATION];

/// The registration called `name`.
pub fn find(name: &str) -> Option<&'static Registration> {
    REGISTRY.iter().find(|r| r.name == name)
}

/// A control's typed parameters from the configuration's table: a struct
/// with `#[serde(deny_unknown_fields, default)]` gives unknown names and
/// wrong types as errors, and its `Default` for unset parameters.
pub fn decode<T: DeserializeOwned>(params: &Params) -> Result<T, ParamError> {
    serde_json::from_value(serde_json::Value::Object(params.clone())).map_err(|e| ParamError {
        param: None,
        why: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_lower_case_and_documented() {
        let mut names: Vec<&str> = REGISTRY.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), REGISTRY.len());
        for r in REGISTRY {
            assert!(
                !r.name.is_empty() && r.name == r.name.to_lowercase(),
                "{}",
                r.name
            );
            assert!(r.about.ends_with('.'), "{}", r.name);
            // built with its defaults, it reports its registered name
            let c = (r.make)(&Params::new(), crate::sim::rng_for(0, "registry"));
            assert_eq!(c.map(|c| c.name()).ok(), Some(r.name));
        }
    }
}
