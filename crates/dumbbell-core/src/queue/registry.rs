//! The queue disciplines a configuration can name (`queue.aqm.kind`):
//! one file each in `queue/`, one line each here. Each file declares its
//! parameters once (a `...Config` struct with its defaults, a `PARAMS`
//! table of types, ranges and descriptions that its `check` reads) and a
//! `REGISTRATION`; [`AqmConfig`](super::AqmConfig) has one variant per kind
//! and the schema (`config::schema`, `_native.schema()` in Python) is read
//! from these.

use super::{aqm, cake, codel, dualpi2, fq_codel, pie, red};
pub use super::{MakeFn, Registration};
use crate::param::{self, Params};

/// A FIFO without a marking policy: drop-tail.
pub const NONE: Registration = Registration {
    name: "none",
    about: "Drop-tail FIFO: no marking policy.",
    params: &[],
    defaults: Params::new,
    make: |params| {
        let _: NoParams = param::decode(params)?;
        Ok(super::AqmConfig::None)
    },
};

/// Drop-tail takes no parameters: any name is unknown.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

/// Every discipline, in [`AqmConfig`](super::AqmConfig)'s order: add one line here.
pub const REGISTRY: &[Registration] = &[
    NONE,
    red::REGISTRATION,
    aqm::STEP,
    aqm::HYSTERESIS,
    codel::REGISTRATION,
    fq_codel::REGISTRATION,
    pie::REGISTRATION,
    cake::REGISTRATION,
    dualpi2::REGISTRATION,
];

/// The discipline called `name`.
pub fn find(name: &str) -> Option<&'static Registration> {
    REGISTRY.iter().find(|r| r.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_decodes_by_its_name_and_registers_once() {
        for r in REGISTRY {
            // required parameters, where there are: the smallest valid table
            let mut p = Params::new();
            for q in r
                .params
                .iter()
                .filter(|q| !(r.defaults)().contains_key(q.name))
            {
                p.insert(
                    q.name.into(),
                    serde_json::json!(match q.name {
                        "max_th" => 2,
                        "upper_pkts" => 2,
                        _ => 1,
                    }),
                );
            }
            if r.name == "step" {
                p.insert("k_pkts".into(), serde_json::json!(1)); // one of k_pkts, k_bytes
            }
            let made = (r.make)(&p).unwrap_or_else(|e| panic!("{}: {e:?}", r.name));
            let mut doc = param::encode(&made);
            assert_eq!(doc.remove("kind"), Some(serde_json::json!(r.name)));
            assert_eq!(find(r.name).map(|f| f.name), Some(r.name));
            assert!(r.about.ends_with('.'), "{}", r.name);
        }
    }

    /// As for the controls: each table lists exactly its parameters, and
    /// every declared range is enforced, naming the parameter.
    #[test]
    fn every_declared_range_is_enforced_and_every_parameter_declared() {
        for r in REGISTRY {
            let defaults = (r.defaults)();
            let mut base = defaults.clone();
            for p in r.params.iter().filter(|p| !defaults.contains_key(p.name)) {
                let v = match p.name {
                    "max_th" | "upper_pkts" => 2,
                    _ => 1,
                };
                base.insert(p.name.into(), serde_json::json!(v));
            }
            if r.name == "step" {
                base.insert("k_pkts".into(), serde_json::json!(1));
            }
            assert!((r.make)(&base).is_ok(), "{}", r.name);
            let made = param::encode(&(r.make)(&base).unwrap());
            for k in made.keys().filter(|k| *k != "kind") {
                assert!(
                    r.params.iter().any(|p| p.name == k),
                    "{}.{k}: not in PARAMS",
                    r.name
                );
            }
            for p in r.params {
                let Some(bad) = param::out_of_range(p) else {
                    continue;
                };
                let mut params = base.clone();
                params.insert(p.name.into(), bad.clone());
                let e = (r.make)(&params).err();
                let at = e.as_ref().and_then(|e| e.param.as_deref());
                assert_eq!(at, Some(p.name), "{}.{} = {bad}: {e:?}", r.name, p.name);
            }
        }
    }
}
