/* A fixed congestion window: cwnd is `window` packets, always.
 * One of dumbbell's own test modules for the kernel shim. */
#include <linux/module.h>
#include <net/tcp.h>

static unsigned int window __read_mostly = 20;
module_param(window, uint, 0644);
MODULE_PARM_DESC(window, "the congestion window, packets");

static void fixed_init(struct sock *sk)
{
	tcp_snd_cwnd_set(tcp_sk(sk), window);
}

static u32 fixed_ssthresh(struct sock *sk)
{
	(void)sk;
	return window;
}

static void fixed_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	(void)ack;
	(void)acked;
	tcp_snd_cwnd_set(tcp_sk(sk), window);
}

static u32 fixed_undo_cwnd(struct sock *sk)
{
	(void)sk;
	return window;
}

static struct tcp_congestion_ops fixed_ops __read_mostly = {
	.init = fixed_init,
	.ssthresh = fixed_ssthresh,
	.cong_avoid = fixed_cong_avoid,
	.undo_cwnd = fixed_undo_cwnd,
	.owner = THIS_MODULE,
	.name = "fixed",
};

static int __init fixed_register(void)
{
	return tcp_register_congestion_control(&fixed_ops);
}

static void __exit fixed_unregister(void)
{
	tcp_unregister_congestion_control(&fixed_ops);
}

module_init(fixed_register);
module_exit(fixed_unregister);
MODULE_LICENSE("Dual MIT/GPL");
