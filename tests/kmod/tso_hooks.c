/* Reno (the kernel's helpers) with the skb-sizing hooks of
 * tcp_congestion_ops: `tso_segs` answers `segs` segments, `min_tso_segs`
 * answers `min_segs`; a parameter left at 0 leaves its hook out, so the
 * stack's generic autosize sizes the skbs. `tso_segs` traps when the stack
 * hands it another MSS than the socket's or, with `gso` set, another
 * sk_gso_max_size than `gso`.
 * One of dumbbell's own test modules for the kernel shim. */
#include <linux/module.h>
#include <net/tcp.h>

static unsigned int segs __read_mostly;
module_param(segs, uint, 0644);
MODULE_PARM_DESC(segs, "what tso_segs answers, segments (0: no tso_segs hook)");

static unsigned int min_segs __read_mostly;
module_param(min_segs, uint, 0644);
MODULE_PARM_DESC(min_segs, "what min_tso_segs answers, segments (0: no min_tso_segs hook)");

static unsigned int gso __read_mostly;
module_param(gso, uint, 0644);
MODULE_PARM_DESC(gso, "the sk_gso_max_size tso_segs expects, bytes (0: any)");

static u32 tso_hooks_tso_segs(struct sock *sk, unsigned int mss_now)
{
	BUG_ON(mss_now != tcp_sk(sk)->mss_cache || mss_now == 0);
	BUG_ON(gso && sk->sk_gso_max_size != gso);
	return segs;
}

static u32 tso_hooks_min_tso_segs(struct sock *sk)
{
	(void)sk;
	return min_segs;
}

static struct tcp_congestion_ops tso_hooks_ops __read_mostly = {
	.ssthresh = tcp_reno_ssthresh,
	.cong_avoid = tcp_reno_cong_avoid,
	.undo_cwnd = tcp_reno_undo_cwnd,
	.tso_segs = tso_hooks_tso_segs,
	.min_tso_segs = tso_hooks_min_tso_segs,
	.owner = THIS_MODULE,
	.name = "tso_hooks",
};

static int __init tso_hooks_register(void)
{
	if (!segs)
		tso_hooks_ops.tso_segs = NULL;
	if (!min_segs)
		tso_hooks_ops.min_tso_segs = NULL;
	return tcp_register_congestion_control(&tso_hooks_ops);
}

static void __exit tso_hooks_unregister(void)
{
	tcp_unregister_congestion_control(&tso_hooks_ops);
}

module_init(tso_hooks_register);
module_exit(tso_hooks_unregister);
MODULE_LICENSE("Dual MIT/GPL");
