from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.link import Link
  from ..models.stac_collection import StacCollection





T = TypeVar("T", bound="StacCollections")



@_attrs_define
class StacCollections:
    """ 
        Attributes:
            collections (list[StacCollection]):
            links (list[Link]):
     """

    collections: list[StacCollection]
    links: list[Link]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.link import Link # noqa: PLC0415
        from ..models.stac_collection import StacCollection # noqa: PLC0415
        collections = []
        for collections_item_data in self.collections:
            collections_item = collections_item_data.to_dict()
            collections.append(collections_item)



        links = []
        for links_item_data in self.links:
            links_item = links_item_data.to_dict()
            links.append(links_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "collections": collections,
            "links": links,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.link import Link # noqa: PLC0415
        from ..models.stac_collection import StacCollection # noqa: PLC0415
        d = dict(src_dict)
        collections = []
        _collections = d.pop("collections")
        for collections_item_data in (_collections):
            collections_item = StacCollection.from_dict(collections_item_data)



            collections.append(collections_item)


        links = []
        _links = d.pop("links")
        for links_item_data in (_links):
            links_item = Link.from_dict(links_item_data)



            links.append(links_item)


        stac_collections = cls(
            collections=collections,
            links=links,
        )


        stac_collections.additional_properties = d
        return stac_collections

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
