from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.link import Link
  from ..models.ogc_collection_extent import OgcCollectionExtent





T = TypeVar("T", bound="OgcCollection")



@_attrs_define
class OgcCollection:
    """ 
        Attributes:
            id (str):
            links (list[Link]):
            crs (list[str] | Unset):
            description (str | Unset):
            extent (OgcCollectionExtent | Unset):
            item_type (str | Unset):
            storage_crs (str | Unset):
            title (str | Unset):
     """

    id: str
    links: list[Link]
    crs: list[str] | Unset = UNSET
    description: str | Unset = UNSET
    extent: OgcCollectionExtent | Unset = UNSET
    item_type: str | Unset = UNSET
    storage_crs: str | Unset = UNSET
    title: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.link import Link # noqa: PLC0415
        from ..models.ogc_collection_extent import OgcCollectionExtent # noqa: PLC0415
        id = self.id

        links = []
        for links_item_data in self.links:
            links_item = links_item_data.to_dict()
            links.append(links_item)



        crs: list[str] | Unset = UNSET
        if not isinstance(self.crs, Unset):
            crs = self.crs



        description = self.description

        extent: dict[str, Any] | Unset = UNSET
        if not isinstance(self.extent, Unset):
            extent = self.extent.to_dict()

        item_type = self.item_type

        storage_crs = self.storage_crs

        title = self.title


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "links": links,
        })
        if crs is not UNSET:
            field_dict["crs"] = crs
        if description is not UNSET:
            field_dict["description"] = description
        if extent is not UNSET:
            field_dict["extent"] = extent
        if item_type is not UNSET:
            field_dict["itemType"] = item_type
        if storage_crs is not UNSET:
            field_dict["storageCrs"] = storage_crs
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.link import Link # noqa: PLC0415
        from ..models.ogc_collection_extent import OgcCollectionExtent # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        links = []
        _links = d.pop("links")
        for links_item_data in (_links):
            links_item = Link.from_dict(links_item_data)



            links.append(links_item)


        crs = cast(list[str], d.pop("crs", UNSET))


        description = d.pop("description", UNSET)

        _extent = d.pop("extent", UNSET)
        extent: OgcCollectionExtent | Unset
        if isinstance(_extent,  Unset):
            extent = UNSET
        else:
            extent = OgcCollectionExtent.from_dict(_extent)




        item_type = d.pop("itemType", UNSET)

        storage_crs = d.pop("storageCrs", UNSET)

        title = d.pop("title", UNSET)

        ogc_collection = cls(
            id=id,
            links=links,
            crs=crs,
            description=description,
            extent=extent,
            item_type=item_type,
            storage_crs=storage_crs,
            title=title,
        )


        ogc_collection.additional_properties = d
        return ogc_collection

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
