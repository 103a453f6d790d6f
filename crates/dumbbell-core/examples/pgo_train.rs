//! Runs every configuration of a JSON-lines file, one after the other: the
//! training step of the profile-guided build of the `run_json` example that
//! `tools/htsim/compare.sh` measures (it builds this example instrumented
//! and runs it on `tools/pgo/training.jsonl`). The Python extension is
//! trained through itself instead (`tools/pgo/build.sh`, `train.py`): a
//! profile names functions by their mangled names, and Cargo builds the core
//! for an example against a serde with the features the dev-dependencies
//! add, which changes the core's crate hash and so every name.
//! Prints one line per run and the total; exits with status 1 if a
//! configuration is rejected or a run fails.

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: pgo_train TRAINING.jsonl");
    let text = std::fs::read_to_string(&path).expect("a readable training file");
    let t0 = std::time::Instant::now();
    let (mut runs, mut events, mut failed) = (0u64, 0u64, 0u64);
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let t = std::time::Instant::now();
        match dumbbell_core::world::run_json(line, Default::default()) {
            Ok(out) => {
                let ev = out.summary_u64("events");
                println!(
                    "run {:3}: {:>10} events in {:.2} s",
                    i + 1,
                    ev,
                    t.elapsed().as_secs_f64()
                );
                events += ev;
            }
            Err(e) => {
                eprintln!("run {}: {e}", i + 1);
                failed += 1;
            }
        }
        runs += 1;
    }
    println!(
        "{runs} runs, {events} events in {:.1} s, {failed} failed",
        t0.elapsed().as_secs_f64()
    );
    std::process::exit(if failed > 0 { 1 } else { 0 });
}
