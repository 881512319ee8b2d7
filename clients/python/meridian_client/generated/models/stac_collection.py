from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.stac_collection_type import StacCollectionType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.link import Link
  from ..models.stac_collection_summaries import StacCollectionSummaries
  from ..models.stac_extent import StacExtent





T = TypeVar("T", bound="StacCollection")



@_attrs_define
class StacCollection:
    """ A STAC Collection (1.0)

        Example:
            {'description': 'CBERS-4 MUX scenes', 'extent': {'spatial': {'bbox': [[-180, -90, 180, 90]]}, 'temporal':
                {'interval': [['2017-01-01T00:00:00Z', None]]}}, 'id': 'cbers4', 'license': 'CC-BY-SA-3.0', 'links': [],
                'stac_version': '1.0.0', 'type': 'Collection'}

        Attributes:
            id (str):
            description (str | Unset):
            extent (StacExtent | Unset):
            keywords (list[str] | Unset):
            license_ (str | Unset):
            links (list[Link] | Unset):
            stac_extensions (list[str] | Unset):
            stac_version (str | Unset):
            summaries (StacCollectionSummaries | Unset):
            title (str | Unset):
            type_ (StacCollectionType | Unset):
     """

    id: str
    description: str | Unset = UNSET
    extent: StacExtent | Unset = UNSET
    keywords: list[str] | Unset = UNSET
    license_: str | Unset = UNSET
    links: list[Link] | Unset = UNSET
    stac_extensions: list[str] | Unset = UNSET
    stac_version: str | Unset = UNSET
    summaries: StacCollectionSummaries | Unset = UNSET
    title: str | Unset = UNSET
    type_: StacCollectionType | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.link import Link # noqa: PLC0415
        from ..models.stac_collection_summaries import StacCollectionSummaries # noqa: PLC0415
        from ..models.stac_extent import StacExtent # noqa: PLC0415
        id = self.id

        description = self.description

        extent: dict[str, Any] | Unset = UNSET
        if not isinstance(self.extent, Unset):
            extent = self.extent.to_dict()

        keywords: list[str] | Unset = UNSET
        if not isinstance(self.keywords, Unset):
            keywords = self.keywords



        license_ = self.license_

        links: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.links, Unset):
            links = []
            for links_item_data in self.links:
                links_item = links_item_data.to_dict()
                links.append(links_item)



        stac_extensions: list[str] | Unset = UNSET
        if not isinstance(self.stac_extensions, Unset):
            stac_extensions = self.stac_extensions



        stac_version = self.stac_version

        summaries: dict[str, Any] | Unset = UNSET
        if not isinstance(self.summaries, Unset):
            summaries = self.summaries.to_dict()

        title = self.title

        type_: str | Unset = UNSET
        if not isinstance(self.type_, Unset):
            type_ = self.type_.value



        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if extent is not UNSET:
            field_dict["extent"] = extent
        if keywords is not UNSET:
            field_dict["keywords"] = keywords
        if license_ is not UNSET:
            field_dict["license"] = license_
        if links is not UNSET:
            field_dict["links"] = links
        if stac_extensions is not UNSET:
            field_dict["stac_extensions"] = stac_extensions
        if stac_version is not UNSET:
            field_dict["stac_version"] = stac_version
        if summaries is not UNSET:
            field_dict["summaries"] = summaries
        if title is not UNSET:
            field_dict["title"] = title
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.link import Link # noqa: PLC0415
        from ..models.stac_collection_summaries import StacCollectionSummaries # noqa: PLC0415
        from ..models.stac_extent import StacExtent # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        description = d.pop("description", UNSET)

        _extent = d.pop("extent", UNSET)
        extent: StacExtent | Unset
        if isinstance(_extent,  Unset):
            extent = UNSET
        else:
            extent = StacExtent.from_dict(_extent)




        keywords = cast(list[str], d.pop("keywords", UNSET))


        license_ = d.pop("license", UNSET)

        _links = d.pop("links", UNSET)
        links: list[Link] | Unset = UNSET
        if _links is not UNSET:
            links = []
            for links_item_data in _links:
                links_item = Link.from_dict(links_item_data)



                links.append(links_item)


        stac_extensions = cast(list[str], d.pop("stac_extensions", UNSET))


        stac_version = d.pop("stac_version", UNSET)

        _summaries = d.pop("summaries", UNSET)
        summaries: StacCollectionSummaries | Unset
        if isinstance(_summaries,  Unset):
            summaries = UNSET
        else:
            summaries = StacCollectionSummaries.from_dict(_summaries)




        title = d.pop("title", UNSET)

        _type_ = d.pop("type", UNSET)
        type_: StacCollectionType | Unset
        if isinstance(_type_,  Unset):
            type_ = UNSET
        else:
            type_ = StacCollectionType(_type_)




        stac_collection = cls(
            id=id,
            description=description,
            extent=extent,
            keywords=keywords,
            license_=license_,
            links=links,
            stac_extensions=stac_extensions,
            stac_version=stac_version,
            summaries=summaries,
            title=title,
            type_=type_,
        )


        stac_collection.additional_properties = d
        return stac_collection

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
