//! A module's private state (its `inet_csk_ca` area) in the terms of the
//! built-in port's trace variables, for the Linux 6.12 modules whose
//! layout we know: the module's `trace_vars`, and what `module compare`
//! compares after every hook besides the window fields.
//!
//! The layouts are facts about the modules' structures (`struct bictcp` in
//! `tcp_cubic.c`, `struct dctcp` in `tcp_dctcp.c`): byte offsets of `u32`
//! fields in the order they are declared, no padding before them.

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
        _ => &[],
    }
}

/// The most fields [`compared`] lists for one control.
pub const MAX_COMPARED: usize = 7;

/// DCTCP's α is in units of 1/1024 (`DCTCP_MAX_ALPHA`).
const DCTCP_ALPHA_ONE: f64 = 1024.0;

/// Cubic's K is in units of 2⁻¹⁰ s (`BICTCP_HZ`).
const CUBIC_K_PER_S: f64 = 1024.0;

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
        _ => {}
    }
}
