// The htsim side of the speed comparison in docs/performance.md (our own
// scenario main; htsim itself is fetched and built outside this project by
// tools/htsim/compare.sh). It builds the path of tools/htsim/configs.py:
//
//   src -> NIC queue (access rate) -> pipe 0 -> bottleneck queue (rate,
//   limit) -> pipe 10 ms -> sink;  ACKs: receiver NIC queue (rate) -> pipe
//   10 ms -> switch queue toward the sender (access rate) -> pipe 0 -> src
//
// and prints the data packets sent and the CPU time of the event loop:
//
//   htsim_compare reno-1g|reno-10g|dctcp-100m
#include <time.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "config.h"
#include "dctcp.h"
#include "ecnqueue.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "route.h"
#include "tcp.h"

string ntoa(double n);

static double thread_cpu_s() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s reno-1g|reno-10g|dctcp-100m\n", argv[0]);
        return 2;
    }
    const char* name = argv[1];
    uint64_t access_bps, rate_bps;
    double duration_s;
    int flows;
    bool dctcp = false;
    mem_b limit_bytes, k_bytes = 0, bdp_bytes;
    const int pkt = 1500;
    if (!strcmp(name, "reno-1g")) {
        access_bps = 10000000000ULL, rate_bps = 1000000000ULL, duration_s = 30, flows = 1;
        limit_bytes = bdp_bytes = 1667 * pkt;
    } else if (!strcmp(name, "reno-10g")) {
        access_bps = 100000000000ULL, rate_bps = 10000000000ULL, duration_s = 3, flows = 1;
        limit_bytes = bdp_bytes = 16667 * pkt;
    } else if (!strcmp(name, "dctcp-100m")) {
        access_bps = 1000000000ULL, rate_bps = 100000000ULL, duration_s = 100, flows = 2;
        limit_bytes = 200 * pkt, k_bytes = 20 * pkt, dctcp = true;
        bdp_bytes = 167 * pkt;
    } else {
        fprintf(stderr, "unknown scenario %s\n", name);
        return 2;
    }
    Packet::set_packet_size(pkt);
    EventList& ev = EventList::getTheEventList();
    ev.setEndtime(timeFromSec(duration_s));
    const mem_b big = 1000000 * (mem_b)pkt;  // host queues: never full

    Queue nic(access_bps, big, ev, NULL);
    Pipe p_nic(0, ev);
    BaseQueue* bott = dctcp ? (BaseQueue*)new ECNQueue(rate_bps, limit_bytes, ev, NULL, k_bytes)
                            : (BaseQueue*)new Queue(rate_bps, limit_bytes, ev, NULL);
    Pipe p_bott(timeFromMs(10.0), ev);
    Queue rnic(rate_bps, big, ev, NULL);
    Pipe p_rnic(timeFromMs(10.0), ev);
    Queue back(access_bps, big, ev, NULL);
    Pipe p_back(0, ev);

    TcpRtxTimerScanner scanner(timeFromMs(10.0), ev);
    std::vector<TcpSrc*> srcs;
    for (int i = 0; i < flows; i++) {
        TcpSrc* src = dctcp ? new DCTCPSrc(NULL, NULL, ev) : new TcpSrc(NULL, NULL, ev);
        TcpSink* sink = new TcpSink();
        Route* out = new Route();
        out->push_back(&nic);
        out->push_back(&p_nic);
        out->push_back(bott);
        out->push_back(&p_bott);
        out->push_back(sink);
        Route* in = new Route();
        in->push_back(&rnic);
        in->push_back(&p_rnic);
        in->push_back(&back);
        in->push_back(&p_back);
        in->push_back(src);
        // htsim's TCP has no SACK: the losses of a slow start that overshoots
        // by a BDP take it one RTT each to repair (seconds of simulated
        // time at 1 Gb/s and more). Slow start ends at the BDP instead, where
        // our SACK sender is after its first recovery.
        src->set_ssthresh(bdp_bytes);
        src->connect(*out, *in, *sink, 0);
        scanner.registerTcp(*src);
        srcs.push_back(src);
    }
    double c0 = thread_cpu_s();
    while (ev.doNextEvent()) {
    }
    double cpu = thread_cpu_s() - c0;
    uint64_t sent = 0;
    for (TcpSrc* s : srcs) sent += s->_packets_sent / s->_mss;  // counted in bytes
    printf("htsim %s data_pkts %llu cpu %.3fs cpu_ns_per_pkt %.1f\n", name, (unsigned long long)sent, cpu,
           cpu * 1e9 / sent);
    return 0;
}
