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
Serialized values are the member's own serialization; the JSON schema is
the discriminated union's.
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
        self.generating: list[str] | None = None  # the members' refs while its JSON schema is made

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        # The members' schemas are not asked for (`handler` is not called).
        return core_schema.no_info_plain_validator_function(
            self.validate, serialization=core_schema.plain_serializer_function_ser_schema(_same)
        )

    def __get_pydantic_json_schema__(self, schema: Any, handler: Any) -> Any:
        # The discriminated union's JSON schema (every member built). Inside a
        # member (a queue's `long_queue`) the members are being defined:
        # they are referred to, as pydantic does for a recursive union.
        if self.generating is not None:
            return {"oneOf": [handler(core_schema.definition_reference_schema(ref)) for ref in self.generating]}
        from pydantic import Discriminator, TypeAdapter

        union = Union[tuple(Annotated[m, Tag(t)] for t, m in self.members.items())]  # type: ignore[valid-type]
        whole = TypeAdapter(Annotated[union, Discriminator(self.pick)]).core_schema
        refs: set[str] = set()
        _refs(whole, refs)
        self.generating = [r for m in self.members.values() for r in sorted(refs)
                           if r.startswith(f"{m.__module__}.{m.__qualname__}:")]
        try:
            return handler(whole)
        finally:
            self.generating = None

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


def _refs(schema: Any, out: set[str]) -> None:
    """Every core ref a core schema defines or names."""
    if isinstance(schema, dict):
        for key in ("ref", "schema_ref"):
            if isinstance(schema.get(key), str):
                out.add(schema[key])
        for value in schema.values():
            _refs(value, out)
    elif isinstance(schema, (list, tuple)):
        for value in schema:
            _refs(value, out)


def lazy_union(members: dict[str, type], pick: Callable[[Any], Any], *metadata: Any) -> Any:
    """``Annotated[Union[Annotated[M, Tag(t)], ...], ...]`` validated by tag
    (``pick(value)``, as pydantic's ``Discriminator``), each member built on
    first use. ``metadata`` follows (a ``BeforeValidator`` runs first)."""
    union = Union[tuple(Annotated[cls, Tag(tag)] for tag, cls in members.items())]  # type: ignore[valid-type]
    return Annotated[(union, _ByTag(dict(members), pick), *metadata)]
