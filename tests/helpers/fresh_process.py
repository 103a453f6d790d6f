"""A test that runs in a fresh interpreter of its own.

For the Ctrl-C tests: they need a process whose SIGINT reaches Python's
default handler at once. In a worker that has run hundreds of other tests
first (DuckDB stores, Dask clusters, in-process command lines) an interrupt
was lost twice on a fresh clone's CI run (not traced; the same tests pass
alone and in reruns), so these tests no longer depend on what ran before
them. The test body and its assertions are unchanged; only where it runs."""

from __future__ import annotations

import functools
import inspect
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

_ENV = "DUMBBELL_TEST_IN_FRESH_PROCESS"
_REPO = Path(__file__).resolve().parents[2]


def in_fresh_process(test: Callable[..., Any]) -> Callable[..., Any]:
    """Runs ``test`` (with its fixtures) by pytest in a new interpreter; the
    outer test fails with the inner one's output when it fails."""

    @functools.wraps(test)
    def outer(*args: Any, **kwargs: Any) -> Any:
        if os.environ.get(_ENV) == test.__name__:
            return test(*args, **kwargs)
        node = f"{Path(inspect.getsourcefile(test) or '').resolve()}::{test.__name__}"
        env = {**os.environ, _ENV: test.__name__}
        p = subprocess.run(
            [sys.executable, "-m", "pytest", "-W", "error", "-q", "-p", "no:cacheprovider", node],
            cwd=_REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert p.returncode == 0, f"{node} in a fresh process:\n{p.stdout[-4000:]}\n{p.stderr[-2000:]}"
        assert "1 passed" in p.stdout, p.stdout[-2000:]
        return None

    return outer
