"""The child process a run with a kernel-module control executes in
(``dumbbell.kmod.run_in_child``): reads the request (pickled) on stdin,
runs it, and writes the raw tables or the error (pickled) on stdout. A
fatal signal in a module is reported on stderr by the native crash
handler, which names the module, the hook and the simulated time."""

from __future__ import annotations

import json
import pickle
import sys
from typing import Any


def _picklable(raw: dict[str, dict[str, tuple[str, Any]]]) -> dict[str, dict[str, tuple[str, Any]]]:
    """The native tables with each column's buffer (``_native.Buffer``,
    which does not pickle) as bytes: one copy, in the child only."""

    def data(dtype: str, d: Any) -> Any:
        if dtype == "str":
            return d
        if dtype == "strdict":
            codes, values = d
            return (bytes(memoryview(codes)), values)
        return bytes(memoryview(d))

    return {t: {c: (dt, data(dt, d)) for c, (dt, d) in cols.items()} for t, cols in raw.items()}


def main() -> None:
    from . import _native
    from .errors import ConfigError
    from .run.runner import _native_errors, _run_native

    prefix = "kmod:"  # dumbbell.kmod.PREFIX (not imported: it loads pydantic)

    request = pickle.load(sys.stdin.buffer)
    _native.kmod_install_crash_report()
    reply: dict[str, Any]
    try:
        if "compare" in request:
            c = request["compare"]
            try:
                reply = {"compare": _native.kmod_compare(c["id"], c["as"], c["label"])}
            except ValueError as e:
                raise ConfigError("module", str(e)) from None
            sys.stdout.buffer.write(pickle.dumps(reply))
            sys.stdout.buffer.flush()
            return
        for mid in request["modules"]:
            try:
                _native.kmod_load_check(mid)
            except ValueError as e:
                at = json.loads(mid[len(prefix):])["at"]
                msg = str(e)
                part = "params" if ("parameter" in msg) else "module"
                raise ConfigError(f"{at}.{part}", msg) from None
        handle = _native.RunHandle()
        raw, interrupted = _run_native(
            request["config"], handle, request["timeout_s"], None, 0.5, None, modules=request["modules"]
        )
        reply = {"run": {"raw": _picklable(raw), "interrupted": interrupted}}
    except BaseException as e:  # noqa: BLE001 - handed to the parent
        err = _native_errors(e)
        reply = {"error": (type(err).__name__, tuple(str(a) if not isinstance(a, (int, float)) else a
                                                      for a in err.args))}
    sys.stdout.buffer.write(pickle.dumps(reply))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
