/* Reno with BBRv3's skb_marked_lost hook (google/bbr, branch v3): every
 * segment the stack marks lost must arrive with its send-time snapshot
 * (one packet, sent with at least itself in flight, counted in tp->lost
 * since it left, not SACKed); a wrong one traps. `stop_after`: trap
 * (SIGFPE) at that call, to show the hook runs. */
#include <linux/module.h>
#include <net/tcp.h>

static int stop_after __read_mostly = 0;
module_param(stop_after, int, 0644);
static int calls;
static volatile u32 zero;

static void marked_lost(struct sock *sk, const struct sk_buff *skb)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct tcp_skb_cb *scb = TCP_SKB_CB(skb);
	u32 lost_since = tp->lost - scb->tx.lost;

	if (tcp_skb_pcount(skb) != 1 || scb->tx.in_flight < 1 || !scb->tx.delivered_mstamp)
		BUG();
	if (lost_since < 1 || lost_since > tp->lost)
		BUG();
	if (++calls == stop_after)
		calls = calls / zero;
}

static struct tcp_congestion_ops marked_lost_ops = {
	.ssthresh = tcp_reno_ssthresh,
	.cong_avoid = tcp_reno_cong_avoid,
	.undo_cwnd = tcp_reno_undo_cwnd,
	.skb_marked_lost = marked_lost,
	.name = "marked_lost",
};

static int __init marked_lost_register(void)
{
	return tcp_register_congestion_control(&marked_lost_ops);
}
module_init(marked_lost_register);
