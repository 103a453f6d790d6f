"""The papers the experiments reproduce: one table of citations, used by
every experiment's printed report, its ``meta.json``, the HTML report,
``dumbbell list`` and the docs.

Each entry gives the authors, title, venue and year as our copies of the
papers print them. Where a copy prints no venue or year, the entry says so
(and gives the year of its newest reference, a lower bound), rather than
guess. Users meet the papers by these citations and the experiments by
their names (``dctcp-queue``, ``hysteresis``, ...), never by the file
numbers of our copies.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["Paper", "PAPERS", "citation", "cite"]


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


PAPERS: dict[str, Paper] = {
    "dctcp-queue": Paper(
        experiment="dctcp-queue",
        label="E1",
        title="DCTCP queue occupancy",
        authors="N. Handigol, B. Heller, V. Jeyakumar and B. Lantz",
        surnames="Handigol, Heller, Jeyakumar and Lantz",
        paper_title="DCTCP",
        venue="a Mininet-HiFi reproduction write-up, Stanford University (titled by its subject alone; no venue "
              "or year printed in our copy; its newest reference is from 2011)",
        reproduces="M. Alizadeh, A. Greenberg, D. A. Maltz, J. Padhye, P. Patel, B. Prabhakar, S. Sengupta and "
                   "M. Sridharan, \"Data Center TCP (DCTCP)\", ACM SIGCOMM 2010, pp. 63-74",
        doc="docs/experiments/dctcp-queue.md",
    ),
    "hysteresis": Paper(
        experiment="hysteresis",
        label="E2",
        title="DCTCP with hysteresis marking and packet return in P4 switches",
        authors="V. L. G. Silva, M. A. M. Vieira and J. A. M. Nacif",
        surnames="Silva, Vieira and Nacif",
        paper_title="Data Center TCP com Histerese em Switches P4",
        venue="Universidade Federal de Viçosa and Universidade Federal de Minas Gerais (no venue or year printed in "
              "our copy; its newest reference is from 2021)",
        language="Portuguese",
        doc="docs/experiments/hysteresis.md",
    ),
    "lossy-cc": Paper(
        experiment="lossy-cc",
        label="E3",
        title="Linear, Fractional and Expolinear under loss and delay",
        authors="M. V. da Costa Madeira and D. M. F. Mattos",
        surnames="Madeira and Mattos",
        paper_title="Algoritmos de Controle de Congestionamento Justos e Eficientes para Aplicações TCP em Redes "
                    "Sensíveis a Perda de Pacotes e a Atrasos",
        venue="Universidade Federal Fluminense (no venue or year printed in our copy; its newest reference is "
              "from 2024)",
        language="Portuguese",
        doc="docs/experiments/lossy-cc.md",
    ),
    "rafle": Paper(
        experiment="rafle",
        label="E4",
        title="RAFLE: stateless short/long flow differentiation",
        authors="S. S. Mussi and M. R. N. Ribeiro",
        surnames="Mussi and Ribeiro",
        paper_title="RAFLE: Uma Proposta para Diferenciação de Fluxos sem Manutenção de Estados em Roteadores",
        venue="Universidade Federal do Espírito Santo (no venue or year printed in our copy; its newest "
              "reference is from 2012)",
        language="Portuguese",
        doc="docs/experiments/rafle.md",
    ),
    "highspeed": Paper(
        experiment="highspeed",
        label="E5",
        title="HighSpeed TCP against TCP at 1 Gb/s",
        authors="J. F. de Rezende, L. H. M. K. Costa and M. G. Rubinstein",
        surnames="de Rezende, Costa and Rubinstein",
        paper_title="Avaliação Experimental e Simulação do Protocolo TCP em Redes de Alta Velocidade",
        venue="no venue or year printed in our copy; its newest reference is from 2005",
        language="Portuguese",
        doc="docs/experiments/highspeed.md",
    ),
}
"""Experiment name → the paper it reproduces."""


def citation(experiment: str) -> str:
    """The full citation of the paper ``experiment`` reproduces."""
    return PAPERS[experiment].citation


def cite(experiment: str) -> str:
    """``E1 dctcp-queue (N. Handigol ..., "...")``: how reports name an
    experiment and its paper on one line."""
    p = PAPERS[experiment]
    return f"{p.label} {experiment}, reproducing {p.short}"
