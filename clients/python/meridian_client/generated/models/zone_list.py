from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.zone_view import ZoneView





T = TypeVar("T", bound="ZoneList")



@_attrs_define
class ZoneList:
    """ A page of zones, exactly as the interface shapes it.

        Attributes:
            total (int):
            zones (list[ZoneView]):
     """

    total: int
    zones: list[ZoneView]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.zone_view import ZoneView # noqa: PLC0415
        total = self.total

        zones = []
        for zones_item_data in self.zones:
            zones_item = zones_item_data.to_dict()
            zones.append(zones_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "total": total,
            "zones": zones,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.zone_view import ZoneView # noqa: PLC0415
        d = dict(src_dict)
        total = d.pop("total")

        zones = []
        _zones = d.pop("zones")
        for zones_item_data in (_zones):
            zones_item = ZoneView.from_dict(zones_item_data)



            zones.append(zones_item)


        zone_list = cls(
            total=total,
            zones=zones,
        )


        zone_list.additional_properties = d
        return zone_list

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
