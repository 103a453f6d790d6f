"""Where the lossy-cc authors' kernel modules are, if a user has them: the
directory ``$DUMBBELL_LOSSY_CC_MODULES`` names (linha01.c, frac01.c and
expolin01.c of Madeira and Mattos, from GitHub marcosvcm/CCAChikorita). The
modules are not in the repository; the tests that need them skip without."""

from __future__ import annotations

import os
from pathlib import Path

VARIABLE = "DUMBBELL_LOSSY_CC_MODULES"

SKIP_REASON = ("the authors' modules (linha01.c, frac01.c, expolin01.c from GitHub marcosvcm/CCAChikorita) are not "
               f"in the repository; set {VARIABLE} to a directory holding them")


def authors_modules_dir() -> Path | None:
    """The directory the variable names, or None when it is unset or empty."""
    # DUMBBELL_SEED001_MODULES: the variable's former name, still read.
    value = os.environ.get(VARIABLE) or os.environ.get("DUMBBELL_SEED001_MODULES")
    return Path(value) if value else None
