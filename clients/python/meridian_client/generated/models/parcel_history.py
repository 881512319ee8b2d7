from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.parcel_version import ParcelVersion





T = TypeVar("T", bound="ParcelHistory")



@_attrs_define
class ParcelHistory:
    """ 
        Attributes:
            id (str):
            versions (list[ParcelVersion]):
     """

    id: str
    versions: list[ParcelVersion]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.parcel_version import ParcelVersion # noqa: PLC0415
        id = self.id

        versions = []
        for versions_item_data in self.versions:
            versions_item = versions_item_data.to_dict()
            versions.append(versions_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "versions": versions,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.parcel_version import ParcelVersion # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        versions = []
        _versions = d.pop("versions")
        for versions_item_data in (_versions):
            versions_item = ParcelVersion.from_dict(versions_item_data)



            versions.append(versions_item)


        parcel_history = cls(
            id=id,
            versions=versions,
        )


        parcel_history.additional_properties = d
        return parcel_history

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
