"""The base of every scenario model, shared by :mod:`dumbbell.scenario`,
:mod:`dumbbell.classes` and :mod:`dumbbell.workloads`.

:class:`Model` forbids unknown fields, takes numbers strictly and floats
finite only, and raises one
:class:`~dumbbell.errors.ConfigError` naming the field at fault instead of
pydantic's ``ValidationError``. :func:`kind_of` picks the member of a tagged
union from its ``kind`` (a dict key or an attribute), with a default.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import from_validation_error

__all__ = ["Model", "kind_of", "U32_MAX", "U64_MAX"]

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1


class Model(BaseModel):
    """Base of every scenario model: unknown fields are errors, numbers are
    strict (``true`` is not 1, ``"3"`` is not 3, ``2.0`` is not an integer),
    floats are finite, and a validation failure is raised as one
    :class:`ConfigError` naming its field. Models added later inherit all of
    it; give every numeric field its range (both bounds) in its ``Field``, with
    its unit in the name or the description (``tests/test_robust.py`` checks,
    and ``docs/scenario.md`` is generated from them)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as e:
            raise from_validation_error(e) from None

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any):  # type: ignore[override]
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as e:
            raise from_validation_error(e) from None


def kind_of(default: str | None):
    """A discriminator for a union tagged by ``kind``; ``default`` when absent."""

    def pick(v: Any) -> str | None:
        if isinstance(v, dict):
            return v.get("kind", default)
        return getattr(v, "kind", default)

    return pick
