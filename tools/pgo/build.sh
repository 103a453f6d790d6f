#!/usr/bin/env bash
# Builds dumbbell's Python extension with profile-guided optimisation (PGO):
# `make setup` runs it.
#
#   tools/pgo/build.sh VENV
#
# 1. builds the extension instrumented (rustc -Cprofile-generate), in
#    target/pgo/gen, and installs it into VENV;
# 2. runs tools/pgo/training.jsonl through it (tools/pgo/train.py): the
#    experiments' own runs cut short (tools/pgo/training.py writes them), a
#    few seconds in all;
# 3. merges the counts with the toolchain's llvm-profdata (rustup's
#    llvm-tools component, installed here if missing);
# 4. builds the extension with them (rustc -Cprofile-use), in target/pgo/use,
#    and installs it into VENV as `maturin develop --release` does;
# 5. checks that the counts name the extension's own functions: counts
#    recorded from another build of the core (an example, built against a
#    serde with the dev-dependencies' features: another crate hash, hence
#    other mangled names) match nothing, and the optimiser then builds, in
#    silence, as without them. On a mismatch it says so and installs the
#    plain build.
#
# The counts only steer the optimiser (which code to lay out together, which
# branches to expect, what to inline): the simulator's results are the same,
# bit for bit, with or without them; it runs 1.1-1.25x faster with them
# (docs/performance.md). Without llvm-profdata, or with DUMBBELL_PGO=0 (for
# quick rebuilds while editing the core), or if a step fails, it builds
# without PGO and says why.
set -uo pipefail
VENV=${1:?usage: build.sh VENV}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
WORK=$ROOT/target/pgo
MATURIN=$ROOT/$VENV/bin/maturin

plain() {
  echo "dumbbell: $1: building without profile-guided optimisation (the simulator runs 1.1-1.25x slower)" >&2
  VIRTUAL_ENV=$ROOT/$VENV "$MATURIN" develop --release
  exit $?
}

[ "${DUMBBELL_PGO:-1}" = 0 ] && plain "DUMBBELL_PGO=0"
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ] && command -v rustup >/dev/null 2>&1; then
  echo "dumbbell: installing rustup's llvm-tools (llvm-profdata) for the profile-guided build" >&2
  timeout 300 rustup component add llvm-tools >/dev/null 2>&1 || true
fi
[ -x "$profdata" ] || plain "llvm-profdata not found (rustup component add llvm-tools)"

echo "dumbbell: profile-guided build: instrumented extension, then $(grep -c . tools/pgo/training.jsonl) training runs" >&2
rm -rf "$WORK/profiles" && mkdir -p "$WORK/profiles" || plain "cannot write $WORK"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$WORK/profiles" CARGO_TARGET_DIR=$WORK/gen VIRTUAL_ENV=$ROOT/$VENV \
  "$MATURIN" develop --release >"$WORK/gen.log" 2>&1 || plain "the instrumented build failed (see $WORK/gen.log)"
LLVM_PROFILE_FILE="$WORK/profiles/%p-%m.profraw" "$ROOT/$VENV/bin/python" tools/pgo/train.py \
  tools/pgo/training.jsonl >"$WORK/training.log" 2>&1 || plain "a training run failed (see $WORK/training.log)"
tail -n 1 "$WORK/training.log" >&2
"$profdata" merge -o "$WORK/merged.profdata" "$WORK/profiles" || plain "llvm-profdata merge failed"
# Named by its content: a new profile changes RUSTFLAGS, so cargo rebuilds.
prof="$WORK/dumbbell-$(sha256sum "$WORK/merged.profdata" | cut -c1-16).profdata"
mv -f "$WORK/merged.profdata" "$prof" || plain "cannot write $prof"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$prof" CARGO_TARGET_DIR=$WORK/use VIRTUAL_ENV=$ROOT/$VENV \
  DUMBBELL_PGO_PROFILE=$(basename "$prof") "$MATURIN" develop --release || plain "the profile-guided build failed"

# 5. The event loop's mangled name in the installed library must be one the
#    counts name (a name carries a hash of how Cargo built its crate).
so=$(ls "$ROOT"/python/dumbbell/_native*.so 2>/dev/null | head -n 1)
hot=$(nm "$so" 2>/dev/null | grep -o '_ZN13dumbbell_core5world5World13run_monitored17h[0-9a-f]*E' | head -n 1)
if [ -z "$hot" ]; then
  echo "dumbbell: cannot read the extension's symbols (nm): the profile's match is not checked" >&2
elif ! "$profdata" show --all-functions "$prof" 2>/dev/null | grep -F "$hot" >/dev/null; then
  # (not grep -q: it would stop reading early, and pipefail would take
  # llvm-profdata's broken pipe for a mismatch)
  plain "the profile names none of the extension's functions ($hot is not in it)"
fi
echo "dumbbell: profile-guided build installed ($(basename "$prof"), checked against the extension's symbols)" >&2
