//! Controls added by registration: one file in `cc/` and one line in
//! [`REGISTRY`], nothing else. A configuration names one as
//! `{"kind": "registered", "name": "scalable", "params": {...}}` (in a
//! scenario, `cc = "scalable"` or `cc = {kind = "scalable", ai_cnt = 50}`);
//! `dumbbell list` shows it with its `about`; its parameters are decoded
//! by its own file ([`decode`]) and checked before the run, errors naming
//! `flows[i].cc.params.<name>`.
//!
//! The controls that predate the registry have their own configuration
//! variants (`CcConfig::Cubic`, ...) and Python models, and register the
//! same way in [`BUILTIN`]: each file declares its parameters once (a
//! `Params` struct whose `Default` holds the defaults, a `PARAMS` table of
//! types, ranges and descriptions its `check` reads) and a `REGISTRATION`;
//! the schema (`config::schema`, `_native.schema()` in Python) is read from
//! these. A new control needs no variant and no Python model.
//! `docs/controls.md` walks through adding one, from a control written in
//! Python to its Rust port.

use super::{
    bbr, bbr3, cubic, dctcp, expolinear, fractional, highspeed, linear, prague, reno, scalable,
    vegas,
};
pub use super::{MakeFn, Registration};
pub use crate::param::{decode, ParamError, Params};
use bbr::BbrParams;
use cubic::CubicParams;
use dctcp::DctcpParams;
use expolinear::ExpolinearParams;
use fractional::FractionalParams;
use highspeed::HighSpeedParams;
use linear::LinearParams;
use serde::{Deserialize, Serialize};
use vegas::VegasParams;

/// Every registered control: add one line here.
pub const REGISTRY: &[Registration] = &[
    scalable::REGISTRATION,
    bbr3::REGISTRATION,
    prague::REGISTRATION,
];

/// The controls with a `kind` of their own ([`CcConfig`]'s variants), in
/// the variants' order; `external` and `registered` name others.
pub const BUILTIN: &[Registration] = &[
    reno::REGISTRATION,
    cubic::REGISTRATION,
    dctcp::REGISTRATION,
    linear::REGISTRATION,
    fractional::REGISTRATION,
    expolinear::REGISTRATION,
    bbr::REGISTRATION,
    highspeed::REGISTRATION,
    vegas::REGISTRATION,
];

/// The registration called `name` (a registered control).
pub fn find(name: &str) -> Option<&'static Registration> {
    REGISTRY.iter().find(|r| r.name == name)
}

/// Every control the core builds itself, built-in then registered.
pub fn all() -> impl Iterator<Item = &'static Registration> {
    BUILTIN.iter().chain(REGISTRY)
}

/// A congestion control and its parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CcConfig {
    Reno,
    Cubic(#[serde(default)] CubicParams),
    Dctcp(#[serde(default)] DctcpParams),
    // Madeira and Mattos's Linear, Fractional, Expolinear.
    Linear(#[serde(default)] LinearParams),
    Fractional(#[serde(default)] FractionalParams),
    Expolinear(#[serde(default)] ExpolinearParams),
    Bbr(#[serde(default)] BbrParams),
    Highspeed(#[serde(default)] HighSpeedParams),
    Vegas(#[serde(default)] VegasParams),
    /// A control built outside the core: the embedding that runs the
    /// configuration (the Python binding, for a class passed as `cc=`)
    /// hands the run an [`ExternalControls`](crate::cc::ExternalControls)
    /// that builds one for `id`. A run without one refuses the flow.
    External(ExternalParams),
    /// A control added to the core by one file in `cc/` and one line in
    /// `cc::registry::REGISTRY` (see `docs/controls.md`), by its name, with
    /// its parameters as a table that the control's file decodes.
    Registered(RegisteredParams),
}

/// Names a control of `cc::registry::REGISTRY` and its parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RegisteredParams {
    /// The registered name (`scalable`).
    pub name: String,
    /// The control's parameters; unset ones take its defaults.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
}

/// Names a control the embedding builds (`cc::ExternalControls`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ExternalParams {
    /// The key the embedding's factory knows the control by (the Python
    /// binding uses the scenario path, `flows[0].cc`).
    pub id: String,
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig::Cubic(CubicParams::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_lower_case_and_documented() {
        let mut names: Vec<&str> = all().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all().count());
        for r in all() {
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

    /// Each control's table lists exactly its parameters, each with its
    /// default, and every range the table declares is the one its check
    /// enforces: a value just outside is refused, naming the parameter.
    #[test]
    fn every_declared_range_is_enforced_and_every_parameter_declared() {
        use crate::param::{out_of_range, Ty};
        for r in all() {
            let defaults = (r.defaults)();
            for k in defaults.keys() {
                assert!(
                    r.params.iter().any(|p| p.name == k),
                    "{}.{k}: not in PARAMS",
                    r.name
                );
            }
            for p in r.params {
                assert!(
                    defaults.contains_key(p.name) || matches!(p.ty, Ty::Optional(_)),
                    "{}.{}: no default",
                    r.name,
                    p.name
                );
                let Some(bad) = out_of_range(p) else { continue };
                let mut params = defaults.clone();
                params.insert(p.name.into(), bad.clone());
                let e = (r.make)(&params, crate::sim::rng_for(0, "t")).err();
                let at = e.as_ref().and_then(|e| e.param.as_deref());
                assert_eq!(at, Some(p.name), "{}.{} = {bad}: {e:?}", r.name, p.name);
            }
        }
    }
}
