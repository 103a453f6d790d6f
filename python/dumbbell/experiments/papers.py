"""The papers the experiments reproduce: how a citation is written, used by
every experiment's printed report, its ``meta.json``, the HTML report,
``dumbbell list`` and the docs. Each experiment declares its paper
(``PAPER``) in its package's ``__init__.py``; :func:`paper_of` and
``PAPERS`` read them through :mod:`dumbbell.experiments.registry`.

Each entry gives the authors, title, venue and year as our copies of the
papers print them. Where a copy prints no venue or year, the entry says so
(and gives the year of its newest reference, a lower bound), rather than
guess. Users meet the papers by these citations and the experiments by
their names (``dctcp-queue``, ``hysteresis``, ...), never by the file
numbers of our copies.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Paper", "paper_of", "citation", "cite"]


@dataclass(frozen=True)
class Paper:
    """One reproduced paper and the experiment that reproduces it."""

    experiment: str
    """The experiment's name (``dumbbell reproduce NAME``)."""
    label: str
    """E1 ... E5."""
    title: str
    """What the experiment is about, in a few words."""
    authors: str
    surnames: str
    """The authors' surnames, as reports name the paper in running text."""
    paper_title: str
    venue: str
    """Venue and year as our copy prints them, or what it lacks."""
    language: str = "en"
    reproduces: str = ""
    """The work the paper itself reproduces, if any."""
    doc: str = ""
    """The experiment's page in docs/experiments/."""

    @property
    def short(self) -> str:
        """Authors' surnames and title, for one line."""
        return f"{self.surnames}, \"{self.paper_title}\""

    @property
    def citation(self) -> str:
        """The full citation: authors, title, venue and year."""
        text = f"{self.authors}, \"{self.paper_title}\", {self.venue}"
        if self.language != "en":
            text += f" (in {self.language})"
        if self.reproduces:
            text += f"; reproducing {self.reproduces}"
        return text

    def to_dict(self) -> dict[str, str]:
        return {**asdict(self), "citation": self.citation}


def __getattr__(name: str) -> Any:
    # `papers.PAPERS`: experiment name -> the paper it reproduces, each
    # declared by its experiment's package (PAPER) since issue 28
    if name == "PAPERS":
        from .registry import rooms

        return {n: room.PAPER for n, room in rooms().items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def paper_of(experiment: str) -> Paper:
    """The paper ``experiment`` reproduces (``PAPER`` in its package)."""
    from .registry import rooms

    return rooms()[experiment].PAPER


def citation(experiment: str) -> str:
    """The full citation of the paper ``experiment`` reproduces."""
    return paper_of(experiment).citation


def cite(experiment: str) -> str:
    """``E1 dctcp-queue (N. Handigol ..., "...")``: how reports name an
    experiment and its paper on one line."""
    p = paper_of(experiment)
    return f"{p.label} {experiment}, reproducing {p.short}"
