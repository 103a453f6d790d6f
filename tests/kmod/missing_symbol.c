/* Calls a kernel function dumbbell's shim does not provide. */
#include <linux/module.h>
#include <net/tcp.h>

extern u32 tcp_imaginary_helper(struct sock *sk);

static u32 missing_ssthresh(struct sock *sk)
{
	return tcp_imaginary_helper(sk);
}

static struct tcp_congestion_ops missing_ops = {
	.ssthresh = missing_ssthresh,
	.cong_avoid = tcp_reno_cong_avoid,
	.undo_cwnd = tcp_reno_undo_cwnd,
	.name = "missing",
};

static int __init missing_register(void)
{
	return tcp_register_congestion_control(&missing_ops);
}
module_init(missing_register);
