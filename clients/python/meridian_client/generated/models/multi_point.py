from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.multi_point_type import MultiPointType
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="MultiPoint")



@_attrs_define
class MultiPoint:
    """ 
        Attributes:
            coordinates (list[list[float]]):
            type_ (MultiPointType):
            bbox (list[float] | Unset):
     """

    coordinates: list[list[float]]
    type_: MultiPointType
    bbox: list[float] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        coordinates = []
        for coordinates_item_data in self.coordinates:
            coordinates_item = coordinates_item_data


            coordinates.append(coordinates_item)



        type_ = self.type_.value

        bbox: list[float] | Unset = UNSET
        if not isinstance(self.bbox, Unset):
            bbox = self.bbox




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "coordinates": coordinates,
            "type": type_,
        })
        if bbox is not UNSET:
            field_dict["bbox"] = bbox

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        coordinates = []
        _coordinates = d.pop("coordinates")
        for coordinates_item_data in (_coordinates):
            coordinates_item = cast(list[float], coordinates_item_data)

            coordinates.append(coordinates_item)


        type_ = MultiPointType(d.pop("type"))




        bbox = cast(list[float], d.pop("bbox", UNSET))


        multi_point = cls(
            coordinates=coordinates,
            type_=type_,
            bbox=bbox,
        )


        multi_point.additional_properties = d
        return multi_point

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
