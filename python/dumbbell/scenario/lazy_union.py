"""Unions tagged by ``kind`` whose members are built when first used.

A scenario names a few of the component models (``Cubic``, ``DropTail``)
and leaves dozens unused. A pydantic discriminated union builds every
member's validator when the model holding it is built, which is most of
what importing the scenario models costs (issue 29: ``dumbbell run``'s
start). :func:`lazy_union` gives the same type, ``Annotated[Union[...],
...]`` with each member tagged (so ``typing.get_args`` and the generated
documentation see the members as before), whose validator picks the member
by its tag and validates with that member's own validator, built on its
first use (the members are declared with ``defer_build``). What it accepts,
returns and reports is the discriminated union's: the member's errors keep
their location below the field, an unknown tag is ``union_tag_invalid``
with the known tags, a missing one ``union_tag_not_found``; only the tag
itself is no longer a step of the location (``field_path`` removed it).
Serialized values are the member's own serialization.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Union

from pydantic import Tag
from pydantic_core import PydanticKnownError, core_schema

__all__ = ["lazy_union"]


def _same(value: Any) -> Any:
    return value  # serialized by its own model's serializer


class _ByTag:
    """The validator of a lazy union: tag → member → its validator."""

    def __init__(self, members: dict[str, type], pick: Callable[[Any], Any]) -> None:
        self.members = members
        self.pick = pick
        self.expected = ", ".join(repr(t) for t in members)

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        # The members' schemas are not asked for (`handler` is not called).
        return core_schema.no_info_plain_validator_function(
            self.validate, serialization=core_schema.plain_serializer_function_ser_schema(_same)
        )

    def validate(self, value: Any) -> Any:
        tag = self.pick(value)
        if tag is None:
            raise PydanticKnownError("union_tag_not_found", {"discriminator": f"{self.pick.__name__}()"})
        member = self.members.get(tag) if isinstance(tag, str) else None
        if member is None:
            raise PydanticKnownError(
                "union_tag_invalid",
                {"discriminator": f"{self.pick.__name__}()", "tag": str(tag), "expected_tags": self.expected},
            )
        return member.__pydantic_validator__.validate_python(value)


def lazy_union(members: dict[str, type], pick: Callable[[Any], Any], *metadata: Any) -> Any:
    """``Annotated[Union[Annotated[M, Tag(t)], ...], ...]`` validated by tag
    (``pick(value)``, as pydantic's ``Discriminator``), each member built on
    first use. ``metadata`` follows (a ``BeforeValidator`` runs first)."""
    union = Union[tuple(Annotated[cls, Tag(tag)] for tag, cls in members.items())]  # type: ignore[valid-type]
    return Annotated[(union, _ByTag(dict(members), pick), *metadata)]
