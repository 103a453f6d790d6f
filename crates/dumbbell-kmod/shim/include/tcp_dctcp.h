/*
 * dumbbell's kernel shim: the receiver-side CE tracking that DCTCP and
 * BBRv3 share (the kernel keeps it in net/ipv4/tcp_dctcp.h, beside the
 * modules; a module that includes "tcp_dctcp.h" finds this one unless a
 * copy lies beside it). Written for dumbbell from its documented
 * behaviour: when the CE state of arriving data changes, a pending
 * delayed ACK is sent at once for the data before the change, so that an
 * ACK never covers data of both states; the state and the sequence number
 * of the change are remembered, and ECE is demanded while CE is set.
 *
 * Licence: MIT OR Apache-2.0, as the rest of dumbbell.
 */
#ifndef DUMBBELL_TCP_DCTCP_H
#define DUMBBELL_TCP_DCTCP_H

#include <dumbbell_kmod.h>

static inline void dctcp_ece_ack_cwr(struct sock *sk, u32 ce_state)
{
	struct tcp_sock *tp = tcp_sk(sk);
	if (ce_state == 1)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

static inline void dctcp_ece_ack_update(struct sock *sk, enum tcp_ca_event evt,
					u32 *prior_rcv_nxt, u32 *ce_state)
{
	u32 new_ce_state = evt == CA_EVENT_ECN_IS_CE ? 1 : 0;
	if (*ce_state != new_ce_state) {
		if (inet_csk(sk)->icsk_ack.pending & ICSK_ACK_TIMER) {
			dctcp_ece_ack_cwr(sk, *ce_state);
			__tcp_send_ack(sk, *prior_rcv_nxt, 0);
		}
		inet_csk(sk)->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	*prior_rcv_nxt = tcp_sk(sk)->rcv_nxt;
	*ce_state = new_ce_state;
	dctcp_ece_ack_cwr(sk, new_ce_state);
}

#endif /* DUMBBELL_TCP_DCTCP_H */
