/* Reno that divides by zero on the `crash_after`-th call of cong_avoid. */
#include <linux/module.h>
#include <net/tcp.h>

static int crash_after __read_mostly = 50;
module_param(crash_after, int, 0644);
static int calls;
static volatile u32 zero;

static void crash_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	if (++calls >= crash_after)
		tcp_snd_cwnd_set(tcp_sk(sk), acked / zero);
	tcp_reno_cong_avoid(sk, ack, acked);
}

static struct tcp_congestion_ops crash_ops = {
	.ssthresh = tcp_reno_ssthresh,
	.cong_avoid = crash_cong_avoid,
	.undo_cwnd = tcp_reno_undo_cwnd,
	.name = "crashes",
};

static int __init crash_register(void)
{
	return tcp_register_congestion_control(&crash_ops);
}
module_init(crash_register);
