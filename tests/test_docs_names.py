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
