#!/usr/bin/env bash
# Side-by-side speed of dumbbell's core and htsim (docs/performance.md).
#
#   [COPIES=4] tools/htsim/compare.sh [--ack-every-packet] HTSIM_SRC [RUNS]
#
# --ack-every-packet: our receivers send one ACK per data packet
# (delayed_ack=False), htsim's ACK policy, so that both sides do the same
# work per packet (htsim 8 events per data packet, ours 4: our ports make
# their departures without events, docs/model.md); without it ours delay
# ACKs (one per two packets, 3 events), which is less work than htsim's.
# `dumbbell bench` runs the equal-work comparison too (htsim-equal-work)
# once this script has built htsim_compare.
#
# HTSIM_SRC: a checkout of https://github.com/Broadcom/csg-htsim (its `sim`
# directory is used; nothing of it is copied into this project). htsim is
# built in a scratch directory ($WORK, default /tmp/htsim-compare) with our
# scenario main (tools/htsim/main_compare.cpp); dumbbell's `run_json`
# example runs the same scenarios (tools/htsim/configs.py). Both run
# interleaved RUNS times (default 5) on each of COPIES fresh copies of each
# binary (default 4), each under `nice -n 10`, and the script prints CPU ns
# per data packet per run, the medians, and the ratio: the median of the
# copies' ratios (each copy's median against the same copy number's of
# htsim), with their range. Two copies of one binary file can run up to 20 % apart
# (where the file's text lies in physical memory: docs/performance.md,
# "Thirteenth round (clean paths)"), so one file says little on its own.
#
# Profile guidance, the same on both sides or said: dumbbell's run_json is
# built profile-guided as `make setup` builds the extension, on the same
# training runs (tools/pgo/training.jsonl), but trained through the core's
# `pgo_train` example: a profile names functions by their mangled names,
# which differ between the extension's build of the core and this one, so
# make setup's profile would not apply here (without llvm-profdata: a plain
# build, and the script says so). HTSIM_PGO=1 builds htsim the same way with
# gcc (-fprofile-generate, one run of each scenario, -fprofile-use);
# otherwise htsim is plain -O3, as its own build makes it. OURS=<a run_json>
# overrides dumbbell's build.
set -euo pipefail
ACKS=""
if [ "${1:-}" = --ack-every-packet ]; then ACKS=--ack-every-packet; shift; fi
SRC=${1:?usage: compare.sh [--ack-every-packet] HTSIM_SRC [RUNS]}
RUNS=${2:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
WORK=${WORK:-/tmp/htsim-compare}
PY=${PY:-$REPO/.venv/bin/python}
mkdir -p "$WORK/sim" "$WORK/cfg"

# htsim: only the objects the TCP/DCTCP scenarios link against.
cp -ru "$SRC"/sim/. "$WORK/sim/"   # -u: a rerun rebuilds nothing
cp -u "$HERE/main_compare.cpp" "$WORK/sim/"
OBJS="eventlist tcppacket pipe queue ecnqueue tcp dctcp mtcp loggers logfile clock config network route
      trigger rng sent_packets eth_pause_packet fairpullqueue ndppacket main_compare"
build_htsim() {  # build_htsim DIR EXTRA_FLAGS...
  local dir=$1; shift
  mkdir -p "$dir"
  (
    cd "$WORK/sim"
    for o in $OBJS; do
      [ "$dir/$o.o" -nt "$o.cpp" ] || nice -n 10 g++ -std=c++11 -O3 -w "$@" -c "$o.cpp" -o "$dir/$o.o"
    done
    nice -n 10 g++ -O3 "$@" $(for o in $OBJS; do echo "$dir/$o.o"; done) -o "$dir/htsim_compare"
  )
}
if [ "${HTSIM_PGO:-0}" = 1 ]; then
  # The counts (.gcda) land beside the objects; the second build, in the
  # same directory, finds them there.
  rm -rf "$WORK/pgo"
  build_htsim "$WORK/pgo" -fprofile-generate
  for s in reno-1g reno-10g dctcp-100m; do "$WORK/pgo/htsim_compare" "$s" >/dev/null; done
  rm -f "$WORK"/pgo/*.o "$WORK/pgo/htsim_compare"
  build_htsim "$WORK/pgo" -fprofile-use -fprofile-correction -Wno-missing-profile
  HTSIM="$WORK/pgo/htsim_compare"
  echo "htsim: gcc -O3, profile-guided (HTSIM_PGO=1)"
else
  build_htsim "$WORK/plain"
  HTSIM="$WORK/plain/htsim_compare"
  echo "htsim: gcc -O3 (HTSIM_PGO=1 for a profile-guided build)"
fi

# dumbbell: the core alone, without Python (OURS: an already built run_json).
if [ -z "${OURS:-}" ]; then
  host=$(rustc -vV | sed -n 's/^host: //p')
  profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
  PGO=$REPO/target/pgo/run_json
  if [ -x "$profdata" ]; then
    rm -rf "$PGO/profiles" && mkdir -p "$PGO/profiles"
    (cd "$REPO" && RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$PGO/profiles" CARGO_TARGET_DIR="$PGO/gen" \
       nice -n 10 cargo build --release -q -p dumbbell-core --example pgo_train)
    LLVM_PROFILE_FILE="$PGO/profiles/%p-%m.profraw" nice -n 10 "$PGO/gen/release/examples/pgo_train" \
      "$REPO/tools/pgo/training.jsonl" >/dev/null
    "$profdata" merge -o "$PGO/run_json.profdata" "$PGO/profiles"
    (cd "$REPO" && RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$PGO/run_json.profdata" CARGO_TARGET_DIR="$PGO/use" \
       nice -n 10 cargo build --release -q -p dumbbell-core --example run_json)
    OURS="$PGO/use/release/examples/run_json"
    echo "dumbbell: run_json, profile-guided (trained on tools/pgo/training.jsonl through pgo_train)"
  else
    (cd "$REPO" && nice -n 10 cargo build --release -q -p dumbbell-core --example run_json)
    OURS="$REPO/target/release/examples/run_json"
    echo "dumbbell: run_json, plain build (no llvm-profdata: rustup component add llvm-tools)"
  fi
fi
"$PY" "$HERE/configs.py" "$WORK/cfg" $ACKS >/dev/null
if [ -n "$ACKS" ]; then echo "dumbbell: one ACK per data packet (delayed_ack=False), as htsim"
else echo "dumbbell: delayed ACKs (the default; htsim ACKs every packet: unequal work)"; fi

"$PY" - "$HTSIM" "$OURS" "$RUNS" "$WORK" "${COPIES:-4}" <<'PYEOF'
import re, shutil, statistics, subprocess, sys
from pathlib import Path
htsim_bin, ours, runs, work, copies = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
# Fresh copies of both binaries, made now: run k goes through copy k % COPIES.
cdir = Path(work) / "copies"
shutil.rmtree(cdir, ignore_errors=True)
cdir.mkdir()
hcopies, dcopies = [], []
for k in range(copies):
    for src, dst in ((htsim_bin, hcopies), (ours, dcopies)):
        p = cdir / f"{Path(src).name}.{k}"
        shutil.copy2(src, p)
        dst.append(str(p))
def htsim(s, k):
    out = subprocess.run(["nice", "-n", "10", hcopies[k], s], capture_output=True, text=True, check=True).stdout
    m = re.search(r"data_pkts (\d+) cpu \S+ cpu_ns_per_pkt ([\d.]+)", out)
    return float(m.group(2)), int(m.group(1))
def dumbbell(s, k):
    out = subprocess.run(["nice", "-n", "10", dcopies[k], f"{work}/cfg/{s}.json", "--quiet"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"data pkts (\d+) .*cpu ns/pkt ([\d.]+)", out)
    return float(m.group(2)), int(m.group(1))
print(f"{copies} fresh copies of each binary, {runs} runs on each")
print(f"{'scenario':12s} {'run':>3s} {'copy':>4s} {'htsim ns/pkt':>12s} {'ours ns/pkt':>12s} {'ratio':>6s}   packets (htsim, ours)")
for s in ["reno-1g", "reno-10g", "dctcp-100m"]:
    h, d = [], []
    for i in range(runs * copies):
        k = i % copies
        # Alternate which goes first, so that neither always meets the other's cache state.
        order = [("h", htsim), ("d", dumbbell)] if (i // copies) % 2 == 0 else [("d", dumbbell), ("h", htsim)]
        got = {w: f(s, k) for w, f in order}
        h.append(got["h"][0]); d.append(got["d"][0])
        print(f"{s:12s} {i:3d} {k:4d} {got['h'][0]:12.1f} {got['d'][0]:12.1f} {got['d'][0] / got['h'][0]:6.2f}   {got['h'][1]}, {got['d'][1]}")
    ratios = sorted(y / x for x, y in zip(h, d))
    # Each copy's ratio of medians; the ratio reported is their median, which
    # one slow copy (of either side) does not move.
    per_copy = sorted(statistics.median(d[k::copies]) / statistics.median(h[k::copies]) for k in range(copies))
    print(f"{s:12s} median: htsim {statistics.median(h):.1f} ns, ours {statistics.median(d):.1f} ns, "
          f"ours/htsim {statistics.median(per_copy):.2f} (the copies' ratios {per_copy[0]:.2f}..{per_copy[-1]:.2f}, "
          f"per run {ratios[0]:.2f}..{ratios[-1]:.2f})")
PYEOF
