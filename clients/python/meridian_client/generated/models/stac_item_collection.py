from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.stac_item_collection_type import StacItemCollectionType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.link import Link
  from ..models.stac_item import StacItem





T = TypeVar("T", bound="StacItemCollection")



@_attrs_define
class StacItemCollection:
    """ A page of STAC Items; the `next` link continues it

        Attributes:
            features (list[StacItem]):
            type_ (StacItemCollectionType):
            links (list[Link] | Unset):
            number_matched (int | Unset):
            number_returned (int | Unset):
     """

    features: list[StacItem]
    type_: StacItemCollectionType
    links: list[Link] | Unset = UNSET
    number_matched: int | Unset = UNSET
    number_returned: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.link import Link # noqa: PLC0415
        from ..models.stac_item import StacItem # noqa: PLC0415
        features = []
        for features_item_data in self.features:
            features_item = features_item_data.to_dict()
            features.append(features_item)



        type_ = self.type_.value

        links: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.links, Unset):
            links = []
            for links_item_data in self.links:
                links_item = links_item_data.to_dict()
                links.append(links_item)



        number_matched = self.number_matched

        number_returned = self.number_returned


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "features": features,
            "type": type_,
        })
        if links is not UNSET:
            field_dict["links"] = links
        if number_matched is not UNSET:
            field_dict["numberMatched"] = number_matched
        if number_returned is not UNSET:
            field_dict["numberReturned"] = number_returned

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.link import Link # noqa: PLC0415
        from ..models.stac_item import StacItem # noqa: PLC0415
        d = dict(src_dict)
        features = []
        _features = d.pop("features")
        for features_item_data in (_features):
            features_item = StacItem.from_dict(features_item_data)



            features.append(features_item)


        type_ = StacItemCollectionType(d.pop("type"))




        _links = d.pop("links", UNSET)
        links: list[Link] | Unset = UNSET
        if _links is not UNSET:
            links = []
            for links_item_data in _links:
                links_item = Link.from_dict(links_item_data)



                links.append(links_item)


        number_matched = d.pop("numberMatched", UNSET)

        number_returned = d.pop("numberReturned", UNSET)

        stac_item_collection = cls(
            features=features,
            type_=type_,
            links=links,
            number_matched=number_matched,
            number_returned=number_returned,
        )


        stac_item_collection.additional_properties = d
        return stac_item_collection

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
