//! A module that crashes must not take the user's process down: runs with
//! a module control execute in a child process (the Python package's
//! `dumbbell._kmod_child`), which calls [`install_crash_report`]. Before
//! every hook the control notes which module, hook and simulated time it
//! is entering ([`enter`]); on a fatal signal the handler writes that note
//! to standard error as one line,
//!
//! `dumbbell-kmod-crash<TAB>module<TAB>hook<TAB>time_ps<TAB>signal`,
//!
//! and lets the signal kill the child; the parent turns the line into one
//! `SimulationError`.

use std::ffi::c_int;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicU8, AtomicUsize, Ordering};

use crate::ffi::Hook;

static LABEL_PTR: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static LABEL_LEN: AtomicUsize = AtomicUsize::new(0);
static HOOK: AtomicU8 = AtomicU8::new(NO_HOOK);
static TIME_PS: AtomicU64 = AtomicU64::new(0);
const NO_HOOK: u8 = 0xff;

/// The marker that starts a crash line on standard error.
pub const MARKER: &str = "dumbbell-kmod-crash";

/// Notes the hook the process is entering (`label` lives for the process).
#[inline]
pub fn enter(label: &'static str, hook: Hook, time_ps: u64) {
    LABEL_PTR.store(label.as_ptr() as *mut u8, Ordering::Relaxed);
    LABEL_LEN.store(label.len(), Ordering::Relaxed);
    TIME_PS.store(time_ps, Ordering::Relaxed);
    HOOK.store(hook as u8, Ordering::Relaxed);
}

/// Notes that the hook returned.
#[inline]
pub fn leave() {
    HOOK.store(NO_HOOK, Ordering::Relaxed);
}

extern "C" {
    fn signal(sig: c_int, handler: usize) -> usize;
    fn raise(sig: c_int) -> c_int;
    fn write(fd: c_int, buf: *const u8, n: usize) -> isize;
}

const SIGILL: c_int = 4;
const SIGABRT: c_int = 6;
const SIGBUS: c_int = 7;
const SIGFPE: c_int = 8;
const SIGSEGV: c_int = 11;
const SIG_DFL: usize = 0;
const FATAL: [c_int; 5] = [SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT];

/// Appends `v` in decimal to `buf` at `at`; returns the new end.
fn put_u64(buf: &mut [u8], mut at: usize, v: u64) -> usize {
    let mut digits = [0u8; 20];
    let mut n = 0;
    let mut x = v;
    loop {
        digits[n] = b'0' + (x % 10) as u8;
        n += 1;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    while n > 0 && at < buf.len() {
        n -= 1;
        buf[at] = digits[n];
        at += 1;
    }
    at
}

fn put(buf: &mut [u8], mut at: usize, s: &[u8]) -> usize {
    for b in s {
        if at >= buf.len() {
            break;
        }
        buf[at] = *b;
        at += 1;
    }
    at
}

/// The signal handler: async-signal-safe (no allocation, no locks).
extern "C" fn on_fatal(sig: c_int) {
    let mut buf = [0u8; 512];
    let hook = HOOK.load(Ordering::Relaxed);
    let mut at = put(&mut buf, 0, b"\n");
    at = put(&mut buf, at, MARKER.as_bytes());
    at = put(&mut buf, at, b"\t");
    let ptr = LABEL_PTR.load(Ordering::Relaxed);
    if hook != NO_HOOK && !ptr.is_null() {
        // SAFETY: the label is a leaked &'static str.
        let label = unsafe { std::slice::from_raw_parts(ptr, LABEL_LEN.load(Ordering::Relaxed)) };
        at = put(&mut buf, at, label);
        at = put(&mut buf, at, b"\t");
        at = put(&mut buf, at, Hook::NAMES[hook as usize].as_bytes());
    } else {
        at = put(&mut buf, at, b"?\t(outside a module hook)");
    }
    at = put(&mut buf, at, b"\t");
    at = put_u64(&mut buf, at, TIME_PS.load(Ordering::Relaxed));
    at = put(&mut buf, at, b"\t");
    at = put_u64(&mut buf, at, sig as u64);
    at = put(&mut buf, at, b"\n");
    // SAFETY: write(2) and raise(3) are async-signal-safe.
    unsafe {
        write(2, buf.as_ptr(), at);
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

/// Reports a fatal signal (segfault, division by zero, bus error, illegal
/// instruction, abort) as one crash line before the process dies.
pub fn install_crash_report() {
    for s in FATAL {
        // SAFETY: installs a handler that only writes and re-raises.
        unsafe {
            signal(s, on_fatal as extern "C" fn(c_int) as usize);
        }
    }
}

/// One crash line parsed back: (module, hook, time_ps, signal).
pub fn parse_crash_line(text: &str) -> Option<(String, String, u64, i32)> {
    let line = text.lines().rfind(|l| l.starts_with(MARKER))?;
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 5 {
        return None;
    }
    Some((
        f[1].to_string(),
        f[2].to_string(),
        f[3].parse().ok()?,
        f[4].parse().ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crash_line_round_trips_through_the_writer() {
        let mut buf = [0u8; 64];
        let end = put_u64(&mut buf, 0, 1_234_567_890_123);
        assert_eq!(&buf[..end], b"1234567890123");
        assert_eq!(put_u64(&mut buf, 0, 0), 1);
        let text = format!("some output\n\n{MARKER}\ttcp_x.c (x)\tcong_avoid\t104373376000\t8\n");
        assert_eq!(
            parse_crash_line(&text),
            Some((
                "tcp_x.c (x)".into(),
                "cong_avoid".into(),
                104_373_376_000,
                8
            ))
        );
        assert_eq!(parse_crash_line("Segmentation fault\n"), None);
    }
}
