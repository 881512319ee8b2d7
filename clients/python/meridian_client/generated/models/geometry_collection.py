from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.geometry_collection_type import GeometryCollectionType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.line_string import LineString
  from ..models.multi_line_string import MultiLineString
  from ..models.multi_point import MultiPoint
  from ..models.multi_polygon import MultiPolygon
  from ..models.point import Point
  from ..models.polygon import Polygon





T = TypeVar("T", bound="GeometryCollection")



@_attrs_define
class GeometryCollection:
    """ 
        Attributes:
            geometries (list[GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | Point |
                Polygon]):
            type_ (GeometryCollectionType):
            bbox (list[float] | Unset):
     """

    geometries: list[GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | Point | Polygon]
    type_: GeometryCollectionType
    bbox: list[float] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        geometries = []
        for geometries_item_data in self.geometries:
            geometries_item: dict[str, Any]
            if isinstance(geometries_item_data, Point):
                geometries_item = geometries_item_data.to_dict()
            elif isinstance(geometries_item_data, MultiPoint):
                geometries_item = geometries_item_data.to_dict()
            elif isinstance(geometries_item_data, LineString):
                geometries_item = geometries_item_data.to_dict()
            elif isinstance(geometries_item_data, MultiLineString):
                geometries_item = geometries_item_data.to_dict()
            elif isinstance(geometries_item_data, Polygon):
                geometries_item = geometries_item_data.to_dict()
            elif isinstance(geometries_item_data, MultiPolygon):
                geometries_item = geometries_item_data.to_dict()
            else:
                geometries_item = geometries_item_data.to_dict()

            geometries.append(geometries_item)



        type_ = self.type_.value

        bbox: list[float] | Unset = UNSET
        if not isinstance(self.bbox, Unset):
            bbox = self.bbox




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "geometries": geometries,
            "type": type_,
        })
        if bbox is not UNSET:
            field_dict["bbox"] = bbox

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        d = dict(src_dict)
        geometries = []
        _geometries = d.pop("geometries")
        for geometries_item_data in (_geometries):
            def _parse_geometries_item(data: object) -> GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | Point | Polygon:
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
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_6 = GeometryCollection.from_dict(data)



                return componentsschemas_geometry_type_6

            geometries_item = _parse_geometries_item(geometries_item_data)

            geometries.append(geometries_item)


        type_ = GeometryCollectionType(d.pop("type"))




        bbox = cast(list[float], d.pop("bbox", UNSET))


        geometry_collection = cls(
            geometries=geometries,
            type_=type_,
            bbox=bbox,
        )


        geometry_collection.additional_properties = d
        return geometry_collection

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
