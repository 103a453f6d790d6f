"""The docs name files that exist: every repository path written in
backticks in README.md, DESIGN.md and docs/**/*.md names a file or folder
of the checkout (docs/kernel-modules.md once named `cc/seed001.rs`, renamed
to `cc/loss_phases.rs` long before).

What counts as a path, and where it resolves:

- A span whose words contain a ``/`` and end in a file extension or a ``/``,
  or start with a top-level folder of the repository (``crates/``,
  ``python/``, ``tests/``, ...), is a path. It exists if it does relative to
  one of ``ROOTS``: the repository, each crate and its ``src/``,
  ``python/``, the package, its ``experiments/`` and ``tests/`` (so
  ``world/ports.rs``, ``cc/mod.rs``, ``sweep/cost.py`` and ``tests/physics.rs``
  resolve). ``{a,b}`` alternatives are expanded; a pytest or cargo test id
  (``tests/x.py::test_y``) must also name a test function of that file.
- A bare file name in a one-word span (``cli.py``, ``aqm.rs``) exists if a
  file of that name is somewhere in the repository.
- Not paths: module paths (``dumbbell.sweep``), URLs, absolute and home
  paths, placeholders (``DIR/x.c``, ``cc/<name>.rs``, globs), and the files
  of ``OUTSIDE`` and ``WRITTEN``, which the docs name on purpose.
Fenced code blocks and multi-word spans are checked only for words that
start with a top-level folder (``python tools/rafle_trace.py``).

Relative Markdown links in the same pages are checked too: the file, and
the heading a ``#anchor`` names (GitHub's slugs, as verdicts link them)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path

from .conftest import REPO

# Files outside the repository that the docs name on purpose. Keep each
# group commented; add to it only what is truly not ours.
OUTSIDE = frozenset({
    # Linux sources and headers (net/ipv4/, include/): what the ports follow
    "net/ipv4/tcp_bbr.c", "net/ipv4/tcp_cubic.c", "net/ipv4/tcp_prague.c", "net/ipv4/tcp_output.c", "net/tcp.h",
    "asm/div64.h", "linux/math64.h", "linux/module.h", "linux/win_minmax.h", "tcp.c", "tcp_bbr.c", "tcp_cong.c",
    "tcp_cubic.c", "tcp_dctcp.c", "tcp_highspeed.c", "tcp_input.c", "tcp_output.c", "tcp_prague.c", "tcp_rate.c",
    "tcp_scalable.c", "tcp_timer.c", "tcp_vegas.c",
    # htsim's sources (docs/performance.md compares with it)
    "sim/datacenter/main_tcp.cpp",
    # Madeira and Mattos's kernel modules (GitHub marcosvcm/CCAChikorita)
    "linha01.c", "frac01.c", "expolin01.c",
})

# The experiment DESIGN.md's "add an experiment" walks through: not written yet.
HYPOTHETICAL = frozenset({"toy", "toy.md", "test_toy.py"})

# What dumbbell writes (run, reproduction and sweep outputs, the results
# store's layout), named by the docs as a user finds it.
WRITTEN = frozenset({
    "out", "runs", "tmp", "quarantine", "dumbbell-results", "paper.csv", "rows.csv", "result.json",
    "timings.json", "timing.json", "config.json", "meta.json", "run.json", "index.html", "scenario.toml",
    "diagnostics.csv",
})

SKIP_DIRS = frozenset({"target", ".venv", ".git", "__pycache__", "dumbbell-results", "out", "node_modules"})
TOP = frozenset(p.name for p in REPO.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name not in SKIP_DIRS)
ROOTS = [REPO, *sorted(REPO.glob("crates/*/")), *sorted(REPO.glob("crates/*/src/")), REPO / "python",
         REPO / "python/dumbbell", REPO / "python/dumbbell/experiments", REPO / "tests"]
# The extensions that make a word a file name (`dumbbell.sweep` is a module).
# Plots, captures and tables (.png, .pcap, .parquet) are what a run writes.
EXT = re.compile(r"\.(rs|py|md|toml|c|h|cpp|json|jsonl|csv|txt|sh|html|js|yml|yaml|lock|cfg)$")
WORD = re.compile(r"^[A-Za-z0-9_.{},\-]+(/[A-Za-z0-9_.{},\-]+)*/?$")


def pages() -> list[Path]:
    return [REPO / "README.md", REPO / "DESIGN.md", *sorted((REPO / "docs").rglob("*.md"))]


def spans(text: str) -> Iterator[tuple[str, bool]]:
    """(text, whole) for each backticked span and each fenced block's line;
    whole is True for a one-word inline span."""
    blocks = re.split(r"^```.*$", text, flags=re.M)
    for i, block in enumerate(blocks):
        if i % 2:  # inside a fence
            yield from ((line, False) for line in block.splitlines())
            continue
        for m in re.finditer(r"`([^`\n]+)`", block):
            span = m.group(1).strip()
            yield span, " " not in span


def expand(path: str) -> list[str]:
    """`tcp/sender/{input,output}.rs` -> both files."""
    parts = re.split(r"\{([^{}]*)\}", path)
    choices = [p.split(",") if i % 2 else [p] for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


def candidates(span: str, whole: bool) -> Iterator[str]:
    """The repository paths a span names (as written, test id included)."""
    words = [span] if whole else span.split()
    for word in words:
        word = word.strip("\"'(),;:").split("#")[0]
        path = word.split("::")[0]
        if not path or "://" in word or path.startswith(("/", "~", "$", "-")) or not WORD.match(path):
            continue
        first = path.split("/")[0]
        if any(seg.isupper() or seg.split(".")[0].isupper() for seg in path.split("/")):
            continue  # a placeholder: DIR/linha01.c, NAME.parquet, OUT.c
        if not whole and first not in TOP:
            continue
        if "/" in path and not (EXT.search(path) or path.endswith("/") or first in TOP):
            continue  # a ratio or a repository on GitHub: k/2, google/bbr
        if "/" not in path and not (whole and EXT.search(path) and path.split(".")[0]):
            continue  # a module path or a word
        yield word


def ignored(path: str) -> bool:
    name = path.rstrip("/")
    return (name in OUTSIDE or name in WRITTEN or name.split("/")[0] in WRITTEN
            or any(seg in HYPOTHETICAL for seg in name.split("/")))


def basenames() -> set[str]:
    names: set[str] = set()
    stack = [REPO]
    while stack:
        for p in stack.pop().iterdir():
            if p.is_dir():
                if p.name not in SKIP_DIRS:
                    stack.append(p)
                    names.add(p.name + "/")
            else:
                names.add(p.name)
    return names


def resolve(word: str, names: set[str]) -> str | None:
    """None when `word` names what exists; else what is wrong with it."""
    path, _, test = word.partition("::")
    if ignored(path):
        return None
    if "/" not in path.rstrip("/"):
        return None if path in names else "no file or folder of that name in the repository"
    for one in expand(path):
        found = [root / one for root in ROOTS if (root / one).exists()]
        if not found:
            return f"{one} is under none of the roots"
        if test and not any(re.search(rf"(def|fn) {re.escape(test)}\b", f.read_text()) for f in found if f.is_file()):
            return f"{one} has no test {test}"
    return None


def stale_paths(page_texts: dict[str, str]) -> list[str]:
    names = basenames()
    wrong = []
    for page, text in page_texts.items():
        for span, whole in spans(text):
            for word in candidates(span, whole):
                why = resolve(word, names)
                if why:
                    wrong.append(f"{page}: `{word}`: {why}")
    return sorted(set(wrong))


def test_every_repository_path_the_docs_name_exists():
    texts = {str(p.relative_to(REPO)): p.read_text() for p in pages()}
    wrong = stale_paths(texts)
    assert not wrong, "\n".join(wrong)


def test_the_check_finds_a_made_up_path_and_passes_what_is_not_one():
    page = """See `cc/seed001.rs` and `world/ports.rs`, `crates/dumbbell-core/src/cc/mod.rs`,
`tools/no_such_tool.py`, `tcp/sender/{input,nothere}.rs`, `tests/test_docs_paths.py::test_nope`,
`tests/test_docs_paths.py::test_every_repository_path_the_docs_name_exists`, `nowhere_at_all.py`.
Not paths: `dumbbell.sweep`, `https://example.org/a/b.py`, `net/ipv4/tcp_output.c`, `k/2`, `google/bbr`,
`DIR/linha01.c`, `cc/<name>.rs`, `/tmp/x.py`, `out/NAME/`, `paper.csv`, `Mb/s`.
```sh
python tools/also_missing.py --out out/x
```
"""
    wrong = stale_paths({"made-up.md": page})
    assert [w.split("`")[1] for w in wrong] == [
        "cc/seed001.rs", "nowhere_at_all.py", "tcp/sender/{input,nothere}.rs",
        "tests/test_docs_paths.py::test_nope", "tools/also_missing.py", "tools/no_such_tool.py"], wrong


def stale_links(page_texts: dict[Path, str]) -> list[str]:
    """Relative Markdown links whose file, or heading (`#anchor` of a
    Markdown page), does not exist; links to other sites are not checked."""
    from dumbbell.experiments.claims import anchors

    wrong = []
    for page, text in page_texts.items():
        prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
        for m in re.finditer(r"\]\(([^)\s]+)\)", prose):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = page.parent / path
            if path and not file.exists():
                wrong.append(f"{page.name}: ({target}): no such file")
            elif anchor and (not path or file.suffix == ".md"):
                if anchor not in anchors(file.read_text() if path else text):
                    wrong.append(f"{page.name}: ({target}): no such heading")
    return wrong


def test_every_relative_link_in_the_docs_names_a_file_and_heading_that_exist():
    wrong = stale_links({p: p.read_text() for p in pages()})
    assert not wrong, "\n".join(wrong)


def test_the_link_check_finds_a_made_up_file_and_heading():
    page = REPO / "docs" / "made-up.md"
    text = """# Made up
[ok](model.md), [ok](experiments/README.md#verdicts-and-the-tolerance-policy), [ok](#made-up),
[site](https://example.org/x.md), [no](experiments/e3.md), [no](model.md#no-such-heading), [no](#nor-here).
"""
    assert [w.split("(")[1].split(")")[0] for w in stale_links({page: text})] == [
        "experiments/e3.md", "model.md#no-such-heading", "#nor-here"]
