from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.event_type_view_example import EventTypeViewExample





T = TypeVar("T", bound="EventTypeView")



@_attrs_define
class EventTypeView:
    """ One event type.

        Attributes:
            description (str):
            example (EventTypeViewExample): A payload of this type: `id`, `event`, `timestamp` and the area's fields.
            name (str): e.g. `dns.record.created`; subscriptions may also list `dns.*`, `dns.record.*` or `*`.
     """

    description: str
    example: EventTypeViewExample
    name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_type_view_example import EventTypeViewExample # noqa: PLC0415
        description = self.description

        example = self.example.to_dict()

        name = self.name


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "description": description,
            "example": example,
            "name": name,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_type_view_example import EventTypeViewExample # noqa: PLC0415
        d = dict(src_dict)
        description = d.pop("description")

        example = EventTypeViewExample.from_dict(d.pop("example"))




        name = d.pop("name")

        event_type_view = cls(
            description=description,
            example=example,
            name=name,
        )


        event_type_view.additional_properties = d
        return event_type_view

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
