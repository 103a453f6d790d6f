#!/usr/bin/env bash
# Side-by-side speed of dumbbell's core and htsim (docs/performance.md).
#
#   tools/htsim/compare.sh HTSIM_SRC [RUNS]
#
# HTSIM_SRC: a checkout of https://github.com/Broadcom/csg-htsim (its `sim`
# directory is used; nothing of it is copied into this project). htsim is
# built in a scratch directory ($WORK, default /tmp/htsim-compare) with our
# scenario main (tools/htsim/main_compare.cpp); dumbbell's `run_json`
# example runs the same scenarios (tools/htsim/configs.py). Both run
# interleaved RUNS times (default 5), each under `nice -n 10`, and the
# script prints CPU ns per data packet per run, the medians and the ratio.
set -euo pipefail
SRC=${1:?usage: compare.sh HTSIM_SRC [RUNS]}
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
(
  cd "$WORK/sim"
  for o in $OBJS; do
    [ "$o.o" -nt "$o.cpp" ] || nice -n 10 g++ -std=c++11 -O3 -w -c "$o.cpp" -o "$o.o"
  done
  nice -n 10 g++ -O3 $(for o in $OBJS; do echo "$o.o"; done) -o htsim_compare
)

# dumbbell: the core alone, without Python (OURS: an already built run_json).
if [ -z "${OURS:-}" ]; then
  (cd "$REPO" && nice -n 10 cargo build --release -q -p dumbbell-core --example run_json)
  OURS="$REPO/target/release/examples/run_json"
fi
"$PY" "$HERE/configs.py" "$WORK/cfg" >/dev/null

"$PY" - "$WORK" "$OURS" "$RUNS" <<'PYEOF'
import re, statistics, subprocess, sys
work, ours, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
def htsim(s):
    out = subprocess.run(["nice", "-n", "10", f"{work}/sim/htsim_compare", s], capture_output=True, text=True, check=True).stdout
    m = re.search(r"data_pkts (\d+) cpu \S+ cpu_ns_per_pkt ([\d.]+)", out)
    return float(m.group(2)), int(m.group(1))
def dumbbell(s):
    out = subprocess.run(["nice", "-n", "10", ours, f"{work}/cfg/{s}.json", "--quiet"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"data pkts (\d+) .*cpu ns/pkt ([\d.]+)", out)
    return float(m.group(2)), int(m.group(1))
print(f"{'scenario':12s} {'run':>3s} {'htsim ns/pkt':>12s} {'ours ns/pkt':>12s} {'ratio':>6s}   packets (htsim, ours)")
for s in ["reno-1g", "reno-10g", "dctcp-100m"]:
    h, d = [], []
    for i in range(runs):
        # Alternate which goes first, so that neither always meets the other's cache state.
        order = [("h", htsim), ("d", dumbbell)] if i % 2 == 0 else [("d", dumbbell), ("h", htsim)]
        got = {k: f(s) for k, f in order}
        h.append(got["h"][0]); d.append(got["d"][0])
        print(f"{s:12s} {i:3d} {got['h'][0]:12.1f} {got['d'][0]:12.1f} {got['d'][0] / got['h'][0]:6.2f}   {got['h'][1]}, {got['d'][1]}")
    ratios = sorted(y / x for x, y in zip(h, d))
    print(f"{s:12s} median: htsim {statistics.median(h):.1f} ns, ours {statistics.median(d):.1f} ns, "
          f"ours/htsim {statistics.median(d) / statistics.median(h):.2f} (per-run ratios {ratios[0]:.2f}..{ratios[-1]:.2f})")
PYEOF
