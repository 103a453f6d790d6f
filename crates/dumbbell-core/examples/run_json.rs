//! Runs a JSON run configuration and prints the summary: `cargo run
//! --release --example run_json -- config.json`. Handy for profiling the core
//! without Python.

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: run_json CONFIG.json");
    let json = std::fs::read_to_string(&path).expect("readable config");
    let t0 = std::time::Instant::now();
    let out = match dumbbell_core::world::run_json(&json) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let wall = t0.elapsed().as_secs_f64();
    let ev = out.summary_u64("events");
    let data = out.summary_u64("data_packets_sent");
    println!(
        "events {ev} wall {wall:.3}s events/s {:.0} data pkts {data} pkts/s {:.0}",
        ev as f64 / wall,
        data as f64 / wall
    );
    if let Some(t) = out.table("flows") {
        for (name, col) in &t.columns {
            println!("  {name}: {col:?}");
        }
    }
}
