"""Linux congestion-control modules as dumbbell controls (``docs/kernel-modules.md``).

``KernelModule("tcp_cubic.c", params={"beta": 717})`` as a flow's ``cc`` (in
TOML, ``cc = { module = "tcp_cubic.c", params = { beta = 717 } }``) runs the
module's own C code: the system C compiler builds it with dumbbell's kernel
shim (cached by a hash of the source, the shim and the compiler), one copy
is loaded per simulated host (a module's statics are per kernel), and its
``tcp_congestion_ops`` hooks are called where the core calls its controls'.

A run holding a module executes in a child process, so that a module that
crashes (a segfault, a division by zero) costs that run only: the crash is
one :class:`SimulationError` naming the module, the hook and the simulated
time.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from . import _native
from .errors import ConfigError, LimitError, ModuleCrash, SimulationError
from .scenario.base import Model

PREFIX = "kmod:"
"""The prefix of a module control's core id (its spec follows, as JSON)."""

MIN_HZ, MAX_HZ = 24, 10_000

ParamValue = Annotated[int, Field(ge=-(2**63), le=2**64 - 1)] | bool | str


class KernelModuleCc(Model):
    """A Linux TCP congestion-control module, from its C source file
    (``net/ipv4/tcp_cubic.c``, or a module of your own), run unmodified
    through dumbbell's kernel shim. See ``docs/kernel-modules.md``."""

    kind: Literal["module"] = Field("module", exclude=True, description="Always `module` (implied by `module = ...`).")
    module: str = Field(description="Path of the module's `.c` file (relative paths from the working directory).")
    params: dict[str, ParamValue] = Field(
        default_factory=dict,
        description="The module's own `module_param`s by name (`beta = 717`); an unknown name is an error "
        "listing the module's parameters.",
    )
    linux_version: str = Field(
        "6.12",
        description="The kernel the module is written for, `MAJOR.MINOR` (6.12): before 6.10 `cong_control` "
        "takes `(sk, rs)`, since 6.10 `(sk, ack, flag, rs)`.",
    )
    hz: Annotated[int, Field(ge=MIN_HZ, le=MAX_HZ)] = Field(
        250, description="The kernel's jiffies per second, 24 to 10000 (250, Debian's kernel)."
    )

    @field_validator("module")
    @classmethod
    def _a_c_file(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("names no file")
        return v

    @field_validator("linux_version")
    @classmethod
    def _version(cls, v: str) -> str:
        major, dot, minor = v.partition(".")
        if not (dot and major.isdigit() and minor.isdigit() and 2 <= int(major) <= 9 and int(minor) <= 255):
            raise ValueError(f"must be MAJOR.MINOR (e.g. 6.12), got {v!r}")
        return v

    def spec(self, at: str, host: str) -> dict[str, Any]:
        """What the core's id carries: the source (absolute path and content
        hash), parameters, kernel version, HZ, the configuration path ``at``
        and the sending ``host``. Raises :class:`ConfigError` for a missing
        file."""
        path = Path(self.module).expanduser()
        try:
            data = path.read_bytes()
        except OSError as e:
            raise ConfigError(f"{at}.module", f"cannot read {self.module}: {e.strerror or e}") from None
        import hashlib  # here: the scenario models import this file, and few scenarios hold a module

        return {
            "at": at,
            "source": str(path.resolve()),
            "sha256": hashlib.sha256(data).hexdigest(),
            "params": dict(self.params),
            "linux_version": self.linux_version,
            "hz": self.hz,
            "host": host,
        }

    def to_core(self) -> dict[str, Any]:
        # The id (with the sending host) is set by Scenario.to_core.
        return {"kind": "external", "id": ""}


def KernelModule(  # noqa: N802 - reads as a class, as the other controls
    path: str | os.PathLike[str],
    params: dict[str, Any] | None = None,
    *,
    linux_version: str = "6.12",
    hz: int = 250,
) -> KernelModuleCc:
    """A flow's ``cc`` that runs a Linux module's C source:
    ``TcpFlow(..., cc=db.KernelModule("tcp_cubic.c", params={"beta": 717}))``."""
    return KernelModuleCc(module=os.fspath(path), params=dict(params or {}), linux_version=linux_version, hz=hz)


def module_id(cc: KernelModuleCc, at: str, host: str) -> str:
    """The core's id of a module control."""
    return PREFIX + json.dumps(cc.spec(at, host), sort_keys=True, separators=(",", ":"))


def module_ids(config: dict[str, Any]) -> list[str]:
    """The module controls' ids of a core configuration."""
    out = []
    for key in ("flows", "workloads"):
        for doc in config.get(key, []) or []:
            cc = doc.get("cc") or {}
            if cc.get("kind") == "external" and str(cc.get("id", "")).startswith(PREFIX):
                out.append(cc["id"])
    return out


def _spec(mid: str) -> dict[str, Any]:
    return json.loads(mid[len(PREFIX):])


def build_all(ids: list[str]) -> None:
    """Compiles every module (or finds it cached), in this process: a
    compile error is a :class:`ConfigError` at the control's ``module``."""
    for mid in dict.fromkeys(ids):
        s = _spec(mid)
        try:
            _native.kmod_build(s["source"], s["linux_version"], int(s["hz"]))
        except ValueError as e:
            raise ConfigError(f"{s['at']}.module", str(e)) from None


_SIGNALS = {int(s): s.name for s in signal.Signals}


def run_in_child(text: str, ids: list[str], timeout_s: float | None) -> tuple[Any, bool]:
    """Runs the configuration ``text`` in a child process
    (``python -m dumbbell._kmod_child``); returns (raw tables, stopped). A
    crash is one :class:`SimulationError` naming the module, hook and
    simulated time."""
    build_all(ids)
    reply = _child({"config": text, "modules": ids, "timeout_s": timeout_s}, "run")
    return reply["raw"], bool(reply["interrupted"])


def field_of(ids: list[str], message: str) -> str:
    """Where a module's load error belongs: the ``params`` of the control
    whose file the message names (else the first module's)."""
    for mid in ids:
        s = _spec(mid)
        if Path(s["source"]).name in message:
            return f"{s['at']}.{'params' if 'parameter' in message else 'module'}"
    s = _spec(ids[0])
    return f"{s['at']}.module"


def compare(
    path: str | os.PathLike[str],
    port: dict[str, Any],
    params: dict[str, Any] | None = None,
    *,
    linux_version: str = "6.12",
    hz: int = 250,
) -> dict[str, Any]:
    """``dumbbell module compare``: the module at ``path`` against the
    built-in control ``port`` (its core configuration, ``{"kind":
    "cubic"}``) on the fixed scenarios, in a child process. Returns
    ``{"module", "as", "scenarios": [{"name", "acks", "first_difference"}]}``."""
    cc = KernelModule(path, params, linux_version=linux_version, hz=hz)
    mid = module_id(cc, "module", "")
    build_all([mid])
    request = {"compare": {"id": mid, "as": json.dumps(port), "label": os.fspath(path)}}
    return json.loads(_child(request, "compare"))


def _child(request: dict[str, Any], key: str) -> Any:
    """Runs ``request`` in ``python -m dumbbell._kmod_child``; returns the
    reply's ``key``, or raises its error (a crash as one SimulationError)."""
    import pickle

    proc = subprocess.run(
        [sys.executable, "-m", "dumbbell._kmod_child"],
        input=pickle.dumps(request),
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        _raise_crash(proc)
    reply = pickle.loads(proc.stdout)
    if "error" in reply:
        _raise_error(reply["error"])
    return reply[key]


def _raise_crash(proc: subprocess.CompletedProcess[bytes]) -> None:
    err = proc.stderr.decode("utf-8", "replace")
    crash = _native.kmod_parse_crash(err)
    if crash is not None:
        module, hook, time_ps, sig = crash
        raise ModuleCrash(module, hook, time_ps / 1e12, _SIGNALS.get(sig, f"signal {sig}"))
    sig = -proc.returncode
    how = (f"was killed by {_SIGNALS.get(sig, f'signal {sig}')}" if proc.returncode < 0
           else f"exited with status {proc.returncode}")
    tail = "\n".join(err.strip().splitlines()[-5:])
    raise SimulationError(f"the run's child process {how}" + (f": {tail}" if tail else ""))


def _raise_error(error: tuple[str, tuple[Any, ...]]) -> None:
    kind, args = error
    cls = {"ConfigError": ConfigError, "LimitError": LimitError}.get(kind)
    if cls is not None:
        raise cls(*args)
    raise SimulationError(*args)


KERNEL_FILES = ("tcp_cubic.c", "tcp_dctcp.c", "tcp_dctcp.h", "tcp_highspeed.c", "tcp_vegas.c", "tcp_vegas.h",
                "tcp_bbr.c", "tcp_cong.c")


def bbr3_source() -> tuple[Path | None, str]:
    """Google's BBRv3 ``tcp_bbr.c`` (GitHub ``google/bbr``, branch ``v3``),
    and why not when there is none: ``$DUMBBELL_BBR3_SRC`` names the file,
    or a tree or directory holding it (``net/ipv4/tcp_bbr.c``). It is not
    in the repository; Linux's own ``tcp_bbr.c`` (BBR v1) is refused."""
    env = os.environ.get("DUMBBELL_BBR3_SRC")
    if not env:
        return None, ("$DUMBBELL_BBR3_SRC is unset: set it to BBRv3's tcp_bbr.c (GitHub google/bbr, branch v3, "
                      "net/ipv4/tcp_bbr.c; not in the repository)")
    for f in (Path(env), Path(env) / "tcp_bbr.c", Path(env) / "net" / "ipv4" / "tcp_bbr.c"):
        if f.is_file():
            if "bbr_skb_marked_lost" not in f.read_text(errors="replace"):
                return None, f"$DUMBBELL_BBR3_SRC: {f} is not BBRv3's tcp_bbr.c (it has no skb_marked_lost hook)"
            return f, ""
    return None, f"$DUMBBELL_BBR3_SRC={env} holds no tcp_bbr.c"


def kernel_sources(version: str = "6.12") -> tuple[Path | None, str]:
    """The directory holding Linux's ``net/ipv4/tcp_*.c`` congestion
    controls, and why not when there is none: ``$DUMBBELL_KERNEL_SRC``
    (a kernel tree, or a directory of those files), else the files taken
    once from Debian's ``linux-source-<version>`` tarball into the module
    cache. Nothing of the kernel is kept in the repository."""
    env = os.environ.get("DUMBBELL_KERNEL_SRC")
    if env:
        for d in (Path(env) / "net" / "ipv4", Path(env)):
            if (d / "tcp_cubic.c").is_file():
                return d, ""
        return None, f"$DUMBBELL_KERNEL_SRC={env} holds no tcp_cubic.c"
    tarballs = sorted(Path("/usr/src").glob(f"linux-source-{version}.tar.*"))
    if not tarballs:
        return None, (f"Debian's linux-source-{version} is not installed (/usr/src/linux-source-{version}.tar.xz; "
                      "`make test` installs it when root with apt-get), and $DUMBBELL_KERNEL_SRC is unset")
    cache = Path(os.environ.get("DUMBBELL_KMOD_CACHE") or Path(os.environ.get("XDG_CACHE_HOME")
                 or Path.home() / ".cache") / "dumbbell" / "kmod")
    out = cache / f"linux-{version}"
    ipv4 = out / f"linux-source-{version}" / "net" / "ipv4"
    if all((ipv4 / f).is_file() for f in KERNEL_FILES):
        return ipv4, ""
    # Extracted into a directory of this process's own, then renamed into
    # place in one step: two processes (the test suite's workers) never see
    # each other's half-written files.
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".extract-", dir=out))
    members = [f"linux-source-{version}/net/ipv4/{f}" for f in KERNEL_FILES]
    proc = subprocess.run(["tar", "-xf", str(tarballs[0]), "-C", str(tmp), *members],
                          capture_output=True, check=False)
    try:
        if proc.returncode != 0 or not (tmp / f"linux-source-{version}" / "net" / "ipv4" / "tcp_cubic.c").is_file():
            return None, f"cannot extract the congestion controls from {tarballs[0]}: {proc.stderr.decode()[-300:]}"
        try:
            (tmp / f"linux-source-{version}").rename(out / f"linux-source-{version}")
        except OSError:
            # Another process put its copy in place first (or an older,
            # incomplete one is there): use it if it is complete.
            if not all((ipv4 / f).is_file() for f in KERNEL_FILES):
                shutil.rmtree(out / f"linux-source-{version}", ignore_errors=True)
                (tmp / f"linux-source-{version}").rename(out / f"linux-source-{version}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return ipv4, ""


CONG_HELPERS = ("tcp_slow_start", "tcp_cong_avoid_ai", "tcp_reno_cong_avoid", "tcp_reno_ssthresh",
                "tcp_reno_undo_cwnd")
"""The functions of the kernel's ``tcp_cong.c`` that every module calls (and its Reno)."""


def cong_provider(tcp_cong_c: str | os.PathLike[str], out: str | os.PathLike[str]) -> Path:
    """Writes, at ``out`` (a scratch file, never the repository), a module
    made of the kernel's own ``tcp_cong.c`` helpers (:data:`CONG_HELPERS`,
    taken verbatim from the file the user supplies) registered as Reno:
    they replace the shim's (which are weak), so comparing this module with
    the built-in ``reno`` checks the kernel's helpers and Reno against the
    shim's and the port (``docs/kernel-modules.md``)."""
    lines = Path(tcp_cong_c).read_text().splitlines()
    parts = ["#include <linux/module.h>", "#include <net/tcp.h>", ""]
    for name in CONG_HELPERS:
        start = next((i for i, line in enumerate(lines)
                      if not line.startswith((" ", "\t")) and f" {name}(" in line and not line.rstrip().endswith(";")),
                     None)
        if start is None:
            raise ConfigError("tcp_cong.c", f"{name} is not defined in {tcp_cong_c}")
        end = next(i for i in range(start, len(lines)) if lines[i].startswith("}"))
        parts.extend([*lines[start:end + 1], ""])
    parts += [
        "static struct tcp_congestion_ops dumbbell_kernel_reno = {",
        "\t.ssthresh = tcp_reno_ssthresh,",
        "\t.cong_avoid = tcp_reno_cong_avoid,",
        "\t.undo_cwnd = tcp_reno_undo_cwnd,",
        '\t.name = "reno",',
        "};",
        "static int dumbbell_kernel_reno_register(void)",
        "{",
        "\treturn tcp_register_congestion_control(&dumbbell_kernel_reno);",
        "}",
        "module_init(dumbbell_kernel_reno_register);",
        "",
    ]
    path = Path(out)
    path.write_text("\n".join(parts))
    return path
