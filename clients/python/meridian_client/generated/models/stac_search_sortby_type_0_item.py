from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.stac_search_sortby_type_0_item_direction import StacSearchSortbyType0ItemDirection
from ..types import UNSET, Unset






T = TypeVar("T", bound="StacSearchSortbyType0Item")



@_attrs_define
class StacSearchSortbyType0Item:
    """ 
        Attributes:
            field (str):
            direction (StacSearchSortbyType0ItemDirection | Unset):
     """

    field: str
    direction: StacSearchSortbyType0ItemDirection | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        field = self.field

        direction: str | Unset = UNSET
        if not isinstance(self.direction, Unset):
            direction = self.direction.value



        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "field": field,
        })
        if direction is not UNSET:
            field_dict["direction"] = direction

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        field = d.pop("field")

        _direction = d.pop("direction", UNSET)
        direction: StacSearchSortbyType0ItemDirection | Unset
        if isinstance(_direction,  Unset):
            direction = UNSET
        else:
            direction = StacSearchSortbyType0ItemDirection(_direction)




        stac_search_sortby_type_0_item = cls(
            field=field,
            direction=direction,
        )


        stac_search_sortby_type_0_item.additional_properties = d
        return stac_search_sortby_type_0_item

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
