from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.feature_type import FeatureType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.feature_properties_type_0 import FeaturePropertiesType0
  from ..models.geometry_collection import GeometryCollection
  from ..models.line_string import LineString
  from ..models.link import Link
  from ..models.multi_line_string import MultiLineString
  from ..models.multi_point import MultiPoint
  from ..models.multi_polygon import MultiPolygon
  from ..models.point import Point
  from ..models.polygon import Polygon





T = TypeVar("T", bound="Feature")



@_attrs_define
class Feature:
    """ A GeoJSON Feature

        Example:
            {'geometry': {'coordinates': [151.2093, -33.8688], 'type': 'Point'}, 'properties': {'name': 'Town Hall'},
                'type': 'Feature'}

        Attributes:
            geometry (GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point |
                Polygon):
            properties (FeaturePropertiesType0 | None):
            type_ (FeatureType):
            bbox (list[float] | Unset):
            id (int | str | Unset):
            links (list[Link] | Unset):
     """

    geometry: GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon
    properties: FeaturePropertiesType0 | None
    type_: FeatureType
    bbox: list[float] | Unset = UNSET
    id: int | str | Unset = UNSET
    links: list[Link] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.feature_properties_type_0 import FeaturePropertiesType0 # noqa: PLC0415
        from ..models.geometry_collection import GeometryCollection # noqa: PLC0415
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.link import Link # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        geometry: dict[str, Any] | None
        if isinstance(self.geometry, Point):
            geometry = self.geometry.to_dict()
        elif isinstance(self.geometry, MultiPoint):
            geometry = self.geometry.to_dict()
        elif isinstance(self.geometry, LineString):
            geometry = self.geometry.to_dict()
        elif isinstance(self.geometry, MultiLineString):
            geometry = self.geometry.to_dict()
        elif isinstance(self.geometry, Polygon):
            geometry = self.geometry.to_dict()
        elif isinstance(self.geometry, MultiPolygon):
            geometry = self.geometry.to_dict()
        elif isinstance(self.geometry, GeometryCollection):
            geometry = self.geometry.to_dict()
        else:
            geometry = self.geometry

        properties: dict[str, Any] | None
        if isinstance(self.properties, FeaturePropertiesType0):
            properties = self.properties.to_dict()
        else:
            properties = self.properties

        type_ = self.type_.value

        bbox: list[float] | Unset = UNSET
        if not isinstance(self.bbox, Unset):
            bbox = self.bbox



        id: int | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

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
            "properties": properties,
            "type": type_,
        })
        if bbox is not UNSET:
            field_dict["bbox"] = bbox
        if id is not UNSET:
            field_dict["id"] = id
        if links is not UNSET:
            field_dict["links"] = links

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.feature_properties_type_0 import FeaturePropertiesType0 # noqa: PLC0415
        from ..models.geometry_collection import GeometryCollection # noqa: PLC0415
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.link import Link # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        d = dict(src_dict)
        def _parse_geometry(data: object) -> GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_0 = Point.from_dict(data)



                return componentsschemas_geometry_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_1 = MultiPoint.from_dict(data)



                return componentsschemas_geometry_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_2 = LineString.from_dict(data)



                return componentsschemas_geometry_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_3 = MultiLineString.from_dict(data)



                return componentsschemas_geometry_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_4 = Polygon.from_dict(data)



                return componentsschemas_geometry_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_5 = MultiPolygon.from_dict(data)



                return componentsschemas_geometry_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_6 = GeometryCollection.from_dict(data)



                return componentsschemas_geometry_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon", data)

        geometry = _parse_geometry(d.pop("geometry"))


        def _parse_properties(data: object) -> FeaturePropertiesType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                properties_type_0 = FeaturePropertiesType0.from_dict(data)



                return properties_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("FeaturePropertiesType0 | None", data)

        properties = _parse_properties(d.pop("properties"))


        type_ = FeatureType(d.pop("type"))




        bbox = cast(list[float], d.pop("bbox", UNSET))


        def _parse_id(data: object) -> int | str | Unset:
            if isinstance(data, Unset):
                return data
            return cast("int | str | Unset", data)

        id = _parse_id(d.pop("id", UNSET))


        _links = d.pop("links", UNSET)
        links: list[Link] | Unset = UNSET
        if _links is not UNSET:
            links = []
            for links_item_data in _links:
                links_item = Link.from_dict(links_item_data)



                links.append(links_item)


        feature = cls(
            geometry=geometry,
            properties=properties,
            type_=type_,
            bbox=bbox,
            id=id,
            links=links,
        )


        feature.additional_properties = d
        return feature

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
