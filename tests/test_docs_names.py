"""The docs name fields that exist: every `record.<field>` in README.md and
docs/ is a field of `db.Record` (docs/output.md once named
`record.warmup_ps` and `record.flow_sample_ps`; the fields are `_s`)."""

from __future__ import annotations

import re

import dumbbell as db

from .conftest import REPO


def test_every_record_field_named_in_the_docs_exists():
    known = set(db.Record.model_fields)
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    wrong = []
    for page in pages:
        for m in re.finditer(r"`record\.([a-z_]+)", page.read_text()):
            if m.group(1) not in known:
                wrong.append(f"{page.relative_to(REPO)}: record.{m.group(1)}")
    assert not wrong, wrong


def test_the_readme_two_class_snippet_runs_on_its_own():
    # It once used the tour's scenario and failed with "no link between
    # 'router' and 'client'"; it must run in a fresh namespace.
    text = (REPO / "README.md").read_text()
    start = text.index("The mechanisms are there for any scenario")
    code = text[text.index("```python\n", start) + 10: text.index("```", text.index("```python\n", start) + 10)]
    assert "import dumbbell as db" in code
    ns: dict = {}
    exec(compile(code, "README.md (two-class snippet)", "exec"), ns)
    r = ns["r"]
    tasks, classes = r.tables["tasks"], r.tables["classification"]
    assert tasks.height > 0 and (tasks["completion_ps"] > 0).sum() > 0
    assert classes.height == 1 and classes["node"][0] == "router" and classes["peer"][0] == "client"
