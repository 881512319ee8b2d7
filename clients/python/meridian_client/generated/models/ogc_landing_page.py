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





T = TypeVar("T", bound="OgcLandingPage")



@_attrs_define
class OgcLandingPage:
    """ 
        Attributes:
            links (list[Link]):
            description (str | Unset):
            title (str | Unset):
     """

    links: list[Link]
    description: str | Unset = UNSET
    title: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.link import Link # noqa: PLC0415
        links = []
        for links_item_data in self.links:
            links_item = links_item_data.to_dict()
            links.append(links_item)



        description = self.description

        title = self.title


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "links": links,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.link import Link # noqa: PLC0415
        d = dict(src_dict)
        links = []
        _links = d.pop("links")
        for links_item_data in (_links):
            links_item = Link.from_dict(links_item_data)



            links.append(links_item)


        description = d.pop("description", UNSET)

        title = d.pop("title", UNSET)

        ogc_landing_page = cls(
            links=links,
            description=description,
            title=title,
        )


        ogc_landing_page.additional_properties = d
        return ogc_landing_page

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
