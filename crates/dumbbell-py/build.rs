//! Embeds a hash of the simulator's sources (`DUMBBELL_SOURCE_HASH`), and
//! how the extension was compiled (`DUMBBELL_BUILD`: `plain`, or
//! `profile-guided (<profile>)` when `tools/pgo/build.sh` built it).
//!
//! A run stored by `dumbbell.sweep` is identified by its configuration, its
//! seed and the simulator that produced it. The Cargo version alone does not
//! change while the core is being worked on, so the binding also carries a
//! hash of every source file of `dumbbell-core`, of `dumbbell-kmod` (its
//! kernel shim included) and of this crate (paths and
//! contents, in sorted order, FNV-1a 64): any edit to the simulator changes
//! the identity of every run, and a results store never serves a result that
//! the current build would not produce. The hash depends on the files only,
//! not on the machine, the compiler or the build profile.

use std::fs;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if matches!(
            p.extension().and_then(|x| x.to_str()),
            Some("rs" | "toml" | "c" | "h")
        ) {
            out.push(p);
        }
    }
}

fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let core = here.join("../dumbbell-core");
    let kmod = here.join("../dumbbell-kmod");
    let mut files = Vec::new();
    for root in [
        core.join("src"),
        kmod.join("src"),
        kmod.join("shim"),
        here.join("src"),
    ] {
        println!("cargo:rerun-if-changed={}", root.display());
        collect(&root, &mut files);
    }
    for f in [
        core.join("Cargo.toml"),
        kmod.join("Cargo.toml"),
        here.join("Cargo.toml"),
    ] {
        println!("cargo:rerun-if-changed={}", f.display());
        files.push(f);
    }
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(here.parent().unwrap())
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            (rel, p)
        })
        .collect();
    named.sort();
    let mut h = 0xcbf2_9ce4_8422_2325_u64;
    for (rel, p) in &named {
        h = fnv1a(h, rel.as_bytes());
        h = fnv1a(h, &[0]);
        h = fnv1a(h, &fs::read(p).unwrap_or_default());
        h = fnv1a(h, &[0]);
    }
    println!("cargo:rustc-env=DUMBBELL_SOURCE_HASH={h:016x}");

    // How the extension was compiled, for `dumbbell bench` to say:
    // tools/pgo/build.sh names its profile in DUMBBELL_PGO_PROFILE.
    println!("cargo:rerun-if-env-changed=DUMBBELL_PGO_PROFILE");
    let build = match std::env::var("DUMBBELL_PGO_PROFILE") {
        Ok(p) if !p.is_empty() => format!("profile-guided ({p})"),
        _ => "plain".to_string(),
    };
    println!("cargo:rustc-env=DUMBBELL_BUILD={build}");
}
