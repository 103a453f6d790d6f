//! A module's private state (its `inet_csk_ca` area) in the terms of the
//! built-in port's trace variables, for the Linux 6.12 modules whose
//! layout we know: the module's `trace_vars`, and what `module compare`
//! compares after every hook besides the window fields.
//!
//! The layouts are facts about the modules' structures (`struct bictcp` in
//! `tcp_cubic.c`, `struct dctcp` in `tcp_dctcp.c`, `struct bbr` in google/bbr
//! v3's `tcp_bbr.c`): byte offsets of `u32` fields in the order they are
//! declared, at their natural alignment.

/// Trace variables `module compare` compares for a control registered
/// under `name` (the port's name; a module's without `kmod:`), in order.
pub fn compared(name: &str) -> &'static [&'static str] {
    match name.trim_start_matches("kmod:") {
        "cubic" => &[
            "cnt",
            "w_max",
            "k_s",
            "origin_point",
            "w_est",
            "delay_min_us",
            "hystart_found",
        ],
        "dctcp" => &["alpha"],
        "bbr3" => &[
            "inflight_hi",
            "inflight_lo",
            "bw_lo_pps",
            "max_bw_pps",
            "inflight_latest",
            "prior_cwnd",
        ],
        _ => &[],
    }
}

/// The most fields [`compared`] lists for one control.
pub const MAX_COMPARED: usize = 7;

/// DCTCP's α is in units of 1/1024 (`DCTCP_MAX_ALPHA`).
const DCTCP_ALPHA_ONE: f64 = 1024.0;

/// Cubic's K is in units of 2⁻¹⁰ s (`BICTCP_HZ`).
const CUBIC_K_PER_S: f64 = 1024.0;

/// BBR's bandwidth unit, packets per µs · 2^24, to packets per second,
/// as the port's trace computes it (`cc/bbr3.rs`, `to_pps`).
fn bbr_pps(bw: f64) -> f64 {
    bw * 1_000_000f64 / (1u64 << 24) as f64
}

/// A BBRv3 bound as the port traces it: −1 while unbounded (`~0U`).
fn bound_or_none(v: f64, none: f64) -> f64 {
    if v == u32::MAX as f64 {
        none
    } else {
        v
    }
}

/// Reports the private state `ca` of a module registered as `name` under
/// the port's trace-variable names (nothing for another module).
pub fn decode(name: &str, ca: &[u8], out: &mut dyn FnMut(&'static str, f64)) {
    let u = |off: usize| -> f64 {
        ca.get(off..off + 4).map_or(f64::NAN, |b| {
            u32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as f64
        })
    };
    match name.trim_start_matches("kmod:") {
        "cubic" => {
            // struct bictcp: cnt 0, last_max_cwnd 4, last_cwnd 8,
            // last_time 12, bic_origin_point 16, bic_K 20, delay_min 24,
            // epoch_start 28, ack_cnt 32, tcp_cwnd 36, (u16 40,
            // sample_cnt 42) found 43.
            out("w_max", u(4));
            out("k_s", u(20) / CUBIC_K_PER_S);
            out("origin_point", u(16));
            out("cnt", u(0));
            out("w_est", u(36));
            out("delay_min_us", u(24));
            out("hystart_found", ca.get(43).map_or(f64::NAN, |&b| b as f64));
        }
        "dctcp" => {
            // struct dctcp: old_delivered 0, old_delivered_ce 4,
            // prior_rcv_nxt 8, dctcp_alpha 12.
            out("alpha", u(12) / DCTCP_ALPHA_ONE);
        }
        "bbr3" => {
            // struct bbr (v3): min_rtt_us 0, ..., cycle_mstamp 24 (u64),
            // two bitfield words 32 and 36, prior_cwnd 40, full_bw 44,
            // ack_epoch_mstamp 48 (u64), extra_acked 56 (2 × u16), a
            // bitfield word 60, loss_round_delivered 64, undo_bw_lo 68,
            // undo_inflight_lo 72, undo_inflight_hi 76, bw_latest 80,
            // bw_lo 84, bw_hi 88 and 92, inflight_latest 96,
            // inflight_lo 100, inflight_hi 104.
            out("inflight_hi", bound_or_none(u(104), -1.0));
            out("inflight_lo", bound_or_none(u(100), -1.0));
            let bw_lo = u(84);
            out(
                "bw_lo_pps",
                if bw_lo == u32::MAX as f64 {
                    -1.0
                } else {
                    bbr_pps(bw_lo)
                },
            );
            out("max_bw_pps", bbr_pps(u(88).max(u(92))));
            out("inflight_latest", u(96));
            out("prior_cwnd", u(40));
        }
        _ => {}
    }
}
