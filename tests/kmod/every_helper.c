/* Calls every helper of dumbbell's kernel shim and checks what each
 * returns (a wrong answer traps, which a run reports as a crash); the
 * window itself is Reno through the kernel's own helpers (tcp_reno_*). */
#include <linux/module.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/win_minmax.h>
#include <net/tcp.h>
#include <asm/div64.h>

#define CHECK(c) do { if (!(c)) BUG(); } while (0)

static int checks __read_mostly = 1;
module_param(checks, int, 0644);
static bool verbose __read_mostly;
module_param(verbose, bool, 0644);

struct helper_state { struct minmax filter; u32 acks; u64 last_ns; u32 last_jiffies; };

static void helper_arithmetic(void)
{
	u64 n = 1000000007ULL;
	u32 rem;
	CHECK(div_u64(n, 10) == 100000000ULL);
	CHECK(div64_u64(n, 1000000ULL) == 1000);
	CHECK(div64_ul(n, 7) == 142857143ULL);
	CHECK(div_s64(-21, 4) == -5);
	rem = do_div(n, 1000);
	CHECK(n == 1000000 && rem == 7);
	CHECK(fls64(0) == 0 && fls64(1) == 1 && fls64(1ULL << 40) == 41);
	CHECK(fls(0x80000000u) == 32);
	CHECK(min_t(u32, 3, 9) == 3 && max_t(s32, -1, 4) == 4);
	CHECK(min(2, 5) == 2 && max(2U, 5U) == 5U);
	CHECK(clamp(12, 0, 10) == 10);
	/* abs() of an unsigned difference is the distance (the kernel reads it
	 * as the signed type of its width; tcp_bbr.c relies on this) */
	{ u32 lo = 133060, hi = 140993; u64 wlo = 5, whi = 9;
	  CHECK(abs(lo - hi) == 7933 && abs(hi - lo) == 7933 && abs(-7) == 7);
	  CHECK(abs(wlo - whi) == 4); }
	CHECK(min_not_zero(0U, 4U) == 4U && min_not_zero(5U, 3U) == 3U && min_not_zero(6U, 0U) == 6U);
	CHECK(before(0xfffffff0u, 5u) && after(5u, 0xfffffff0u));
	CHECK(int_sqrt(1000000) == 1000);
	CHECK(likely(1) && !unlikely(0));
	BUILD_BUG_ON(sizeof(struct helper_state) > ICSK_CA_PRIV_SIZE);
}

static void helper_init(struct sock *sk)
{
	struct helper_state *s = inet_csk_ca(sk);
	u32 r;
	int i;
	if (checks)
		helper_arithmetic();
	for (i = 0; i < 100; i++) {
		r = get_random_u32_below(7);
		CHECK(r < 7);
	}
	(void)get_random_u32();
	minmax_reset(&s->filter, 0, 100);
	CHECK(minmax_get(&s->filter) == 100);
	CHECK(minmax_running_max(&s->filter, 10, 1, 50) == 100);
	CHECK(minmax_running_max(&s->filter, 10, 20, 30) == 30);
	CHECK(minmax_running_min(&s->filter, 10, 21, 10) == 10);
	s->last_ns = ktime_get_ns();
	s->last_jiffies = tcp_jiffies32;
	CHECK(tcp_sk(sk)->snd_ssthresh == TCP_INFINITE_SSTHRESH);
	CHECK(inet_csk(sk)->icsk_ca_state == TCP_CA_Open);
}

static void helper_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct helper_state *s = inet_csk_ca(sk);
	u64 ns = tcp_clock_ns();
	/* the clocks agree and never go back */
	CHECK(ns >= s->last_ns);
	CHECK(tcp_clock_us() == ns / 1000);
	CHECK(ktime_get_ns() == ns);
	CHECK(tp->tcp_mstamp == ns / 1000);
	CHECK((s32)(tcp_jiffies32 - s->last_jiffies) >= 0);
	CHECK((u32)(tcp_jiffies32 - (u32)(-300 * HZ)) == (u32)(ns / (NSEC_PER_SEC / HZ)));
	CHECK(msecs_to_jiffies(1000) == HZ);
	CHECK(usecs_to_jiffies(1) == 1);
	s->last_ns = ns;
	s->last_jiffies = tcp_jiffies32;
	CHECK(tcp_packets_in_flight(tp) <= tp->packets_out + tp->retrans_out);
	CHECK(tcp_min_rtt(tp) > 0);
	CHECK(tcp_snd_cwnd(tp) == tp->snd_cwnd);
	CHECK(tcp_in_slow_start(tp) == (tp->snd_cwnd < tp->snd_ssthresh));
	CHECK(tp->mss_cache > 0);
	s->acks++;
	tcp_reno_cong_avoid(sk, ack, acked);
}

static u32 helper_ssthresh(struct sock *sk)
{
	u32 r = tcp_reno_ssthresh(sk);
	CHECK(r >= 2 && r == max(tcp_snd_cwnd(tcp_sk(sk)) >> 1, 2U));
	return r;
}

static void helper_set_state(struct sock *sk, u8 new_state)
{
	CHECK(new_state <= TCP_CA_Loss);
	CHECK(new_state != inet_csk(sk)->icsk_ca_state || new_state == TCP_CA_Loss);
}

static void helper_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	(void)sk;
	CHECK(ev <= CA_EVENT_ECN_IS_CE);
}

static void helper_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	(void)sk;
	CHECK(sample->pkts_acked > 0);
	CHECK(sample->rtt_us == -1 || sample->rtt_us > 0);
}

static u32 helper_undo_cwnd(struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

static struct tcp_congestion_ops helper_ops __read_mostly = {
	.init = helper_init,
	.ssthresh = helper_ssthresh,
	.cong_avoid = helper_cong_avoid,
	.set_state = helper_set_state,
	.cwnd_event = helper_cwnd_event,
	.pkts_acked = helper_pkts_acked,
	.undo_cwnd = helper_undo_cwnd,
	.name = "every_helper",
};

static int __init helper_register(void)
{
	int r = register_btf_kfunc_id_set(BPF_PROG_TYPE_STRUCT_OPS, 0);
	if (r)
		return r;
	return tcp_register_congestion_control(&helper_ops);
}
module_init(helper_register);
MODULE_LICENSE("Dual MIT/GPL");
