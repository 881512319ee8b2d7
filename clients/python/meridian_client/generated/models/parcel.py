from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.parcel_type import ParcelType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.link import Link
  from ..models.multi_polygon import MultiPolygon
  from ..models.parcel_properties import ParcelProperties
  from ..models.polygon import Polygon





T = TypeVar("T", bound="Parcel")



@_attrs_define
class Parcel:
    """ A cadastral parcel: a GeoJSON Feature with a Polygon or MultiPolygon

        Attributes:
            geometry (MultiPolygon | Polygon): A Polygon or MultiPolygon
            id (str): `parcel_...`
            properties (ParcelProperties): The interface's parcel attributes; any other properties are kept as given
            type_ (ParcelType):
            links (list[Link] | Unset):
     """

    geometry: MultiPolygon | Polygon
    id: str
    properties: ParcelProperties
    type_: ParcelType
    links: list[Link] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.link import Link # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.parcel_properties import ParcelProperties # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        geometry: dict[str, Any]
        if isinstance(self.geometry, Polygon):
            geometry = self.geometry.to_dict()
        else:
            geometry = self.geometry.to_dict()


        id = self.id

        properties = self.properties.to_dict()

        type_ = self.type_.value

        links: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.links, Unset):
            links = []
            for links_item_data in self.links:
                links_item = links_item_data.to_dict()
                links.append(links_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "geometry": geometry,
            "id": id,
            "properties": properties,
            "type": type_,
        })
        if links is not UNSET:
            field_dict["links"] = links

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.link import Link # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.parcel_properties import ParcelProperties # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        d = dict(src_dict)
        def _parse_geometry(data: object) -> MultiPolygon | Polygon:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_areal_geometry_type_0 = Polygon.from_dict(data)



                return componentsschemas_areal_geometry_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_areal_geometry_type_1 = MultiPolygon.from_dict(data)



            return componentsschemas_areal_geometry_type_1

        geometry = _parse_geometry(d.pop("geometry"))


        id = d.pop("id")

        properties = ParcelProperties.from_dict(d.pop("properties"))




        type_ = ParcelType(d.pop("type"))




        _links = d.pop("links", UNSET)
        links: list[Link] | Unset = UNSET
        if _links is not UNSET:
            links = []
            for links_item_data in _links:
                links_item = Link.from_dict(links_item_data)



                links.append(links_item)


        parcel = cls(
            geometry=geometry,
            id=id,
            properties=properties,
            type_=type_,
            links=links,
        )


        parcel.additional_properties = d
        return parcel

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
