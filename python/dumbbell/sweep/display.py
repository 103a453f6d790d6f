"""Progress of a sweep as it runs: one line per update (:class:`LineDisplay`) or a
live bar on a terminal (:class:`RichDisplay`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any



# ---------------------------------------------------------------- progress


class Display:
    """Receives a sweep's progress; the default shows nothing."""

    def start(self, label: str, total: int, cached: int, slots: int) -> None: ...

    def advance(self, *, failed: bool, packets: int) -> None: ...

    def finish(self) -> None: ...


class LineDisplay(Display):
    """One line when runs start (for a stderr that is not a terminal):
    ``NAME: N runs (M from the store), K at a time ...``."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write

    def start(self, label: str, total: int, cached: int, slots: int) -> None:
        self.write(f"dumbbell: {label}: {total} runs ({cached} from the store), {slots} at a time ...")


class RichDisplay(Display):
    """A live line on stderr (``rich``): runs done of total, running, failed,
    taken from the store, simulated packets per second, time left."""

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console

        self.console = console or Console(stderr=True)
        self._live: Any = None

    def start(self, label: str, total: int, cached: int, slots: int) -> None:
        from rich.live import Live

        self.label, self.total, self.cached, self.slots = label, total, cached, slots
        self.done = cached
        self.failed = 0
        self.computed = 0
        self.packets = 0
        self.t0 = time.monotonic()
        self._live = Live(self._render(), console=self.console, refresh_per_second=4, transient=True,
                          get_renderable=self._render)
        self._live.start()

    def _render(self) -> Any:
        from rich.progress_bar import ProgressBar
        from rich.table import Table

        elapsed = max(1e-9, time.monotonic() - self.t0)
        todo = self.total - self.done
        running = min(self.slots, todo)
        left = "-"
        if self.computed and todo:
            left = _hms(elapsed / self.computed * todo)
        elif not todo:
            left = "0:00:00"
        grid = Table.grid(padding=(0, 1))
        grid.add_row(
            f"[bold]{self.label}[/]",
            ProgressBar(total=max(1, self.total), completed=self.done, width=30),
            f"{self.done}/{self.total} runs",
            f"{running} running",
            f"[red]{self.failed} failed[/]" if self.failed else "0 failed",
            f"{self.cached} from the store",
            f"{self.packets / elapsed / 1e6:.2f} M pkt/s",
            f"{left} left",
        )
        return grid

    def advance(self, *, failed: bool, packets: int) -> None:
        self.done += 1
        self.computed += 1
        self.failed += int(failed)
        self.packets += packets

    def finish(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None


def _hms(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
