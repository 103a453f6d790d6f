#!/usr/bin/env bash
# htsim's side of the fat-tree speed comparison (issue 25; docs/performance.md).
#
#   tools/htsim/fabric_compare.sh HTSIM_SRC [K...]
#
# HTSIM_SRC: a checkout of https://github.com/Broadcom/csg-htsim. Its `sim`
# tree is copied to a scratch directory ($WORK, default /tmp/htsim-fabric)
# and built there; nothing of it enters this project. htsim's own fat-tree
# TCP main, `sim/datacenter/main_tcp.cpp`, is built with the scenario's
# constants edited in the scratch copy (they are in its source, not on its
# command line), so that it runs what tools/htsim/fabric_speed.py runs:
#   - host links 10 Gb/s (`HOST_NIC` in main.h, Mb/s), 1 us per link (the
#     topology's default), queues of 100 packets (`memFromPkt(8)` -> 100);
#   - the end time from $HTSIM_END_US (4 s in the source);
#   - `srand(1)` for the path choices (the clock in the source);
#   - at the end, one line: `RESULT loop_cpu_s <s> data_packets <n>`: the CPU
#     time of its event loop (CLOCK_PROCESS_CPUTIME_ID) and the data packets
#     its TCP sources sent (`TcpSrc::_packets_sent`, in bytes, over `_mss`, summed).
# Then, RUNS times (default 3), for each K (default 4 8): a permutation of
# k^3/4 flows for the duration fabric_speed.py gives that size, on both
# sides, alternating which goes first, each under `nice -n 10`; one line per
# run and side: CPU ns per data packet (htsim: its event loop's process CPU
# time; ours: run_json's thread CPU time, the world's build and the tables
# included), packets, CPU s.
set -euo pipefail
SRC=${1:?usage: fabric_compare.sh HTSIM_SRC [K...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
KS=${*:-4 8}
WORK=${WORK:-/tmp/htsim-fabric}
mkdir -p "$WORK"
[ "$(realpath "$SRC/sim")" = "$(realpath -m "$WORK/sim")" ] || cp -ru "$SRC"/sim "$WORK/"
cd "$WORK/sim"
nice -n 10 make -j2 libhtsim.a >/dev/null
cd datacenter
sed -i 's/^#define HOST_NIC 100000\b.*/#define HOST_NIC 10000 \/\/ 10 Gb\/s for the comparison/' main.h
F=main_tcp_fabric.cpp
cp main_tcp.cpp $F
sed -i \
    -e 's/eventlist.setEndtime(timeFromSec(4));/eventlist.setEndtime(timeFromUs(atof(getenv("HTSIM_END_US"))));/' \
    -e 's/srand(time(NULL));/srand(1);/' \
    -e 's/memFromPkt(8)/memFromPkt(100)/' \
    -e 's/^EventList eventlist;/EventList eventlist;\nstd::vector<TcpSrc*> all_srcs;/' \
    -e 's/tcpSrc = new TcpSrc(NULL, NULL, eventlist);/tcpSrc = new TcpSrc(NULL, NULL, eventlist); all_srcs.push_back(tcpSrc);/' \
    $F
python3 - "$F" <<'EOF'
import re, sys
p = sys.argv[1]
s = open(p).read()
loop = re.compile(r"while \(eventlist\.doNextEvent\(\)\) \{\s*\}")
assert loop.search(s), "main_tcp.cpp's event loop not found"
s = loop.sub(lambda _m:
    "struct timespec t0, t1; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);\n"
    "    while (eventlist.doNextEvent()) {}\n"
    "    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);\n"
    "    uint64_t pk = 0; for (auto s : all_srcs) pk += s->_packets_sent / s->_mss; /* _packets_sent counts bytes */\n"
    "    printf(\"RESULT loop_cpu_s %.6f data_packets %lu\\n\", (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec), (unsigned long)pk);",
    s,
)
s = s.replace('#include "config.h"', '#include "config.h"\n#include <time.h>\n#include <vector>', 1)
open(p, "w").write(s)
EOF
OBJS="firstfit vl2_topology fat_tree_topology fat_tree_switch dragon_fly_topology bcube_topology connection_matrix
      oversubscribed_fat_tree_topology shortflows multihomed_fat_tree_topology star_topology"
for o in $OBJS; do
    [ "$o.o" -nt "$o.cpp" ] || nice -n 10 g++ -std=c++11 -O3 -w -I.. -I. -c "$o.cpp" -o "$o.o"
done
nice -n 10 g++ -std=c++11 -O3 -w -I.. -I. -c $F -o main_tcp_fabric.o
nice -n 10 g++ -O3 main_tcp_fabric.o $(for o in $OBJS; do echo "$o.o"; done) -L.. -lhtsim -o htsim_tcp_fabric
PY=${PY:-$HERE/../../.venv/bin/python}
RUNS=${RUNS:-3}
# dumbbell: the core alone, without Python (as compare.sh): run_json on the
# configurations fabric_speed.py writes; OURS: an already built run_json.
if [ -z "${OURS:-}" ]; then
    (cd "$HERE/../.." && nice -n 10 cargo build --release -q -p dumbbell-core --example run_json)
    OURS="$HERE/../../target/release/examples/run_json"
fi
"$PY" "$HERE/fabric_speed.py" --k $KS --write-configs "$WORK/cfg"
echo "k hosts run side ns_per_data_packet data_packets cpu_s"
for run in $(seq 1 "$RUNS"); do
    for k in $KS; do
        hosts=$((k * k * k / 4))
        end_us=$("$PY" -c "import sys; sys.path.insert(0, '$HERE'); from fabric_speed import DURATION_S; print(DURATION_S[$k] * 1e6)")
        ours() {
            local line
            line=$(nice -n 10 "$OURS" "$WORK/cfg/fat_tree_k$k.json" --quiet | grep "^events ")
            # "events E wall W cpu C events/s R data pkts N pkts/s P cpu ns/pkt X events/pkt Y"
            set -- $line
            echo "$k $hosts $run dumbbell $(printf %.0f "${16}") ${11} ${6%s}"
        }
        theirs() {
            local line
            line=$(cd "$WORK" && HTSIM_END_US=$end_us nice -n 10 "$WORK/sim/datacenter/htsim_tcp_fabric" \
                   -nodes $hosts -conns $hosts -o "$WORK/logout_k$k.dat" 2>&1 | grep '^RESULT')
            set -- $line
            python3 -c "print($k, $hosts, $run, 'htsim', round($3 / $5 * 1e9), $5, $3)"
        }
        # alternate which side goes first
        if [ $((run % 2)) = 1 ]; then ours; theirs; else theirs; ours; fi
    done
done
