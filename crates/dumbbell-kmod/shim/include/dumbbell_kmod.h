/*
 * dumbbell's kernel shim: the declarations a Linux TCP congestion-control
 * module expects from <net/tcp.h> and friends, written for dumbbell from
 * the kernel's documented behaviour (Documentation/networking, the
 * tcp_congestion_ops contract). No kernel header is copied: the structures
 * hold only the fields congestion-control modules read or write, in our
 * own layout, and every helper is our own code (dumbbell_shim.c).
 *
 * Compile-time parameters (set by dumbbell-kmod):
 *   LINUX_VERSION_CODE  the kernel whose API the module is written for
 *                       (default 6.12.0); selects hook signatures
 *   HZ                  jiffies per second (default 250, Debian's kernel)
 *
 * Licence: MIT OR Apache-2.0, as the rest of dumbbell.
 */
#ifndef DUMBBELL_KMOD_H
#define DUMBBELL_KMOD_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <limits.h>

/* ------------------------------------------------------------ versions */
#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#ifndef LINUX_VERSION_CODE
#define LINUX_VERSION_CODE KERNEL_VERSION(6, 12, 0)
#endif
#ifndef HZ
#define HZ 250
#endif

/* --------------------------------------------------------------- types */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef u8 __u8;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef s32 __s32;
typedef s64 __s64;
typedef u16 __be16;
typedef u32 __be32;
typedef u32 __wsum;
typedef s64 ktime_t;
typedef unsigned int gfp_t;

/* --------------------------------------------------- compiler helpers */
#define __read_mostly
#define __init
#define __exit
#define __always_inline inline __attribute__((always_inline))
#define __maybe_unused __attribute__((unused))
#define __packed __attribute__((packed))
#define __aligned(x) __attribute__((aligned(x)))
#define __cacheline_aligned
#define __rcu
#define __user
#define __force
#define __must_check
#define noinline __attribute__((noinline))
#define notrace
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define barrier() __asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) do { *(volatile __typeof__(x) *)&(x) = (v); } while (0)
#define ACCESS_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#define BUILD_BUG_ON(cond) _Static_assert(!(cond), "BUILD_BUG_ON: " #cond)
#define BUILD_BUG_ON_ZERO(e) (0)
#define BUG_ON(cond) do { if (cond) __builtin_trap(); } while (0)
#define BUG() __builtin_trap()
#define WARN_ON(cond) ({ int __w = !!(cond); __w; })
#define WARN_ON_ONCE(cond) WARN_ON(cond)
#define WARN_ONCE(cond, ...) WARN_ON(cond)
#define WARN(cond, ...) WARN_ON(cond)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define IS_ENABLED(x) 0
#define EXPORT_SYMBOL(x)
#define EXPORT_SYMBOL_GPL(x)
#define EXPORT_IPV6_MOD(x)
#define EXPORT_IPV6_MOD_GPL(x)
#define THIS_MODULE ((struct module *)0)
#define pr_debug(...) do { } while (0)
#define pr_info(...) do { } while (0)
#define pr_warn(...) do { } while (0)
#define pr_err(...) do { } while (0)
#define pr_notice(...) do { } while (0)
#define printk(...) do { } while (0)
#define pr_fmt(fmt) fmt

/* min/max family: each evaluates its arguments once (each macro's locals
 * have their own names, so that one may take another's as arguments) */
#define min(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b) ({ t _a = (a); t _b = (b); _a < _b ? _a : _b; })
#define max_t(t, a, b) ({ t _a = (a); t _b = (b); _a > _b ? _a : _b; })
#define min3(a, b, c) min(min(a, b), c)
#define max3(a, b, c) max(max(a, b), c)
#define min_not_zero(a, b) ({ __typeof__(a) _mz_a = (a); __typeof__(b) _mz_b = (b); \
	_mz_a == 0 ? _mz_b : (_mz_b == 0 ? _mz_a : (_mz_a < _mz_b ? _mz_a : _mz_b)); })
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi) min_t(t, max_t(t, v, lo), hi)
#define clamp_val(v, lo, hi) clamp_t(__typeof__(v), v, lo, hi)
/* The kernel's abs() reads an unsigned argument as the signed type of its
 * width: abs(a - b) of two u32 is their distance, as long as it fits in an
 * int (tcp_bbr.c's long-term bandwidth check relies on this). */
static inline long long db_abs_ll(long long v) { return v < 0 ? -v : v; }
static inline long db_abs_l(long v) { return v < 0 ? -v : v; }
static inline int db_abs_i(int v) { return v < 0 ? -v : v; }
static inline short db_abs_s(short v) { return v < 0 ? -v : v; }
static inline signed char db_abs_c(signed char v) { return v < 0 ? -v : v; }
#define abs(x) _Generic((x), \
	long long: db_abs_ll((long long)(x)), unsigned long long: db_abs_ll((long long)(x)), \
	long: db_abs_l((long)(x)), unsigned long: db_abs_l((long)(x)), \
	int: db_abs_i((int)(x)), unsigned int: db_abs_i((int)(x)), \
	short: db_abs_s((short)(x)), unsigned short: db_abs_s((short)(x)), \
	char: db_abs_c((signed char)(x)), signed char: db_abs_c((signed char)(x)), \
	unsigned char: db_abs_c((signed char)(x)))
#define swap(a, b) do { __typeof__(a) _t = (a); (a) = (b); (b) = _t; } while (0)
#define BITS_PER_TYPE(t) (sizeof(t) * 8)
#define __stringify_1(x...) #x
#define __stringify(x...) __stringify_1(x)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define DIV_ROUND_UP_ULL(n, d) DIV_ROUND_UP((unsigned long long)(n), (d))
#define DIV_ROUND_CLOSEST(x, d) (((x) + ((d) / 2)) / (d))
#define BIT(n) (1UL << (n))
#define U8_MAX ((u8)~0U)
#define U16_MAX ((u16)~0U)
#define U32_MAX ((u32)~0U)
#define U64_MAX ((u64)~0ULL)
#define S32_MAX ((s32)(U32_MAX >> 1))
#define S64_MAX ((s64)(U64_MAX >> 1))

/* cmpxchg: compare and exchange (the simulator is single-threaded) */
#define cmpxchg(ptr, old, new) ({ __typeof__(*(ptr)) _o = (old), _c = *(ptr); \
	if (_c == _o) *(ptr) = (new); _c; })

/* --------------------------------------------------------- arithmetic */
static inline u64 div_u64(u64 n, u32 d) { return n / d; }
static inline s64 div_s64(s64 n, s32 d) { return n / d; }
static inline u64 div64_u64(u64 n, u64 d) { return n / d; }
static inline s64 div64_s64(s64 n, s64 d) { return n / d; }
static inline u64 div64_ul(u64 n, unsigned long d) { return n / d; }
static inline long div64_long(s64 n, long d) { return n / d; }
static inline u64 div_u64_rem(u64 n, u32 d, u32 *rem) { *rem = n % d; return n / d; }
/* do_div(n, base): n becomes n / base, evaluates to the remainder */
#define do_div(n, base) ({ u32 __b = (base); u32 __r = (u32)((u64)(n) % __b); \
	(n) = (u64)(n) / __b; __r; })
/* fls: position of the most significant set bit, 1-based; 0 for 0 */
static inline int fls(unsigned int x) { return x ? 32 - __builtin_clz(x) : 0; }
static inline int fls64(u64 x) { return x ? 64 - __builtin_clzll(x) : 0; }
static inline int __fls(unsigned long x) { return 63 - __builtin_clzl(x); }
static inline unsigned long __ffs(unsigned long x) { return __builtin_ctzl(x); }
static inline int ilog2_u64(u64 x) { return fls64(x) - 1; }
#define ilog2(n) ilog2_u64(n)
static inline u64 int_sqrt(u64 x) {
	u64 r = 0, b = 1ULL << 62;
	while (b > x) b >>= 2;
	while (b) { if (x >= r + b) { x -= r + b; r = (r >> 1) + b; } else { r >>= 1; } b >>= 2; }
	return r;
}
static inline u64 int_sqrt64(u64 x) { return int_sqrt(x); }

/* sequence-number comparison with wrap-around */
static inline bool before(u32 seq1, u32 seq2) { return (s32)(seq1 - seq2) < 0; }
#define after(seq2, seq1) before(seq1, seq2)

/* ------------------------------------------------------------- time */
#define MSEC_PER_SEC 1000L
#define USEC_PER_MSEC 1000L
#define NSEC_PER_USEC 1000L
#define NSEC_PER_MSEC 1000000L
#define USEC_PER_SEC 1000000L
#define NSEC_PER_SEC 1000000000L
#define TCP_TS_HZ 1000
#define jiffies ((unsigned long)dumbbell_jiffies())
#define jiffies_64 ((u64)dumbbell_jiffies())
#define tcp_jiffies32 ((u32)dumbbell_jiffies())
#define tcp_time_stamp_raw() ((u32)(dumbbell_clock_ns() / NSEC_PER_MSEC))
#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)
#define time_after_eq(a, b) ((long)((a) - (b)) >= 0)
#define time_before_eq(a, b) time_after_eq(b, a)
#define time_after32(a, b) ((s32)((u32)(b) - (u32)(a)) < 0)
#define time_before32(b, a) time_after32(a, b)
u64 dumbbell_jiffies(void);
u64 dumbbell_clock_ns(void);
static inline unsigned long msecs_to_jiffies(unsigned int ms) { return ((u64)ms * HZ + 999) / 1000; }
static inline unsigned long usecs_to_jiffies(unsigned int us) { return ((u64)us * HZ + 999999) / 1000000; }
static inline unsigned int jiffies_to_msecs(unsigned long j) { return (u64)j * 1000 / HZ; }
static inline unsigned int jiffies_to_usecs(unsigned long j) { return (u64)j * 1000000 / HZ; }
static inline u64 ktime_get_ns(void) { return dumbbell_clock_ns(); }
static inline ktime_t ktime_get(void) { return (ktime_t)dumbbell_clock_ns(); }
static inline u64 ktime_get_boot_ns(void) { return dumbbell_clock_ns(); }
static inline u64 ktime_get_mono_fast_ns(void) { return dumbbell_clock_ns(); }
static inline s64 ktime_to_ns(ktime_t t) { return t; }
static inline s64 ktime_to_us(ktime_t t) { return t / 1000; }
static inline s64 ktime_us_delta(ktime_t a, ktime_t b) { return (a - b) / 1000; }
static inline u64 tcp_clock_ns(void) { return dumbbell_clock_ns(); }
static inline u64 tcp_clock_us(void) { return dumbbell_clock_ns() / NSEC_PER_USEC; }

/* ----------------------------------------------------------- random */
u32 get_random_u32(void);
u32 get_random_u32_below(u32 ceil);
static inline u32 prandom_u32(void) { return get_random_u32(); }
static inline u32 prandom_u32_max(u32 ceil) { return get_random_u32_below(ceil); }
static inline u16 get_random_u16(void) { return (u16)get_random_u32(); }
static inline u8 get_random_u8(void) { return (u8)get_random_u32(); }
void get_random_bytes(void *buf, size_t len);

/* ------------------------------------------------------- module glue */
struct module;
struct kernel_param;
struct kernel_param_ops {
	unsigned int flags;
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buffer, const struct kernel_param *kp);
	void (*free)(void *arg);
};
struct kernel_param {
	const char *name;
	const struct kernel_param_ops *ops;
	void *arg;
};
/* One record per module parameter, in the section the loader reads. */
struct dumbbell_param {
	const char *name;
	const char *type;
	void *arg;
	const struct kernel_param_ops *ops;
};
#define DUMBBELL_PARAM_(pname, ptype, parg, pops) \
	static const struct dumbbell_param __dumbbell_param_##pname \
	__attribute__((used, section("dumbbell_params"), aligned(32))) = \
	{ #pname, ptype, (void *)(parg), pops }
#define module_param_named(name, var, type, perm) DUMBBELL_PARAM_(name, #type, &(var), 0)
#define module_param(var, type, perm) module_param_named(var, var, type, perm)
#define module_param_cb(name, ops, arg, perm) DUMBBELL_PARAM_(name, "cb", arg, ops)
#define module_param_array(name, type, nump, perm)
#define MODULE_PARM_DESC(p, d)
#define MODULE_AUTHOR(x)
#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_VERSION(x)
#define MODULE_ALIAS(x)
#define MODULE_ALIAS_TCP_CONG(x)
#define MODULE_INFO(a, b)
#define MODULE_SOFTDEP(x)
#define module_init(fn) int dumbbell_module_init(void) { return fn(); }
#define module_exit(fn) void dumbbell_module_exit(void) { fn(); }
#define late_initcall(fn) module_init(fn)
int param_set_uint_minmax(const char *val, const struct kernel_param *kp,
			  unsigned int min, unsigned int max);
int param_set_int(const char *val, const struct kernel_param *kp);
int param_set_uint(const char *val, const struct kernel_param *kp);
int param_set_bool(const char *val, const struct kernel_param *kp);
int param_get_int(char *buffer, const struct kernel_param *kp);
int param_get_uint(char *buffer, const struct kernel_param *kp);
int param_get_bool(char *buffer, const struct kernel_param *kp);
int kstrtouint(const char *s, unsigned int base, unsigned int *res);
int kstrtoint(const char *s, unsigned int base, int *res);

/* BTF / BPF registration: nothing to register in a simulator */
#define __bpf_kfunc
#define __bpf_kfunc_start_defs()
#define __bpf_kfunc_end_defs()
#define BTF_KFUNCS_START(name) static const int name __maybe_unused = 0;
#define BTF_KFUNCS_END(name)
#define BTF_SET8_START(name) BTF_KFUNCS_START(name)
#define BTF_SET8_END(name)
#define BTF_ID_FLAGS(...)
#define BTF_ID(...)
#define BPF_PROG_TYPE_STRUCT_OPS 0
struct btf_kfunc_id_set { struct module *owner; const void *set; };
static inline int register_btf_kfunc_id_set(int type, const struct btf_kfunc_id_set *s)
{ (void)type; (void)s; return 0; }

/* statistics: not kept */
#define NET_INC_STATS(net, field) do { } while (0)
#define NET_ADD_STATS(net, field, n) do { } while (0)
#define __NET_INC_STATS(net, field) do { } while (0)
/* The network namespace: the sysctls a module reads, at Linux's defaults
 * (one namespace per loaded copy, dumbbell_shim.c). */
struct netns_ipv4 {
	int sysctl_tcp_min_tso_segs;   /* 2 */
	u8 sysctl_tcp_tso_rtt_log;     /* 9: 512 us steps of min RTT */
	u8 sysctl_tcp_plb_enabled;     /* 0: Protective Load Balancing off */
};
struct net { struct netns_ipv4 ipv4; };
extern struct net dumbbell_init_net;
struct sock;
static inline struct net *sock_net(const struct sock *sk) { (void)sk; return &dumbbell_init_net; }
enum { LINUX_MIB_TCPHYSTARTTRAINDETECT, LINUX_MIB_TCPHYSTARTTRAINCWND,
       LINUX_MIB_TCPHYSTARTDELAYDETECT, LINUX_MIB_TCPHYSTARTDELAYCWND };

/* memory */
#define GFP_KERNEL 0
#define GFP_ATOMIC 0
void *kmalloc(size_t size, gfp_t flags);
void *kzalloc(size_t size, gfp_t flags);
void kfree(const void *p);

/* ------------------------------------------------- windowed min/max */
/* Kathleen Nichols' windowed filter, as lib/win_minmax.c documents it:
 * the best, second-best and third-best samples of the window. */
struct minmax_sample { u32 t; u32 v; };
struct minmax { struct minmax_sample s[3]; };
static inline u32 minmax_get(const struct minmax *m) { return m->s[0].v; }
static inline u32 minmax_reset(struct minmax *m, u32 t, u32 meas)
{
	struct minmax_sample val = { .t = t, .v = meas };
	m->s[2] = m->s[1] = m->s[0] = val;
	return m->s[0].v;
}
u32 minmax_running_max(struct minmax *m, u32 win, u32 t, u32 meas);
u32 minmax_running_min(struct minmax *m, u32 win, u32 t, u32 meas);

/* ------------------------------------------------------ TCP constants */
#define TCP_INFINITE_SSTHRESH 0x7fffffff
#define TCP_INIT_CWND 10
#define TCP_CA_NAME_MAX 16
#define TCP_CONG_NON_RESTRICTED 0x1
#define TCP_CONG_NEEDS_ECN 0x2
/* BBRv3's kernel (google/bbr, branch v3): the control wants the receiver's
 * CE events (CA_EVENT_ECN_IS_CE/NO_CE) without needing ECN */
#define TCP_CONG_WANTS_CE_EVENTS 0x4
#define TCP_CONG_MASK (TCP_CONG_NON_RESTRICTED | TCP_CONG_NEEDS_ECN | TCP_CONG_WANTS_CE_EVENTS)
#define TCP_ECN_OK 1
#define TCP_ECN_QUEUE_CWR 2
#define TCP_ECN_DEMAND_CWR 4
#define TCP_ECN_SEEN 8
/* BBRv3's kernel: the route marks at a shallow threshold (never set by
 * dumbbell: the port's `ecn_low` is false by default), and ECT on every
 * packet, retransmissions included */
#define TCP_ECN_LOW 16
#define TCP_ECN_ECT_PERMANENT 32
/* 160 bytes: BBRv3's kernel enlarges the area (its struct bbr takes 152) */
#define ICSK_CA_PRIV_SIZE (20 * sizeof(u64))
#define ICSK_ACK_SCHED 1
#define ICSK_ACK_TIMER 2
#define ICSK_ACK_PUSHED 4
#define ICSK_ACK_PUSHED2 8
#define ICSK_ACK_NOW 16
#define GSO_LEGACY_MAX_SIZE 65536u
#define GSO_MAX_SIZE 65536u
#define MAX_TCP_HEADER 320
#define TCP_PLB_SCALE 8
#define FLAG_DATA_ACKED 0x04
#define FLAG_ECE 0x40

enum tcp_ca_state {
	TCP_CA_Open = 0,
	TCP_CA_Disorder = 1,
	TCP_CA_CWR = 2,
	TCP_CA_Recovery = 3,
	TCP_CA_Loss = 4
};
#define TCPF_CA_Open (1 << TCP_CA_Open)
#define TCPF_CA_Disorder (1 << TCP_CA_Disorder)
#define TCPF_CA_CWR (1 << TCP_CA_CWR)
#define TCPF_CA_Recovery (1 << TCP_CA_Recovery)
#define TCPF_CA_Loss (1 << TCP_CA_Loss)

enum tcp_ca_event {
	CA_EVENT_TX_START,
	CA_EVENT_CWND_RESTART,
	CA_EVENT_COMPLETE_CWR,
	CA_EVENT_LOSS,
	CA_EVENT_ECN_NO_CE,
	CA_EVENT_ECN_IS_CE,
	CA_EVENT_TLP_RECOVERY,  /* BBRv3's kernel: a TLP repaired a loss (never raised) */
};

enum tcp_ca_ack_event_flags {
	CA_ACK_SLOWPATH = (1 << 0),
	CA_ACK_WIN_UPDATE = (1 << 1),
	CA_ACK_ECE = (1 << 2),
};

enum sk_pacing { SK_PACING_NONE, SK_PACING_NEEDED, SK_PACING_FQ };

enum { TCP_ESTABLISHED = 1, TCP_SYN_SENT, TCP_SYN_RECV, TCP_FIN_WAIT1, TCP_FIN_WAIT2,
       TCP_TIME_WAIT, TCP_CLOSE, TCP_CLOSE_WAIT, TCP_LAST_ACK, TCP_LISTEN, TCP_CLOSING };

/* inet_diag attribute numbers and the get_info payloads (never read) */
enum { INET_DIAG_NONE, INET_DIAG_MEMINFO, INET_DIAG_INFO, INET_DIAG_VEGASINFO,
       INET_DIAG_CONG, INET_DIAG_TOS, INET_DIAG_TCLASS, INET_DIAG_SKMEMINFO,
       INET_DIAG_SHUTDOWN, INET_DIAG_DCTCPINFO, INET_DIAG_PROTOCOL,
       INET_DIAG_SKV6ONLY, INET_DIAG_LOCALS, INET_DIAG_PEERS, INET_DIAG_PAD,
       INET_DIAG_MARK, INET_DIAG_BBRINFO };
struct tcpvegas_info { u32 tcpv_enabled, tcpv_rttcnt, tcpv_rtt, tcpv_minrtt; };
struct tcp_dctcp_info { u16 dctcp_enabled, dctcp_ce_state; u32 dctcp_alpha, dctcp_ab_ecn, dctcp_ab_tot; };
struct tcp_bbr_info {
	u32 bbr_bw_lo, bbr_bw_hi, bbr_min_rtt, bbr_pacing_gain, bbr_cwnd_gain;
	/* BBRv3's kernel adds: */
	u32 bbr_bw_hi_lsb, bbr_bw_hi_msb, bbr_bw_lo_lsb, bbr_bw_lo_msb;
	u8 bbr_mode, bbr_phase, unused1, bbr_version;
	u32 bbr_inflight_lo, bbr_inflight_hi, bbr_extra_acked;
};
enum tcp_bbr_phase {
	BBR_PHASE_INVALID, BBR_PHASE_STARTUP, BBR_PHASE_DRAIN, BBR_PHASE_PROBE_RTT,
	BBR_PHASE_PROBE_BW_UP, BBR_PHASE_PROBE_BW_DOWN, BBR_PHASE_PROBE_BW_CRUISE,
	BBR_PHASE_PROBE_BW_REFILL
};
union tcp_cc_info {
	struct tcpvegas_info vegas;
	struct tcp_dctcp_info dctcp;
	struct tcp_bbr_info bbr;
};

/* --------------------------------------------------------- the socket */
/* The fields are dumbbell's sender state (cc::TcpSock) in the kernel's
 * names and units; dumbbell_shim.c copies them in before every hook and the
 * ones a control owns back after it. */
struct sock {
	u8 sk_state;
	u8 sk_pacing_shift;
	unsigned long sk_pacing_rate;      /* bytes per second */
	unsigned long sk_max_pacing_rate;  /* bytes per second */
	u32 sk_pacing_status;              /* enum sk_pacing */
	unsigned int sk_gso_max_size;
	u32 sk_gso_max_segs;
	u32 sk_sndbuf;
};
struct inet_sock { struct sock sk; };
struct inet_connection_sock_ack { u8 pending; u8 quick; u8 pingpong; u32 ato; };
struct tcp_congestion_ops;
struct inet_connection_sock {
	struct inet_sock icsk_inet;
	const struct tcp_congestion_ops *icsk_ca_ops;
	u8 icsk_ca_state;
	u8 icsk_ca_initialized;
	u8 icsk_retransmits;
	u8 icsk_ca_setsockopt;
	u32 icsk_rto;
	struct inet_connection_sock_ack icsk_ack;
	u64 icsk_ca_priv[20];
};
struct tcp_plb_state { u8 consec_cong_rounds; u8 unused; u32 pause_until; };
struct tcp_sock {
	struct inet_connection_sock inet_conn;
	u32 snd_cwnd;
	u32 snd_ssthresh;
	u32 snd_cwnd_cnt;
	u32 snd_cwnd_clamp;
	u32 snd_cwnd_used;
	u32 snd_cwnd_stamp;      /* jiffies */
	u32 prior_cwnd;
	u32 prior_ssthresh;
	u32 snd_una;
	u32 snd_nxt;
	u32 rcv_nxt;
	u32 rcv_wnd;
	u32 snd_wnd;
	u32 mss_cache;
	u32 packets_out;
	u32 sacked_out;
	u32 lost_out;
	u32 retrans_out;
	u32 delivered;
	u32 delivered_ce;
	u32 lost;
	u32 app_limited;
	u32 srtt_us;             /* smoothed RTT << 3, microseconds */
	u32 mdev_us;
	u32 rttvar_us;
	u32 lsndtime;            /* jiffies */
	u32 max_packets_out;
	u32 data_segs_out;
	u32 total_retrans;
	u32 rate_delivered;
	u32 rate_interval_us;
	u8 is_cwnd_limited;
	u8 ecn_flags;
	u8 rate_app_limited;
	u8 fast_ack_mode;        /* BBRv3's kernel: written, not modelled */
	u8 is_sack_reneg;        /* 0: dumbbell's receivers never renege */
	u8 tlp_orig_data_app_limited;
	u64 tcp_mstamp;          /* microseconds */
	u64 tcp_clock_cache;     /* nanoseconds */
	u64 tcp_wstamp_ns;       /* nanoseconds */
	u64 delivered_mstamp;    /* microseconds */
	u64 bytes_acked;
	struct minmax rtt_min;
};

static inline struct tcp_sock *tcp_sk(const struct sock *sk) { return (struct tcp_sock *)sk; }
static inline struct inet_connection_sock *inet_csk(const struct sock *sk)
{ return (struct inet_connection_sock *)sk; }
static inline struct inet_sock *inet_sk(const struct sock *sk) { return (struct inet_sock *)sk; }
static inline void *inet_csk_ca(const struct sock *sk) { return (void *)inet_csk(sk)->icsk_ca_priv; }

/* ACK samples and rate samples, as the stack hands them to the hooks */
struct ack_sample {
	u32 pkts_acked;
	s32 rtt_us;          /* -1: no valid sample (Karn) */
	u32 in_flight;
};
struct rate_sample {
	u64 prior_mstamp;    /* microseconds */
	u32 prior_delivered;
	u32 prior_delivered_ce;
	s32 delivered;       /* -1: no valid sample */
	s32 delivered_ce;
	long interval_us;    /* -1: no valid sample */
	u32 snd_interval_us;
	u32 rcv_interval_us;
	long rtt_us;         /* -1: none */
	int losses;
	u32 acked_sacked;
	u32 prior_in_flight;
	u32 last_end_seq;
	bool is_app_limited;
	bool is_retrans;
	bool is_ack_delayed;
	/* BBRv3's kernel adds: */
	u32 tx_in_flight;    /* in flight when the latest delivered packet left, itself included */
	s32 lost;            /* packets marked lost since it left */
	bool is_ece;         /* the ACK echoed CE */
	bool is_acking_tlp_retrans_seq;  /* false: not modelled */
};

/* A segment as BBRv3's skb_marked_lost hook reads it: its packet count and
 * the send-time snapshot of tcp_skb_cb (dumbbell sends one packet per
 * segment). */
struct tcp_skb_cb {
	u32 seq;
	u32 end_seq;
	u8 tcp_flags;
	u8 sacked;
	struct {
		u32 is_app_limited:1, delivered_ce:20, unused:11;
		u32 delivered;
		u64 first_tx_mstamp;
		u64 delivered_mstamp;  /* 0: SACKed or reneged since (never, when the hook runs) */
		u32 in_flight;         /* in flight when it left, itself included */
		u32 lost;              /* tp->lost when it left */
	} tx;
};
struct sk_buff {
	u32 pcount;
	struct tcp_skb_cb cb;
};
#define TCP_SKB_CB(skb) ((struct tcp_skb_cb *)&((skb)->cb))
static inline int tcp_skb_pcount(const struct sk_buff *skb) { return skb->pcount; }
static inline bool tcp_skb_tx_in_flight_is_suspicious(u32 pcount, u32 sacked, u32 tx_in_flight)
{ (void)sacked; return tx_in_flight < pcount; }

struct tcp_congestion_ops {
	u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, u32 ack, u32 acked);
	void (*set_state)(struct sock *sk, u8 new_state);
	void (*cwnd_event)(struct sock *sk, enum tcp_ca_event ev);
	void (*in_ack_event)(struct sock *sk, u32 flags);
	void (*pkts_acked)(struct sock *sk, const struct ack_sample *sample);
	u32 (*min_tso_segs)(struct sock *sk);
	/* BBRv3's kernel: a segment was just marked lost; the TSO size
	 * (called when the connection's gso_max_bytes is set: then its
	 * skbs carry this many segments, and min_tso_segs is the floor of
	 * the generic autosize otherwise) */
	void (*skb_marked_lost)(struct sock *sk, const struct sk_buff *skb);
	u32 (*tso_segs)(struct sock *sk, unsigned int mss_now);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	void (*cong_control)(struct sock *sk, u32 ack, int flag, const struct rate_sample *rs);
#else
	void (*cong_control)(struct sock *sk, const struct rate_sample *rs);
#endif
	u32 (*undo_cwnd)(struct sock *sk);
	u32 (*sndbuf_expand)(struct sock *sk);
	size_t (*get_info)(struct sock *sk, u32 ext, int *attr, union tcp_cc_info *info);
	char name[TCP_CA_NAME_MAX];
	struct module *owner;
	void *list_prev, *list_next;
	u32 key;
	u32 flags;
	void (*init)(struct sock *sk);
	void (*release)(struct sock *sk);
};

/* ---------------------------------------------------------- helpers */
static inline u32 tcp_snd_cwnd(const struct tcp_sock *tp) { return tp->snd_cwnd; }
static inline void tcp_snd_cwnd_set(struct tcp_sock *tp, u32 val) { tp->snd_cwnd = val; }
static inline bool tcp_in_slow_start(const struct tcp_sock *tp)
{ return tcp_snd_cwnd(tp) < tp->snd_ssthresh; }
static inline bool tcp_in_initial_slowstart(const struct tcp_sock *tp)
{ return tp->snd_ssthresh >= TCP_INFINITE_SSTHRESH; }
static inline bool tcp_in_cwnd_reduction(const struct sock *sk)
{ return (TCPF_CA_CWR | TCPF_CA_Recovery) & (1 << inet_csk(sk)->icsk_ca_state); }
static inline u32 tcp_packets_in_flight(const struct tcp_sock *tp)
{ return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out; }
/* dumbbell's stack decides "cwnd-limited" (slow start included) itself and
 * hands the answer in is_cwnd_limited. */
static inline bool tcp_is_cwnd_limited(const struct sock *sk)
{ return tcp_sk(sk)->is_cwnd_limited; }
static inline u32 tcp_min_rtt(const struct tcp_sock *tp) { return minmax_get(&tp->rtt_min); }
static inline u32 tcp_current_ssthresh(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	if (tcp_in_cwnd_reduction(sk))
		return tp->snd_ssthresh;
	return max(tp->snd_ssthresh, (tcp_snd_cwnd(tp) >> 1) + (tcp_snd_cwnd(tp) >> 2));
}
static inline u32 tcp_stamp_us_delta(u64 t1, u64 t0) { return max_t(s64, t1 - t0, 0); }
static inline bool tcp_needs_ecn(const struct sock *sk)
{ return inet_csk(sk)->icsk_ca_ops->flags & TCP_CONG_NEEDS_ECN; }
static inline bool tcp_ca_needs_ecn(const struct sock *sk) { return tcp_needs_ecn(sk); }
static inline void INET_ECN_xmit(struct sock *sk) { (void)sk; }
static inline void INET_ECN_dontxmit(struct sock *sk) { (void)sk; }
static inline u32 tcp_mss_to_mtu(struct sock *sk, int mss) { (void)sk; return mss + 52; }
u32 tcp_tso_autosize(const struct sock *sk, unsigned int mss_now, int min_tso_segs);
void __tcp_send_ack(struct sock *sk, u32 rcv_nxt, u16 flags);
static inline void tcp_send_ack(struct sock *sk) { (void)sk; }

u32 tcp_slow_start(struct tcp_sock *tp, u32 acked);
void tcp_cong_avoid_ai(struct tcp_sock *tp, u32 w, u32 acked);
void tcp_reno_cong_avoid(struct sock *sk, u32 ack, u32 acked);
u32 tcp_reno_ssthresh(struct sock *sk);
u32 tcp_reno_undo_cwnd(struct sock *sk);
int tcp_register_congestion_control(struct tcp_congestion_ops *type);
void tcp_unregister_congestion_control(struct tcp_congestion_ops *type);
int tcp_validate_congestion_control(struct tcp_congestion_ops *ca);

/* Protective Load Balancing: a no-op (dumbbell does not rehash flows) */
struct tcp_plb_state;
static inline void tcp_plb_init(const struct sock *sk, struct tcp_plb_state *plb)
{ (void)sk; memset(plb, 0, sizeof(*plb)); }
static inline void tcp_plb_update_state(const struct sock *sk, struct tcp_plb_state *plb,
					const int cong_ratio) { (void)sk; (void)plb; (void)cong_ratio; }
static inline void tcp_plb_check_rehash(struct sock *sk, struct tcp_plb_state *plb)
{ (void)sk; (void)plb; }
static inline void tcp_plb_update_state_upon_rto(struct sock *sk, struct tcp_plb_state *plb)
{ (void)sk; (void)plb; }

#endif /* DUMBBELL_KMOD_H */
