/* Does not compile: a statement lacks its semicolon (line 9). */
#include <linux/module.h>
#include <net/tcp.h>

static u32 broken_ssthresh(struct sock *sk)
{
	u32 half = tcp_snd_cwnd(tcp_sk(sk)) / 2;
	(void)half;
	return half
}

static struct tcp_congestion_ops broken_ops = {
	.ssthresh = broken_ssthresh,
	.cong_avoid = tcp_reno_cong_avoid,
	.undo_cwnd = tcp_reno_undo_cwnd,
	.name = "broken",
};

static int __init broken_register(void)
{
	return tcp_register_congestion_control(&broken_ops);
}
module_init(broken_register);
