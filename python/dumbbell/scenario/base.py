"""The base of every scenario model, shared by :mod:`dumbbell.scenario`,
:mod:`dumbbell.scenario.twoclass` and :mod:`dumbbell.scenario.workloads`.

:class:`Model` forbids unknown fields, takes numbers strictly and floats
finite only, and raises one
:class:`~dumbbell.errors.ConfigError` naming the field at fault instead of
pydantic's ``ValidationError``. :func:`kind_of` picks the member of a tagged
union from its ``kind`` (a dict key or an attribute), with a default.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, model_validator

from ..errors import ConfigError, from_validation_error
from ..suggest import did_you_mean

__all__ = ["Model", "kind_of", "BUILT_AT_IMPORT", "U32_MAX", "U64_MAX"]

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1


class Model(BaseModel):
    """Base of every scenario model: unknown fields are errors, numbers are
    strict (``true`` is not 1, ``"3"`` is not 3, ``2.0`` is not an integer),
    floats are finite, a value assigned after construction is parsed and
    checked as at construction (``link.rate_bps = "50Mbps"``), and a
    validation failure is raised as one
    :class:`ConfigError` naming its field. A model's validator is built
    when it is first used (``defer_build``: a scenario names a few of the
    component models, :mod:`.lazy_union`). Models added later inherit all of
    it; give every numeric field its range (both bounds) in its ``Field``, with
    its unit in the name or the description (``tests/test_robust.py`` checks,
    and ``docs/scenario.md`` is generated from them)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, validate_assignment=True, defer_build=True)

    @model_validator(mode="wrap")
    @classmethod
    def _suggest_field(cls, data: Any, handler: Any) -> Any:
        # An unknown field of this model names the closest known one
        # (`links[4].dealy_s: unknown field (did you mean 'delay_s'?)`). The
        # check sees the fields after any shorthand of the model is unfolded.
        try:
            return handler(data)
        except ValidationError as e:
            first = e.errors()[0]
            loc = first.get("loc", ())
            if first.get("type") != "extra_forbidden" or len(loc) != 1 or not isinstance(loc[0], str):
                raise
            more = e.error_count() - 1
            known = [*cls.model_fields, *getattr(cls, "__shorthand_fields__", ())]
            hint = did_you_mean(loc[0], known)
            tail = f" (and {more} more error(s))" if more else ""
            raise ConfigError(loc[0], f"unknown field{hint}{tail}") from None

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as e:
            raise from_validation_error(e) from None

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in type(self).model_fields and not name.startswith("_") and not hasattr(type(self), name):
            # `link.dealy_s = 1` would be pydantic's "object has no field"
            raise ConfigError(name, f"unknown field{did_you_mean(name, type(self).model_fields)}")
        # validate_assignment: ``link.rate_bps = "50Mbps"`` is parsed and
        # checked as at construction, and a bad value is one ConfigError
        # naming the field. A check across fields (``reorder_ab`` needs
        # ``reorder_delay_s``) that fails here is left to ``to_core()``, as
        # for edits of lists: the object may pass through such states while
        # a user edits it field by field.
        try:
            super().__setattr__(name, value)
        except ValidationError as e:
            if name not in type(self).model_fields or any(err.get("loc") for err in e.errors()):
                raise from_validation_error(e) from None
            try:
                parsed = _field_adapter(type(self), name).validate_python(value)
            except ValidationError as e2:
                raise from_validation_error(e2, name) from None
            self.__dict__[name] = parsed
            self.__pydantic_fields_set__.add(name)

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any):  # type: ignore[override]
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as e:
            raise from_validation_error(e) from None


BUILT_AT_IMPORT = ConfigDict(defer_build=False)
"""``model_config`` of the models every scenario holds (``Node``, ``Link``,
``TcpOptions``, ``Record``): built when defined, so that the models holding
them reuse their validators instead of building them again inside their own
(a model built first on use is built anew inside each model that holds it)."""


@functools.cache
def _field_adapter(model: type[BaseModel], name: str) -> TypeAdapter[Any]:
    """A validator of one field alone (its type and constraints, as the
    model's config reads them)."""
    info = model.model_fields[name]
    tp = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
    return TypeAdapter(tp, config=ConfigDict(strict=True, allow_inf_nan=False))


def kind_of(default: str | None):
    """A discriminator for a union tagged by ``kind``; ``default`` when absent."""

    def pick(v: Any) -> str | None:
        if isinstance(v, dict):
            return v.get("kind", default)
        return getattr(v, "kind", default)

    return pick
