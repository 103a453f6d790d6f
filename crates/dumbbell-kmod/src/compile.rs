//! From a module's C source to a shared object: the system C compiler
//! builds the module together with the shim (`shim/`), and the result is
//! cached under a hash of (the source, the shim, the compiler's version,
//! the kernel version and `HZ`).

use crate::error::KmodError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The shim's files, compiled into this crate: (path under the shim
/// directory, contents).
pub const SHIM_FILES: &[(&str, &str)] = &[
    ("dumbbell_shim.c", include_str!("../shim/dumbbell_shim.c")),
    (
        "include/dumbbell_kmod.h",
        include_str!("../shim/include/dumbbell_kmod.h"),
    ),
    (
        "include/tcp_dctcp.h",
        include_str!("../shim/include/tcp_dctcp.h"),
    ),
];

/// Headers a module may include; each only includes `dumbbell_kmod.h`.
const WRAPPER_HEADERS: &[&str] = &[
    "linux/module.h",
    "linux/mm.h",
    "linux/btf.h",
    "linux/btf_ids.h",
    "linux/math64.h",
    "linux/skbuff.h",
    "linux/inet_diag.h",
    "linux/inet.h",
    "linux/random.h",
    "linux/win_minmax.h",
    "linux/kernel.h",
    "linux/types.h",
    "linux/init.h",
    "linux/jiffies.h",
    "linux/ktime.h",
    "linux/timekeeping.h",
    "linux/bpf.h",
    "linux/slab.h",
    "linux/string.h",
    "linux/version.h",
    "linux/math.h",
    "linux/bitops.h",
    "linux/compiler.h",
    "linux/tcp.h",
    "linux/time.h",
    "linux/moduleparam.h",
    "linux/printk.h",
    "net/tcp.h",
    "net/sock.h",
    "net/inet_connection_sock.h",
    "net/inet_sock.h",
    "asm/div64.h",
    "trace/events/tcp.h",
];

const WRAPPER: &str =
    "/* dumbbell kernel shim: everything is in dumbbell_kmod.h */\n#include <dumbbell_kmod.h>\n";

/// The C compiler's flags: the kernel's dialect (GNU C11, no strict
/// aliasing, wrapping signed overflow), position-independent, every
/// symbol resolved at link time (`-z defs`: a symbol the shim lacks is an
/// error naming it) and bound inside the object (`-Bsymbolic`: each
/// loaded copy calls its own shim).
const CFLAGS: &[&str] = &[
    "-std=gnu11",
    "-O2",
    "-fPIC",
    "-shared",
    "-fno-strict-aliasing",
    "-fno-strict-overflow",
    "-fno-common",
    "-w",
    "-Werror=implicit-function-declaration",
    "-Werror=incompatible-pointer-types",
    "-Wl,-z,defs",
    "-Wl,-Bsymbolic",
];

/// How to build a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// The kernel the module is written for, (major, minor): selects hook
    /// signatures (`cong_control(sk, ack, flag, rs)` since 6.10).
    pub linux_version: (u32, u32),
    /// Jiffies per second.
    pub hz: u32,
    /// Where shared objects are cached.
    pub cache_dir: PathBuf,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            linux_version: (6, 12),
            hz: 250,
            cache_dir: default_cache_dir(),
        }
    }
}

/// `$DUMBBELL_KMOD_CACHE`, else `$XDG_CACHE_HOME/dumbbell/kmod`, else
/// `~/.cache/dumbbell/kmod`, else the system's temporary directory.
pub fn default_cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("DUMBBELL_KMOD_CACHE") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("dumbbell").join("kmod");
    }
    if let Some(h) = std::env::var_os("HOME") {
        return PathBuf::from(h)
            .join(".cache")
            .join("dumbbell")
            .join("kmod");
    }
    std::env::temp_dir().join("dumbbell-kmod")
}

/// The compiler to run: `$CC`, else `cc`.
pub fn compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "cc".to_string())
}

/// The compiler's `--version` text (part of the cache key).
fn compiler_version(cc: &str) -> Result<String, KmodError> {
    let out = Command::new(cc)
        .arg("--version")
        .output()
        .map_err(|e| KmodError::NoCompiler {
            compiler: cc.to_string(),
            why: e.to_string(),
        })?;
    if !out.status.success() {
        return Err(KmodError::NoCompiler {
            compiler: cc.to_string(),
            why: format!("`{cc} --version` exited with {}", out.status),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A 128-bit FNV-1a digest, as 32 hex digits: a cache key, not a
/// security boundary.
pub fn digest(parts: &[&[u8]]) -> String {
    const PRIME: u128 = 0x0000000001000000000000000000013B;
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    for p in parts {
        for b in (p.len() as u64).to_le_bytes().iter().chain(p.iter()) {
            h ^= *b as u128;
            h = h.wrapping_mul(PRIME);
        }
    }
    format!("{h:032x}")
}

/// A name for a temporary file or directory no other build (another
/// process, or another thread of this one: a sweep's runs) uses.
fn unique() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

fn cache_err(path: &Path, e: std::io::Error) -> KmodError {
    KmodError::Cache {
        path: path.display().to_string(),
        why: e.to_string(),
    }
}

/// Writes the shim's files under `dir/shim-<hash>` (once) and returns it.
fn shim_dir(cache: &Path) -> Result<PathBuf, KmodError> {
    let parts: Vec<&[u8]> = SHIM_FILES
        .iter()
        .flat_map(|(p, c)| [p.as_bytes(), c.as_bytes()])
        .collect();
    let dir = cache.join(format!("shim-{}", &digest(&parts)[..16]));
    if dir.join("done").exists() {
        return Ok(dir);
    }
    let tmp = cache.join(format!("shim-tmp-{}", unique()));
    let _ = std::fs::remove_dir_all(&tmp);
    let write = |rel: &str, text: &str| -> Result<(), KmodError> {
        let p = tmp.join(rel);
        std::fs::create_dir_all(p.parent().expect("a file in a directory"))
            .map_err(|e| cache_err(&p, e))?;
        std::fs::write(&p, text).map_err(|e| cache_err(&p, e))
    };
    for (rel, text) in SHIM_FILES {
        write(rel, text)?;
    }
    for h in WRAPPER_HEADERS {
        write(&format!("include/{h}"), WRAPPER)?;
    }
    write("done", "")?;
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another process won the race: use its copy.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(dir)
}

/// Compiles `source` (a module's `.c` file) with the shim into a shared
/// object, or returns the cached one. Errors: no compiler, an unreadable
/// file, a compile error (file, line, message) or a missing shim symbol.
pub fn build(source: &Path, opts: &BuildOptions) -> Result<PathBuf, KmodError> {
    let text = std::fs::read(source).map_err(|e| KmodError::Source {
        path: source.display().to_string(),
        why: e.to_string(),
    })?;
    let cc = compiler();
    let version = compiler_version(&cc)?;
    let (maj, min) = opts.linux_version;
    let defines = format!(
        "-DLINUX_VERSION_CODE={} -DHZ={}",
        (maj << 16) + (min << 8),
        opts.hz
    );
    let mut parts: Vec<&[u8]> = vec![&text, version.as_bytes(), defines.as_bytes()];
    for (p, c) in SHIM_FILES {
        parts.push(p.as_bytes());
        parts.push(c.as_bytes());
    }
    for f in CFLAGS {
        parts.push(f.as_bytes());
    }
    // Headers next to the module (`tcp_dctcp.h`) are part of what is built.
    let dir = source
        .parent()
        .map(Path::to_path_buf)
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| PathBuf::from("."));
    let local = local_headers(&text, &dir);
    for (_, c) in &local {
        parts.push(c);
    }
    let key = digest(&parts);
    let cache = &opts.cache_dir;
    std::fs::create_dir_all(cache).map_err(|e| cache_err(cache, e))?;
    let out = cache.join(format!("{key}.so"));
    if out.exists() {
        return Ok(out);
    }
    let shim = shim_dir(cache)?;
    let tmp = cache.join(format!("{key}.{}.tmp.so", unique()));
    let mut cmd = Command::new(&cc);
    cmd.args(CFLAGS)
        .arg(format!("-DLINUX_VERSION_CODE={}", (maj << 16) + (min << 8)))
        .arg(format!("-DHZ={}", opts.hz))
        .arg("-I")
        .arg(shim.join("include"))
        .arg("-I")
        .arg(&dir)
        .arg(source)
        .arg(shim.join("dumbbell_shim.c"))
        .arg("-o")
        .arg(&tmp)
        .env("LC_ALL", "C");
    let res = cmd.output().map_err(|e| KmodError::NoCompiler {
        compiler: cc.clone(),
        why: e.to_string(),
    })?;
    if !res.status.success() {
        let _ = std::fs::remove_file(&tmp);
        let mut output = String::from_utf8_lossy(&res.stderr).into_owned();
        output.push_str(&String::from_utf8_lossy(&res.stdout));
        return Err(diagnose(&output, source));
    }
    std::fs::rename(&tmp, &out).map_err(|e| cache_err(&out, e))?;
    Ok(out)
}

/// `#include "x.h"` files next to the module, with their contents.
fn local_headers(text: &[u8], dir: &Path) -> Vec<(String, Vec<u8>)> {
    let text = String::from_utf8_lossy(text);
    let mut out = Vec::new();
    for line in text.lines() {
        let l = line.trim_start();
        if let Some(rest) = l.strip_prefix("#include") {
            let rest = rest.trim();
            if let Some(name) = rest.strip_prefix('"').and_then(|r| r.split('"').next()) {
                if let Ok(c) = std::fs::read(dir.join(name)) {
                    out.push((name.to_string(), c));
                }
            }
        }
    }
    out
}

/// The compiler's output as one error: a missing symbol (an implicit
/// declaration, an undefined reference) by its name, else the first
/// error with its file and line.
pub fn diagnose(output: &str, source: &Path) -> KmodError {
    let src = source.display().to_string();
    let mut first: Option<(String, u32, String)> = None;
    for line in output.lines() {
        // "undefined reference to `name'" (the linker)
        if let Some(i) = line.find("undefined reference to `") {
            let rest = &line[i + "undefined reference to `".len()..];
            let symbol = rest.split('\'').next().unwrap_or(rest).to_string();
            let (file, ln) = locate(line).map_or((src.clone(), 0), |(f, l, _)| (f, l));
            return KmodError::MissingSymbol {
                symbol,
                file,
                line: ln,
            };
        }
        if let Some((file, ln, msg)) = locate(line) {
            if let Some(i) = msg.find("implicit declaration of function '") {
                let rest = &msg[i + "implicit declaration of function '".len()..];
                let symbol = rest.split('\'').next().unwrap_or(rest).to_string();
                return KmodError::MissingSymbol {
                    symbol,
                    file,
                    line: ln,
                };
            }
            if first.is_none() && msg.contains("error:") {
                let m = msg.split_once("error:").map_or(msg.as_str(), |x| x.1);
                first = Some((file, ln, m.trim().to_string()));
            }
        }
    }
    let (file, line, error) = first.unwrap_or_else(|| {
        let last = output
            .lines()
            .rfind(|l| !l.trim().is_empty())
            .unwrap_or("the compiler failed without a message");
        (src, 0, last.trim().to_string())
    });
    KmodError::Compile {
        file,
        line,
        error,
        output: output.trim_end().to_string(),
    }
}

/// `file:line:col: rest` or `file:line: rest` → (file, line, rest).
fn locate(line: &str) -> Option<(String, u32, String)> {
    let mut it = line.splitn(4, ':');
    let file = it.next()?.trim();
    let ln: u32 = it.next()?.trim().parse().ok()?;
    let third = it.next()?;
    let rest = match third.trim().parse::<u32>() {
        Ok(_) => it.next().unwrap_or("").to_string(),
        Err(_) => {
            let mut r = third.to_string();
            if let Some(x) = it.next() {
                r.push(':');
                r.push_str(x);
            }
            r
        }
    };
    if file.is_empty() {
        return None;
    }
    Some((file.to_string(), ln, rest.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnoses_an_implicit_declaration_as_a_missing_symbol() {
        let out = "m.c: In function 'f':\nm.c:7:5: error: implicit declaration of function 'tcp_magic' [-Werror=implicit-function-declaration]\n";
        assert_eq!(
            diagnose(out, Path::new("m.c")),
            KmodError::MissingSymbol {
                symbol: "tcp_magic".into(),
                file: "m.c".into(),
                line: 7
            }
        );
    }

    #[test]
    fn diagnoses_an_undefined_reference_as_a_missing_symbol() {
        let out = "/usr/bin/ld: /tmp/cc.o: in function `f':\nm.c:(.text+0x5): undefined reference to `tcp_magic'\ncollect2: error: ld returned 1 exit status\n";
        match diagnose(out, Path::new("m.c")) {
            KmodError::MissingSymbol { symbol, .. } => assert_eq!(symbol, "tcp_magic"),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn diagnoses_the_first_error_with_file_and_line() {
        let out = "m.c:3:1: warning: x\nm.c:9:12: error: expected ';' before '}' token\nm.c:10:1: error: later\n";
        match diagnose(out, Path::new("m.c")) {
            KmodError::Compile {
                file, line, error, ..
            } => {
                assert_eq!((file.as_str(), line), ("m.c", 9));
                assert_eq!(error, "expected ';' before '}' token");
            }
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn digest_depends_on_every_part_and_their_boundaries() {
        assert_ne!(digest(&[b"ab", b"c"]), digest(&[b"a", b"bc"]));
        assert_eq!(digest(&[b"x"]), digest(&[b"x"]));
        assert_eq!(digest(&[b"x"]).len(), 32);
    }
}
