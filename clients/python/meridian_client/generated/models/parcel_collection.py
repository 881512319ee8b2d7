from __future__ import annotations
from dateutil.parser import isoparse as _isoparse

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.parcel_collection_type import ParcelCollectionType
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.link import Link
  from ..models.page_meta import PageMeta
  from ..models.parcel import Parcel





T = TypeVar("T", bound="ParcelCollection")



@_attrs_define
class ParcelCollection:
    """ A page of parcels

        Attributes:
            features (list[Parcel]):
            links (list[Link]): `self`, and `next` while more features follow
            type_ (ParcelCollectionType):
            bbox (list[float] | Unset):
            meta (PageMeta | Unset):
            number_matched (int | Unset): Features matching the query, when cheap to count
            number_returned (int | Unset):
            time_stamp (datetime.datetime | Unset):
     """

    features: list[Parcel]
    links: list[Link]
    type_: ParcelCollectionType
    bbox: list[float] | Unset = UNSET
    meta: PageMeta | Unset = UNSET
    number_matched: int | Unset = UNSET
    number_returned: int | Unset = UNSET
    time_stamp: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.link import Link # noqa: PLC0415
        from ..models.page_meta import PageMeta # noqa: PLC0415
        from ..models.parcel import Parcel # noqa: PLC0415
        features = []
        for features_item_data in self.features:
            features_item = features_item_data.to_dict()
            features.append(features_item)



        links = []
        for links_item_data in self.links:
            links_item = links_item_data.to_dict()
            links.append(links_item)



        type_ = self.type_.value

        bbox: list[float] | Unset = UNSET
        if not isinstance(self.bbox, Unset):
            bbox = self.bbox



        meta: dict[str, Any] | Unset = UNSET
        if not isinstance(self.meta, Unset):
            meta = self.meta.to_dict()

        number_matched = self.number_matched

        number_returned = self.number_returned

        time_stamp: str | Unset = UNSET
        if not isinstance(self.time_stamp, Unset):
            time_stamp = self.time_stamp.isoformat()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "features": features,
            "links": links,
            "type": type_,
        })
        if bbox is not UNSET:
            field_dict["bbox"] = bbox
        if meta is not UNSET:
            field_dict["meta"] = meta
        if number_matched is not UNSET:
            field_dict["numberMatched"] = number_matched
        if number_returned is not UNSET:
            field_dict["numberReturned"] = number_returned
        if time_stamp is not UNSET:
            field_dict["timeStamp"] = time_stamp

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.link import Link # noqa: PLC0415
        from ..models.page_meta import PageMeta # noqa: PLC0415
        from ..models.parcel import Parcel # noqa: PLC0415
        d = dict(src_dict)
        features = []
        _features = d.pop("features")
        for features_item_data in (_features):
            features_item = Parcel.from_dict(features_item_data)



            features.append(features_item)


        links = []
        _links = d.pop("links")
        for links_item_data in (_links):
            links_item = Link.from_dict(links_item_data)



            links.append(links_item)


        type_ = ParcelCollectionType(d.pop("type"))




        bbox = cast(list[float], d.pop("bbox", UNSET))


        _meta = d.pop("meta", UNSET)
        meta: PageMeta | Unset
        if isinstance(_meta,  Unset):
            meta = UNSET
        else:
            meta = PageMeta.from_dict(_meta)




        number_matched = d.pop("numberMatched", UNSET)

        number_returned = d.pop("numberReturned", UNSET)

        _time_stamp = d.pop("timeStamp", UNSET)
        time_stamp: datetime.datetime | Unset
        if isinstance(_time_stamp,  Unset):
            time_stamp = UNSET
        else:
            time_stamp = _isoparse(_time_stamp)




        parcel_collection = cls(
            features=features,
            links=links,
            type_=type_,
            bbox=bbox,
            meta=meta,
            number_matched=number_matched,
            number_returned=number_returned,
            time_stamp=time_stamp,
        )


        parcel_collection.additional_properties = d
        return parcel_collection

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
