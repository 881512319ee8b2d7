from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.parcel_draft_collection_type import ParcelDraftCollectionType
from typing import cast

if TYPE_CHECKING:
  from ..models.parcel_draft import ParcelDraft





T = TypeVar("T", bound="ParcelDraftCollection")



@_attrs_define
class ParcelDraftCollection:
    """ Parcels registered in one transaction: all or nothing

        Attributes:
            features (list[ParcelDraft]):
            type_ (ParcelDraftCollectionType):
     """

    features: list[ParcelDraft]
    type_: ParcelDraftCollectionType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.parcel_draft import ParcelDraft # noqa: PLC0415
        features = []
        for features_item_data in self.features:
            features_item = features_item_data.to_dict()
            features.append(features_item)



        type_ = self.type_.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "features": features,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.parcel_draft import ParcelDraft # noqa: PLC0415
        d = dict(src_dict)
        features = []
        _features = d.pop("features")
        for features_item_data in (_features):
            features_item = ParcelDraft.from_dict(features_item_data)



            features.append(features_item)


        type_ = ParcelDraftCollectionType(d.pop("type"))




        parcel_draft_collection = cls(
            features=features,
            type_=type_,
        )


        parcel_draft_collection.additional_properties = d
        return parcel_draft_collection

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
