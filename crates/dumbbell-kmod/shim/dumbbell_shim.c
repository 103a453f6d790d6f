/*
 * dumbbell's kernel shim: the functions a Linux TCP congestion-control
 * module calls, and the glue dumbbell-kmod calls the module's hooks
 * through. Written for dumbbell from the kernel's documented behaviour;
 * compiled into the same shared object as the module, so each loaded copy
 * (one per simulated host) has its own module statics and its own shim.
 *
 * Licence: MIT OR Apache-2.0, as the rest of dumbbell.
 */
#include <stdlib.h>
#include <errno.h>
#include <dumbbell_kmod.h>

/* ------------------------------------------------ the glue's interface */
/* The sender's state in dumbbell's units (cc::TcpSock), flat; mirrored by
 * `View` in crates/dumbbell-kmod/src/ffi.rs. Keep both in step. */
struct dumbbell_view {
	u64 now_ns;
	u64 pacing_rate;          /* bytes per second */
	u64 wstamp_ns;
	u64 delivered_mstamp_ns;
	u64 snd_cwnd_stamp_ns;
	u64 lsndtime_ns;
	u32 mss;
	u32 snd_cwnd;
	u32 snd_ssthresh;
	u32 snd_cwnd_cnt;
	u32 snd_cwnd_clamp;
	u32 prior_cwnd;
	u32 snd_una;
	u32 snd_nxt;
	u32 packets_out;
	u32 sacked_out;
	u32 lost_out;
	u32 retrans_out;
	u32 delivered;
	u32 delivered_ce;
	u32 lost;
	u32 app_limited;
	u32 srtt_us;              /* smoothed RTT, microseconds (not << 3) */
	u32 min_rtt_us;           /* ~0U: none yet */
	u32 max_packets_out;
	u8 ca_state;
	u8 is_cwnd_limited;
	u8 ecn_ok;
	u8 pacing_needed;         /* out: the module asked for pacing */
};

struct dumbbell_sock {
	struct tcp_sock tp;       /* first: a struct sock * is this */
	void *rng;                /* the connection's random stream */
};

enum dumbbell_hook {
	DB_INIT, DB_SSTHRESH, DB_CONG_AVOID, DB_SET_STATE, DB_CWND_EVENT,
	DB_IN_ACK_EVENT, DB_PKTS_ACKED, DB_UNDO_CWND, DB_CONG_CONTROL, DB_RELEASE,
	DB_SKB_MARKED_LOST, DB_TSO_SEGS, DB_MIN_TSO_SEGS
};

/* What dumbbell knows of a segment the stack has just marked lost
 * (cc::LostSegment); mirrored by `LostSegmentC` in ffi.rs. */
struct dumbbell_lost {
	u32 tx_in_flight;         /* in flight when it left, itself included */
	u32 lost;                 /* packets marked lost since it left, itself included */
	u8 is_app_limited;
};

/* which hooks the module has, and its flags (dumbbell_ops_caps) */
#define CAP_INIT (1u << 0)
#define CAP_SSTHRESH (1u << 1)
#define CAP_CONG_AVOID (1u << 2)
#define CAP_SET_STATE (1u << 3)
#define CAP_CWND_EVENT (1u << 4)
#define CAP_IN_ACK_EVENT (1u << 5)
#define CAP_PKTS_ACKED (1u << 6)
#define CAP_UNDO_CWND (1u << 7)
#define CAP_CONG_CONTROL (1u << 8)
#define CAP_RELEASE (1u << 9)
#define CAP_SKB_MARKED_LOST (1u << 10)
#define CAP_TSO_SEGS (1u << 11)
#define CAP_MIN_TSO_SEGS (1u << 12)
#define CAP_NEEDS_ECN (1u << 16)

static struct tcp_congestion_ops *ops;       /* the registered control */
static struct dumbbell_sock *cur;            /* the socket of the current hook */
static u64 cur_now_ns;
static u32 (*rand_cb)(void *rng, u32 below); /* dumbbell's stream: below 0 = full u32 */

/* Linux starts jiffies 300 s before wrap-around (INITIAL_JIFFIES), so that
 * wrap bugs show early; we start where a freshly booted kernel does. */
#define DB_INITIAL_JIFFIES ((u64)(u32)(-300 * HZ))

static u32 ns_to_jiffies(u64 ns) { return (u32)(DB_INITIAL_JIFFIES + ns / (NSEC_PER_SEC / HZ)); }
u64 dumbbell_jiffies(void) { return ns_to_jiffies(cur_now_ns); }
u64 dumbbell_clock_ns(void) { return cur_now_ns; }

u32 get_random_u32(void) { return rand_cb ? rand_cb(cur ? cur->rng : 0, 0) : 0; }
u32 get_random_u32_below(u32 ceil) { return ceil <= 1 || !rand_cb ? 0 : rand_cb(cur ? cur->rng : 0, ceil); }
void get_random_bytes(void *buf, size_t len)
{
	u8 *p = buf;
	while (len) {
		u32 r = get_random_u32();
		size_t n = len < 4 ? len : 4;
		memcpy(p, &r, n);
		p += n;
		len -= n;
	}
}

/* the namespace's sysctls, at Linux's defaults */
struct net dumbbell_init_net = { .ipv4 = { .sysctl_tcp_min_tso_segs = 2, .sysctl_tcp_tso_rtt_log = 9,
				      .sysctl_tcp_plb_enabled = 0 } };

void *kmalloc(size_t size, gfp_t flags) { (void)flags; return malloc(size); }
void *kzalloc(size_t size, gfp_t flags) { (void)flags; return calloc(1, size); }
void kfree(const void *p) { free((void *)p); }

/* ----------------------------------------------------- module params */
extern const struct dumbbell_param __start_dumbbell_params[] __attribute__((weak));
extern const struct dumbbell_param __stop_dumbbell_params[] __attribute__((weak));
extern int dumbbell_module_init(void) __attribute__((weak));

int dumbbell_param_count(void)
{
	if (!__start_dumbbell_params)
		return 0;
	return (int)(__stop_dumbbell_params - __start_dumbbell_params);
}

const char *dumbbell_param_name(int i) { return __start_dumbbell_params[i].name; }
const char *dumbbell_param_type(int i) { return __start_dumbbell_params[i].type; }

/* strict decimal (or 0x hex) parse: the whole string, within [lo, hi] */
static int parse_ll(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	long long v;
	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

int kstrtoint(const char *s, unsigned int base, int *res)
{
	long long v;
	(void)base;
	if (parse_ll(s, INT_MIN, INT_MAX, &v))
		return -EINVAL;
	*res = (int)v;
	return 0;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	long long v;
	(void)base;
	if (parse_ll(s, 0, UINT_MAX, &v))
		return -EINVAL;
	*res = (unsigned int)v;
	return 0;
}

int param_set_int(const char *val, const struct kernel_param *kp) { return kstrtoint(val, 0, kp->arg); }
int param_set_uint(const char *val, const struct kernel_param *kp) { return kstrtouint(val, 0, kp->arg); }
int param_set_bool(const char *val, const struct kernel_param *kp)
{
	bool *b = kp->arg;
	if (!strcmp(val, "1") || !strcmp(val, "y") || !strcmp(val, "Y") || !strcmp(val, "true"))
		*b = true;
	else if (!strcmp(val, "0") || !strcmp(val, "n") || !strcmp(val, "N") || !strcmp(val, "false"))
		*b = false;
	else
		return -EINVAL;
	return 0;
}
int param_set_uint_minmax(const char *val, const struct kernel_param *kp,
			  unsigned int lo, unsigned int hi)
{
	long long v;
	if (parse_ll(val, lo, hi, &v))
		return -EINVAL;
	*(unsigned int *)kp->arg = (unsigned int)v;
	return 0;
}
int param_get_int(char *buffer, const struct kernel_param *kp) { (void)buffer; (void)kp; return 0; }
int param_get_uint(char *buffer, const struct kernel_param *kp) { (void)buffer; (void)kp; return 0; }
int param_get_bool(char *buffer, const struct kernel_param *kp) { (void)buffer; (void)kp; return 0; }

/* 0, -ENOENT (no such parameter), -EINVAL (a value its type refuses) */
int dumbbell_param_set(const char *name, const char *val)
{
	int i, n = dumbbell_param_count();
	long long v;
	for (i = 0; i < n; i++) {
		const struct dumbbell_param *p = &__start_dumbbell_params[i];
		struct kernel_param kp = { p->name, p->ops, p->arg };
		if (strcmp(p->name, name))
			continue;
		if (p->ops)
			return p->ops->set ? p->ops->set(val, &kp) : -EINVAL;
		if (!strcmp(p->type, "int"))
			return param_set_int(val, &kp);
		if (!strcmp(p->type, "uint"))
			return param_set_uint(val, &kp);
		/* `bool` reaches the record as stdbool's `_Bool` */
		if (!strcmp(p->type, "bool") || !strcmp(p->type, "_Bool"))
			return param_set_bool(val, &kp);
		if (!strcmp(p->type, "invbool")) {
			int r = param_set_bool(val, &kp);
			if (!r)
				*(bool *)p->arg = !*(bool *)p->arg;
			return r;
		}
		if (!strcmp(p->type, "long") && !parse_ll(val, LONG_MIN, LONG_MAX, &v)) {
			*(long *)p->arg = (long)v;
			return 0;
		}
		if (!strcmp(p->type, "ulong") && !parse_ll(val, 0, LLONG_MAX, &v)) {
			*(unsigned long *)p->arg = (unsigned long)v;
			return 0;
		}
		if (!strcmp(p->type, "short") && !parse_ll(val, SHRT_MIN, SHRT_MAX, &v)) {
			*(short *)p->arg = (short)v;
			return 0;
		}
		if (!strcmp(p->type, "ushort") && !parse_ll(val, 0, USHRT_MAX, &v)) {
			*(unsigned short *)p->arg = (unsigned short)v;
			return 0;
		}
		if (!strcmp(p->type, "byte") && !parse_ll(val, 0, 255, &v)) {
			*(unsigned char *)p->arg = (unsigned char)v;
			return 0;
		}
		return -EINVAL;
	}
	return -ENOENT;
}

/* -------------------------------------------------- registration */
int tcp_validate_congestion_control(struct tcp_congestion_ops *ca)
{
	if (!ca->ssthresh || !ca->undo_cwnd || !(ca->cong_avoid || ca->cong_control))
		return -EINVAL;
	return 0;
}

int tcp_register_congestion_control(struct tcp_congestion_ops *type)
{
	int r = tcp_validate_congestion_control(type);
	if (r)
		return r;
	if (!ops)
		ops = type;
	return 0;
}

void tcp_unregister_congestion_control(struct tcp_congestion_ops *type)
{
	if (ops == type)
		ops = 0;
}

/* 0; -1000: no module_init; -1001: nothing registered; else init's error */
int dumbbell_load(u32 (*cb)(void *, u32))
{
	int r;
	rand_cb = cb;
	if (!dumbbell_module_init)
		return -1000;
	r = dumbbell_module_init();
	if (r)
		return r;
	return ops ? 0 : -1001;
}

const char *dumbbell_ops_name(void) { return ops ? ops->name : ""; }

u32 dumbbell_ops_caps(void)
{
	u32 c = 0;
	if (!ops)
		return 0;
	c |= ops->init ? CAP_INIT : 0;
	c |= ops->ssthresh ? CAP_SSTHRESH : 0;
	c |= ops->cong_avoid ? CAP_CONG_AVOID : 0;
	c |= ops->set_state ? CAP_SET_STATE : 0;
	c |= ops->cwnd_event ? CAP_CWND_EVENT : 0;
	c |= ops->in_ack_event ? CAP_IN_ACK_EVENT : 0;
	c |= ops->pkts_acked ? CAP_PKTS_ACKED : 0;
	c |= ops->undo_cwnd ? CAP_UNDO_CWND : 0;
	c |= ops->cong_control ? CAP_CONG_CONTROL : 0;
	c |= ops->release ? CAP_RELEASE : 0;
	c |= ops->skb_marked_lost ? CAP_SKB_MARKED_LOST : 0;
	c |= ops->tso_segs ? CAP_TSO_SEGS : 0;
	c |= ops->min_tso_segs ? CAP_MIN_TSO_SEGS : 0;
	c |= (ops->flags & TCP_CONG_NEEDS_ECN) ? CAP_NEEDS_ECN : 0;
	return c;
}

/* ------------------------------------------------------ the helpers */
/* Weak: a module that defines one of these itself (the kernel's own
 * tcp_cong.c helpers, built as their provider for a comparison; see
 * docs/kernel-modules.md) is called in their place, by every caller. */
#define DB_HELPER __attribute__((weak))

/* Slow start: grow by the packets acked, up to ssthresh; what is left
 * over goes to congestion avoidance. */
DB_HELPER u32 tcp_slow_start(struct tcp_sock *tp, u32 acked)
{
	u32 cwnd = min(tcp_snd_cwnd(tp) + acked, tp->snd_ssthresh);
	acked -= cwnd - tcp_snd_cwnd(tp);
	tcp_snd_cwnd_set(tp, min(cwnd, tp->snd_cwnd_clamp));
	return acked;
}

/* Additive increase: one packet per w packets acked (credits accrued
 * at a larger w first turn into one packet). */
DB_HELPER void tcp_cong_avoid_ai(struct tcp_sock *tp, u32 w, u32 acked)
{
	if (tp->snd_cwnd_cnt >= w) {
		tp->snd_cwnd_cnt = 0;
		tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp) + 1);
	}
	tp->snd_cwnd_cnt += acked;
	if (tp->snd_cwnd_cnt >= w) {
		u32 delta = tp->snd_cwnd_cnt / w;
		tp->snd_cwnd_cnt -= delta * w;
		tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp) + delta);
	}
	tcp_snd_cwnd_set(tp, min(tcp_snd_cwnd(tp), tp->snd_cwnd_clamp));
}

DB_HELPER void tcp_reno_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	(void)ack;
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	tcp_cong_avoid_ai(tp, tcp_snd_cwnd(tp), acked);
}

DB_HELPER u32 tcp_reno_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	return max(tcp_snd_cwnd(tp) >> 1U, 2U);
}

DB_HELPER u32 tcp_reno_undo_cwnd(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	return max(tcp_snd_cwnd(tp), tp->prior_cwnd);
}

/* Segments per TSO skb (Linux 6.12's autosize): about 1 ms of the pacing
 * rate (sk_pacing_shift), plus the largest skb halved for every 512 us of
 * min RTT (tcp_tso_rtt_log), at most the largest skb, at least
 * min_tso_segs. tcp_tso_segs caps it at sk_gso_max_segs. */
u32 tcp_tso_autosize(const struct sock *sk, unsigned int mss_now, int min_tso_segs)
{
	unsigned long bytes = READ_ONCE(sk->sk_pacing_rate) >> READ_ONCE(sk->sk_pacing_shift);
	u32 r = tcp_min_rtt(tcp_sk(sk)) >> sock_net(sk)->ipv4.sysctl_tcp_tso_rtt_log;
	if (r < 32)
		bytes += sk->sk_gso_max_size >> r;
	bytes = min_t(unsigned long, bytes, sk->sk_gso_max_size);
	return max_t(u32, bytes / mss_now, min_tso_segs);
}

void __tcp_send_ack(struct sock *sk, u32 rcv_nxt, u16 flags) { (void)sk; (void)rcv_nxt; (void)flags; }

/* The windowed filter: keeps the best three samples of the last `win`
 * time units so that the best can expire without losing the runners-up. */
static u32 minmax_subwin_update(struct minmax *m, u32 win, const struct minmax_sample *val)
{
	u32 dt = val->t - m->s[0].t;
	if (unlikely(dt > win)) {
		m->s[0] = m->s[1];
		m->s[1] = m->s[2];
		m->s[2] = *val;
		if (unlikely(val->t - m->s[0].t > win)) {
			m->s[0] = m->s[1];
			m->s[1] = m->s[2];
			m->s[2] = *val;
		}
	} else if (unlikely(m->s[1].t == m->s[0].t) && dt > win / 4) {
		m->s[2] = m->s[1] = *val;
	} else if (unlikely(m->s[2].t == m->s[1].t) && dt > win / 2) {
		m->s[2] = *val;
	}
	return m->s[0].v;
}

u32 minmax_running_max(struct minmax *m, u32 win, u32 t, u32 meas)
{
	struct minmax_sample val = { .t = t, .v = meas };
	if (unlikely(val.v >= m->s[0].v) || unlikely(val.t - m->s[2].t > win))
		return minmax_reset(m, t, meas);
	if (unlikely(val.v >= m->s[1].v))
		m->s[2] = m->s[1] = val;
	else if (unlikely(val.v >= m->s[2].v))
		m->s[2] = val;
	return minmax_subwin_update(m, win, &val);
}

u32 minmax_running_min(struct minmax *m, u32 win, u32 t, u32 meas)
{
	struct minmax_sample val = { .t = t, .v = meas };
	if (unlikely(val.v <= m->s[0].v) || unlikely(val.t - m->s[2].t > win))
		return minmax_reset(m, t, meas);
	if (unlikely(val.v <= m->s[1].v))
		m->s[2] = m->s[1] = val;
	else if (unlikely(val.v <= m->s[2].v))
		m->s[2] = val;
	return minmax_subwin_update(m, win, &val);
}

/* ---------------------------------------------------- sockets, hooks */
void *dumbbell_sock_new(void *rng)
{
	struct dumbbell_sock *s = calloc(1, sizeof(*s));
	struct sock *sk;
	if (!s)
		return 0;
	sk = &s->tp.inet_conn.icsk_inet.sk;
	s->rng = rng;
	sk->sk_state = TCP_ESTABLISHED;
	sk->sk_pacing_shift = 10;
	sk->sk_max_pacing_rate = ~0UL;
	sk->sk_pacing_status = SK_PACING_NONE;
	sk->sk_gso_max_size = GSO_LEGACY_MAX_SIZE;
	sk->sk_gso_max_segs = 65535;
	sk->sk_sndbuf = 4 << 20;
	s->tp.inet_conn.icsk_ca_ops = ops;
	s->tp.inet_conn.icsk_ca_initialized = 1;
	return s;
}

void dumbbell_sock_free(void *p) { free(p); }

static void sync_in(struct dumbbell_sock *s, const struct dumbbell_view *v)
{
	struct tcp_sock *tp = &s->tp;
	struct sock *sk = &tp->inet_conn.icsk_inet.sk;
	cur_now_ns = v->now_ns;
	sk->sk_pacing_rate = v->pacing_rate;
	tp->tcp_mstamp = v->now_ns / NSEC_PER_USEC;
	tp->tcp_clock_cache = v->now_ns;
	tp->tcp_wstamp_ns = v->wstamp_ns;
	tp->delivered_mstamp = v->delivered_mstamp_ns / NSEC_PER_USEC;
	tp->snd_cwnd_stamp = ns_to_jiffies(v->snd_cwnd_stamp_ns);
	tp->lsndtime = ns_to_jiffies(v->lsndtime_ns);
	tp->mss_cache = v->mss;
	tp->snd_cwnd = v->snd_cwnd;
	tp->snd_ssthresh = v->snd_ssthresh;
	tp->snd_cwnd_cnt = v->snd_cwnd_cnt;
	tp->snd_cwnd_clamp = v->snd_cwnd_clamp;
	tp->prior_cwnd = v->prior_cwnd;
	tp->snd_una = v->snd_una;
	tp->snd_nxt = v->snd_nxt;
	tp->packets_out = v->packets_out;
	tp->sacked_out = v->sacked_out;
	tp->lost_out = v->lost_out;
	tp->retrans_out = v->retrans_out;
	tp->delivered = v->delivered;
	tp->delivered_ce = v->delivered_ce;
	tp->lost = v->lost;
	tp->app_limited = v->app_limited;
	tp->srtt_us = v->srtt_us << 3;
	tp->rtt_min.s[0].v = v->min_rtt_us;
	tp->rtt_min.s[0].t = (u32)(v->now_ns / NSEC_PER_USEC);
	tp->max_packets_out = v->max_packets_out;
	tp->is_cwnd_limited = v->is_cwnd_limited;
	tp->ecn_flags = (tp->ecn_flags & ~TCP_ECN_OK) | (v->ecn_ok ? TCP_ECN_OK : 0);
	tp->inet_conn.icsk_ca_state = v->ca_state;
}

static void sync_out(const struct dumbbell_sock *s, struct dumbbell_view *v)
{
	const struct tcp_sock *tp = &s->tp;
	const struct sock *sk = &tp->inet_conn.icsk_inet.sk;
	v->snd_cwnd = tp->snd_cwnd;
	v->snd_ssthresh = tp->snd_ssthresh;
	v->snd_cwnd_cnt = tp->snd_cwnd_cnt;
	v->snd_cwnd_clamp = tp->snd_cwnd_clamp;
	v->prior_cwnd = tp->prior_cwnd;
	v->app_limited = tp->app_limited;
	v->pacing_rate = sk->sk_pacing_rate;
	v->pacing_needed = sk->sk_pacing_status != SK_PACING_NONE;
}

/* One hook call: the view in, the hook, the control's fields out. */
u32 dumbbell_hook(void *p, struct dumbbell_view *v, int hook, u32 a, u32 b, const void *sample)
{
	struct dumbbell_sock *s = p;
	struct sock *sk = &s->tp.inet_conn.icsk_inet.sk;
	/* a module may hand a socket to other ops (DCTCP falls back to its
	 * Reno ops without ECN): every hook goes through the socket's ops */
	const struct tcp_congestion_ops *o = s->tp.inet_conn.icsk_ca_ops;
	u32 ret = 0;
	cur = s;
	sync_in(s, v);
	switch (hook) {
	case DB_INIT:
		if (o->init)
			o->init(sk);
		break;
	case DB_SSTHRESH:
		ret = o->ssthresh(sk);
		break;
	case DB_CONG_AVOID:
		if (o->cong_avoid)
			o->cong_avoid(sk, a, b);
		break;
	case DB_SET_STATE:
		if (o->set_state)
			o->set_state(sk, (u8)a);
		break;
	case DB_CWND_EVENT:
		if (o->cwnd_event)
			o->cwnd_event(sk, (enum tcp_ca_event)a);
		break;
	case DB_IN_ACK_EVENT:
		if (o->in_ack_event)
			o->in_ack_event(sk, a);
		break;
	case DB_PKTS_ACKED:
		if (o->pkts_acked)
			o->pkts_acked(sk, sample);
		break;
	case DB_UNDO_CWND:
		ret = o->undo_cwnd ? o->undo_cwnd(sk) : tcp_reno_undo_cwnd(sk);
		break;
	case DB_CONG_CONTROL:
		if (!o->cong_control)
			break;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
		o->cong_control(sk, a, (int)b, sample);
#else
		o->cong_control(sk, sample);
#endif
		break;
	case DB_RELEASE:
		if (o->release)
			o->release(sk);
		break;
	case DB_SKB_MARKED_LOST:
		if (o->skb_marked_lost) {
			const struct dumbbell_lost *l = sample;
			struct sk_buff skb;
			memset(&skb, 0, sizeof(skb));
			skb.pcount = 1;
			skb.cb.tx.in_flight = l->tx_in_flight;
			skb.cb.tx.lost = s->tp.lost - l->lost;
			skb.cb.tx.is_app_limited = l->is_app_limited;
			/* not SACKed: the stack marks only unSACKed segments lost */
			skb.cb.tx.delivered_mstamp = 1;
			o->skb_marked_lost(sk, &skb);
		}
		break;
	case DB_TSO_SEGS:
		/* tcp_tso_segs asks the socket's ops for the skb's segments (a:
		 * the device's gso_max_size; the view's pacing rate is the one
		 * the stack's autosize reads); *sample: whether they have it */
		*(u32 *)sample = o->tso_segs != 0;
		if (o->tso_segs) {
			unsigned int gso = sk->sk_gso_max_size;
			sk->sk_gso_max_size = a;
			ret = o->tso_segs(sk, s->tp.mss_cache);
			sk->sk_gso_max_size = gso;
		}
		break;
	case DB_MIN_TSO_SEGS:
		/* the floor of the generic autosize; *sample as above */
		*(u32 *)sample = o->min_tso_segs != 0;
		if (o->min_tso_segs)
			ret = o->min_tso_segs(sk);
		break;
	}
	sync_out(s, v);
	cur = 0;
	return ret;
}

/* The module's private state of a socket (for comparisons). */
const void *dumbbell_sock_priv(const void *p, u32 *len)
{
	const struct dumbbell_sock *s = p;
	*len = sizeof(s->tp.inet_conn.icsk_ca_priv);
	return s->tp.inet_conn.icsk_ca_priv;
}
