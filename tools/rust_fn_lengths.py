"""The longest functions of the Rust core (issue 28's measure).

How it counts: a function runs from its `fn` line to the line of the brace
that closes its body (braces matched, strings and comments aside from the
count only roughly: good enough for sizes); test modules (`#[cfg(test)]`
to the end of a file) and test files are left out.

    python3 tools/rust_fn_lengths.py [N] [SRC_DIR]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def main() -> None:
    args = sys.argv[1:]
    n = int(args[0]) if args else 15
    src = Path(args[1] if len(args) > 1 else "crates/dumbbell-core/src")
    found = []
    for f in sorted(src.rglob("*.rs")):
        if f.name in ("tests.rs", "testkit.rs"):
            continue
        lines = f.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.startswith("#[cfg(test)]") and lines[i + 1 : i + 2] and lines[i + 1].startswith("mod "):
                break
            m = re.match(r"\s*(?:pub(?:\([\w:]+\))?\s+)?(?:const\s+)?fn\s+(\w+)", line)
            if not m:
                continue
            depth, opened = 0, False
            for j in range(i, len(lines)):
                code = re.sub(r'"(?:\\.|[^"\\])*"', '""', re.sub(r"//.*", "", lines[j]))
                depth += code.count("{") - code.count("}")
                opened = opened or "{" in code
                if opened and depth <= 0:
                    found.append((j - i + 1, f"{f.relative_to(src)}:{i + 1}", m.group(1)))
                    break
                if not opened and code.rstrip().endswith(";"):
                    break
    for length, where, name in sorted(found, reverse=True)[:n]:
        print(f"{length:5d}  {name:32s} {where}")


if __name__ == "__main__":
    main()
