//! Runs a JSON run configuration and prints the summary: `cargo run
//! --release --example run_json -- config.json`. Handy for profiling the core
//! without Python, and for checking that a change to the core left a run
//! bit-identical: the `fingerprint` line hashes every value of every table
//! (FNV-1a, as the golden test in `tests/physics.rs` does).

use dumbbell_core::trace::Column;

fn fingerprint(out: &dumbbell_core::world::RunOutput) -> u64 {
    fingerprint_of(out.tables.iter(), None)
}

/// [`fingerprint`] of some tables, without the column `skip` (of any of
/// them): the `physics` line leaves out the summary's event count, which a
/// change to how events are scheduled moves while every other value stays.
fn fingerprint_of<'a>(
    tables: impl Iterator<Item = &'a dumbbell_core::trace::Table>,
    skip: Option<&str>,
) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for t in tables {
        eat(t.name.as_bytes());
        for (name, col) in &t.columns {
            if Some(name.as_str()) == skip {
                continue;
            }
            eat(name.as_bytes());
            match col {
                Column::U64(v) => v.iter().for_each(|x| eat(&x.to_le_bytes())),
                Column::I64(v) => v.iter().for_each(|x| eat(&x.to_le_bytes())),
                Column::F64(v) => v.iter().for_each(|x| eat(&x.to_bits().to_le_bytes())),
                Column::U32(v) => v.iter().for_each(|x| eat(&x.to_le_bytes())),
                Column::Bool(v) => v.iter().for_each(|x| eat(&[*x as u8])),
                Column::Str(v) => v.iter().for_each(|x| eat(x.as_bytes())),
                Column::Dict(codes, values) => codes
                    .iter()
                    .for_each(|&c| eat(values[c as usize].as_bytes())),
            }
        }
    }
    h
}

/// This thread's CPU time in ns (Linux `schedstat`), if the system tells:
/// on a loaded machine it moves less than the wall time.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: run_json CONFIG.json [--quiet] [--nic-events]");
    let flags: Vec<String> = args.collect();
    let quiet = flags.iter().any(|a| a == "--quiet");
    // Every TCP sender's NIC with a `TxDone` per packet: the reference
    // whose `physics` line the default run must give (`world/tsq_wake.rs`).
    let nic_events = flags.iter().any(|a| a == "--nic-events");
    let json = std::fs::read_to_string(&path).expect("readable config");
    let (t0, c0) = (std::time::Instant::now(), cpu_ns());
    let run = if nic_events {
        dumbbell_core::world::run_json_with_nic_events(&json)
    } else {
        dumbbell_core::world::run_json(&json, Default::default())
    };
    let out = match run {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let wall = t0.elapsed().as_secs_f64();
    // CPU time if known, else wall time.
    let cpu = match (c0, cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 * 1e-9,
        _ => wall,
    };
    let ev = out.summary_u64("events");
    let data = out.summary_u64("data_packets_sent");
    println!(
        "events {ev} wall {wall:.3}s cpu {cpu:.3}s events/s {:.0} data pkts {data} pkts/s {:.0} \
         cpu ns/pkt {:.1} events/pkt {:.2}",
        ev as f64 / wall,
        data as f64 / wall,
        cpu * 1e9 / data.max(1) as f64,
        ev as f64 / data.max(1) as f64
    );
    println!("fingerprint {:#018x}", fingerprint(&out));
    // Every value but the event count, and each table's own.
    println!(
        "physics {:#018x}",
        fingerprint_of(out.tables.iter(), Some("events"))
    );
    for t in &out.tables {
        let skip = (t.name == "summary").then_some("events");
        println!(
            "table {} {:#018x}",
            t.name,
            fingerprint_of(std::iter::once(t), skip)
        );
    }
    if quiet {
        return;
    }
    if let Some(t) = out.table("flows") {
        for (name, col) in &t.columns {
            println!("  {name}: {col:?}");
        }
    }
}
