from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.compute_request_zones_filter_json import ComputeRequestZonesFilterJson





T = TypeVar("T", bound="ComputeRequestZones")



@_attrs_define
class ComputeRequestZones:
    """ 
        Attributes:
            all_touched (bool | Unset):
            collection (str | Unset):
            filter_ (str | Unset): CQL2 text
            filter_json (ComputeRequestZonesFilterJson | Unset):
     """

    all_touched: bool | Unset = UNSET
    collection: str | Unset = UNSET
    filter_: str | Unset = UNSET
    filter_json: ComputeRequestZonesFilterJson | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.compute_request_zones_filter_json import ComputeRequestZonesFilterJson # noqa: PLC0415
        all_touched = self.all_touched

        collection = self.collection

        filter_ = self.filter_

        filter_json: dict[str, Any] | Unset = UNSET
        if not isinstance(self.filter_json, Unset):
            filter_json = self.filter_json.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if all_touched is not UNSET:
            field_dict["all_touched"] = all_touched
        if collection is not UNSET:
            field_dict["collection"] = collection
        if filter_ is not UNSET:
            field_dict["filter"] = filter_
        if filter_json is not UNSET:
            field_dict["filter_json"] = filter_json

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.compute_request_zones_filter_json import ComputeRequestZonesFilterJson # noqa: PLC0415
        d = dict(src_dict)
        all_touched = d.pop("all_touched", UNSET)

        collection = d.pop("collection", UNSET)

        filter_ = d.pop("filter", UNSET)

        _filter_json = d.pop("filter_json", UNSET)
        filter_json: ComputeRequestZonesFilterJson | Unset
        if isinstance(_filter_json,  Unset):
            filter_json = UNSET
        else:
            filter_json = ComputeRequestZonesFilterJson.from_dict(_filter_json)




        compute_request_zones = cls(
            all_touched=all_touched,
            collection=collection,
            filter_=filter_,
            filter_json=filter_json,
        )


        compute_request_zones.additional_properties = d
        return compute_request_zones

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
