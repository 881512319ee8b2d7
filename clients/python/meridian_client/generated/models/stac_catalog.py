from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.stac_catalog_type import StacCatalogType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.link import Link





T = TypeVar("T", bound="StacCatalog")



@_attrs_define
class StacCatalog:
    """ 
        Attributes:
            id (str):
            links (list[Link]):
            stac_version (str):
            type_ (StacCatalogType):
            conforms_to (list[str] | Unset):
            description (str | Unset):
            title (str | Unset):
     """

    id: str
    links: list[Link]
    stac_version: str
    type_: StacCatalogType
    conforms_to: list[str] | Unset = UNSET
    description: str | Unset = UNSET
    title: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.link import Link # noqa: PLC0415
        id = self.id

        links = []
        for links_item_data in self.links:
            links_item = links_item_data.to_dict()
            links.append(links_item)



        stac_version = self.stac_version

        type_ = self.type_.value

        conforms_to: list[str] | Unset = UNSET
        if not isinstance(self.conforms_to, Unset):
            conforms_to = self.conforms_to



        description = self.description

        title = self.title


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "links": links,
            "stac_version": stac_version,
            "type": type_,
        })
        if conforms_to is not UNSET:
            field_dict["conformsTo"] = conforms_to
        if description is not UNSET:
            field_dict["description"] = description
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.link import Link # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        links = []
        _links = d.pop("links")
        for links_item_data in (_links):
            links_item = Link.from_dict(links_item_data)



            links.append(links_item)


        stac_version = d.pop("stac_version")

        type_ = StacCatalogType(d.pop("type"))




        conforms_to = cast(list[str], d.pop("conformsTo", UNSET))


        description = d.pop("description", UNSET)

        title = d.pop("title", UNSET)

        stac_catalog = cls(
            id=id,
            links=links,
            stac_version=stac_version,
            type_=type_,
            conforms_to=conforms_to,
            description=description,
            title=title,
        )


        stac_catalog.additional_properties = d
        return stac_catalog

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
