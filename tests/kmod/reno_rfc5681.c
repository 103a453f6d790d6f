/* Reno as RFC 5681 describes it, in packets, written for dumbbell's tests
 * without the kernel's helpers:
 *  - slow start (cwnd < ssthresh): cwnd grows by the packets each ACK
 *    newly acknowledges (byte counting, RFC 3465), up to ssthresh; what is
 *    left over counts toward congestion avoidance;
 *  - congestion avoidance: one packet per window of acknowledged packets;
 *  - on loss, ssthresh = max(cwnd / 2, 2) (RFC 5681 eq. 4 halves
 *    FlightSize; Linux, and so dumbbell's stack, halve cwnd);
 *  - growth only while the window is in use (RFC 7661's cwnd validation,
 *    which Linux applies as tcp_is_cwnd_limited).
 */
#include <linux/module.h>
#include <net/tcp.h>

static void rfc_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	(void)ack;
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		u32 room = tp->snd_ssthresh - tp->snd_cwnd;
		u32 grow = acked < room ? acked : room;
		tp->snd_cwnd += grow;
		acked -= grow;
		if (tp->snd_cwnd > tp->snd_cwnd_clamp)
			tp->snd_cwnd = tp->snd_cwnd_clamp;
		if (acked == 0)
			return;
	}
	/* a counter of acknowledged packets; a full window is one more packet */
	if (tp->snd_cwnd_cnt >= tp->snd_cwnd) {
		tp->snd_cwnd_cnt = 0;
		tp->snd_cwnd++;
	}
	tp->snd_cwnd_cnt += acked;
	if (tp->snd_cwnd_cnt >= tp->snd_cwnd) {
		u32 w = tp->snd_cwnd;
		u32 more = tp->snd_cwnd_cnt / w;
		tp->snd_cwnd_cnt -= more * w;
		tp->snd_cwnd += more;
	}
	if (tp->snd_cwnd > tp->snd_cwnd_clamp)
		tp->snd_cwnd = tp->snd_cwnd_clamp;
}

static u32 rfc_ssthresh(struct sock *sk)
{
	u32 half = tcp_sk(sk)->snd_cwnd / 2;
	return half > 2 ? half : 2;
}

static u32 rfc_undo_cwnd(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

static struct tcp_congestion_ops rfc_reno = {
	.ssthresh = rfc_ssthresh,
	.cong_avoid = rfc_cong_avoid,
	.undo_cwnd = rfc_undo_cwnd,
	.name = "rfc5681",
};

static int __init rfc_register(void)
{
	return tcp_register_congestion_control(&rfc_reno);
}
module_init(rfc_register);
MODULE_LICENSE("Dual MIT/GPL");
