"""Scalable TCP written in Python: the worked example of docs/controls.md.

Scalable TCP (T. Kelly, "Scalable TCP: Improving Performance in Highspeed
Wide Area Networks", ACM SIGCOMM CCR 33(2), 2003; Linux tcp_scalable.c):
above ssthresh the window grows by one packet every min(cwnd, ai_cnt)
packets acked, and a reduction removes cwnd >> md_shift packets.

Its Rust port is crates/dumbbell-core/src/cc/scalable.rs, registered as
"scalable"; tests/test_controls.py checks that both give the same tables
bit for bit. Run this file to compare them on a lossy path:

    .venv/bin/python examples/scalable.py
"""

from __future__ import annotations

import dumbbell as db
from dumbbell.controls import CongestionControl, tcp_cong_avoid_ai, tcp_slow_start


class ScalablePy(CongestionControl):
    name = "scalable_py"

    def __init__(self, ai_cnt: int = 100, md_shift: int = 3) -> None:
        self.ai_cnt = ai_cnt  # packets: above this window, +1/ai_cnt packet per ACK
        self.md_shift = md_shift  # a reduction removes cwnd >> md_shift packets

    def ssthresh(self, tp) -> int:
        return max(tp.snd_cwnd - (tp.snd_cwnd >> self.md_shift), 2)

    def cong_avoid(self, tp, ack: int, acked: int) -> None:
        if not tp.is_cwnd_limited:
            return
        if tp.in_slow_start():
            acked = tcp_slow_start(tp, acked)
            if acked == 0:
                return
        tcp_cong_avoid_ai(tp, min(tp.snd_cwnd, self.ai_cnt), acked)


def scenario(cc: object) -> db.Scenario:
    """Two flows through a 100 Mb/s bottleneck (RTT 22 ms) with 0.1 % loss."""
    s = db.dumbbell(2, 2, "1Gbps", "100Mbps", access_delay="1ms", bottleneck_delay="10ms",
                    queue=db.DropTail(limit_pkts=200), bottleneck_loss=0.001, duration_s=5.0)
    for i in (1, 2):
        s.add_flow(db.TcpFlow(src=f"snd{i}", dst=f"rcv{i}", start_s=0.5 * (i - 1), cc=cc))
    return s


if __name__ == "__main__":
    py = db.run(scenario(ScalablePy()))
    rust = db.run(scenario("scalable"))
    cols = ["name", "cc", "goodput_bps", "retransmits", "recoveries", "cwnd_pkts"]
    print(py.flows.select(cols))
    print(rust.flows.select(cols))
    same = py.flows.drop("cc").equals(rust.flows.drop("cc"))
    print("same flows table as the Rust port:", same)
