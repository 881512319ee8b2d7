from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast

if TYPE_CHECKING:
  from ..models.queryables_properties import QueryablesProperties





T = TypeVar("T", bound="Queryables")



@_attrs_define
class Queryables:
    """ A JSON Schema (draft 2020-12) of the properties a filter or sort may name

        Attributes:
            properties (QueryablesProperties):
            type_ (Literal['object']):
            id (str | Unset):
            schema (str | Unset):
            additional_properties (bool | Unset):
            title (str | Unset):
     """

    properties: QueryablesProperties
    type_: Literal['object']
    id: str | Unset = UNSET
    schema: str | Unset = UNSET
    additional_properties: bool | Unset = UNSET
    title: str | Unset = UNSET
    additional_members: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.queryables_properties import QueryablesProperties # noqa: PLC0415
        properties = self.properties.to_dict()

        type_ = self.type_

        id = self.id

        schema = self.schema

        additional_properties = self.additional_properties

        title = self.title


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_members)
        field_dict.update({
            "properties": properties,
            "type": type_,
        })
        if id is not UNSET:
            field_dict["$id"] = id
        if schema is not UNSET:
            field_dict["$schema"] = schema
        if additional_properties is not UNSET:
            field_dict["additionalProperties"] = additional_properties
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queryables_properties import QueryablesProperties # noqa: PLC0415
        d = dict(src_dict)
        properties = QueryablesProperties.from_dict(d.pop("properties"))




        type_ = cast(Literal['object'] , d.pop("type"))
        if type_ != 'object':
            raise ValueError(f"type must match const 'object', got '{type_}'")

        id = d.pop("$id", UNSET)

        schema = d.pop("$schema", UNSET)

        additional_properties = d.pop("additionalProperties", UNSET)

        title = d.pop("title", UNSET)

        queryables = cls(
            properties=properties,
            type_=type_,
            id=id,
            schema=schema,
            additional_properties=additional_properties,
            title=title,
        )


        queryables.additional_members = d
        return queryables

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_members.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_members[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_members[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_members[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_members
