//! `cargo run -p dumbbell-kmod --example compare -- PATH.c KIND [major.minor]`:
//! the differential check from Rust (the CLI is `dumbbell module compare`);
//! `DUMBBELL_KMOD_HZ` sets the module's HZ.

use dumbbell_core::config::CcConfig;
use dumbbell_kmod::{compare, BuildOptions, ModuleSpec};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: compare PATH.c KIND [major.minor]");
        std::process::exit(2);
    }
    // KIND is a name (`cubic`) or a configuration (`{"kind": "highspeed", "mode": "linux_table"}`).
    let text = if args[2].starts_with('{') {
        args[2].clone()
    } else {
        format!("{{\"kind\": \"{}\"}}", args[2])
    };
    let port: CcConfig = serde_json::from_str(&text).expect("a built-in control");
    let mut build = BuildOptions::default();
    if let Some(v) = args.get(3) {
        let (a, b) = v.split_once('.').expect("major.minor");
        build.linux_version = (a.parse().unwrap(), b.parse().unwrap());
    }
    if let Ok(hz) = std::env::var("DUMBBELL_KMOD_HZ") {
        build.hz = hz.parse().expect("HZ an integer");
    }
    let spec = ModuleSpec {
        id: String::new(),
        source: args[1].clone().into(),
        params: Vec::new(),
        host: String::new(),
        build,
    };
    let mut results = Vec::new();
    for s in compare::scenarios() {
        match compare::compare_one(&s, &port, &spec) {
            Ok(r) => results.push(r),
            Err(e) => {
                eprintln!("{}: {e}", s.name);
                std::process::exit(2);
            }
        }
    }
    let doc = compare::report_json(&args[1], &args[2], &results);
    println!("{}", serde_json::to_string_pretty(&doc).unwrap());
}
