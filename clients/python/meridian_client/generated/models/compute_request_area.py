from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.geometry_collection import GeometryCollection
  from ..models.line_string import LineString
  from ..models.multi_line_string import MultiLineString
  from ..models.multi_point import MultiPoint
  from ..models.multi_polygon import MultiPolygon
  from ..models.point import Point
  from ..models.polygon import Polygon





T = TypeVar("T", bound="ComputeRequestArea")



@_attrs_define
class ComputeRequestArea:
    """ 
        Attributes:
            bbox (list[float] | Unset):
            crs (str | Unset):
            geometry (GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | Point | Polygon |
                Unset): A GeoJSON geometry
     """

    bbox: list[float] | Unset = UNSET
    crs: str | Unset = UNSET
    geometry: GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | Point | Polygon | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.geometry_collection import GeometryCollection # noqa: PLC0415
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        bbox: list[float] | Unset = UNSET
        if not isinstance(self.bbox, Unset):
            bbox = self.bbox



        crs = self.crs

        geometry: dict[str, Any] | Unset
        if isinstance(self.geometry, Unset):
            geometry = UNSET
        elif isinstance(self.geometry, Point):
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
        else:
            geometry = self.geometry.to_dict()



        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if bbox is not UNSET:
            field_dict["bbox"] = bbox
        if crs is not UNSET:
            field_dict["crs"] = crs
        if geometry is not UNSET:
            field_dict["geometry"] = geometry

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.geometry_collection import GeometryCollection # noqa: PLC0415
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        d = dict(src_dict)
        bbox = cast(list[float], d.pop("bbox", UNSET))


        crs = d.pop("crs", UNSET)

        def _parse_geometry(data: object) -> GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | Point | Polygon | Unset:
            if isinstance(data, Unset):
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
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_geometry_type_6 = GeometryCollection.from_dict(data)



            return componentsschemas_geometry_type_6

        geometry = _parse_geometry(d.pop("geometry", UNSET))


        compute_request_area = cls(
            bbox=bbox,
            crs=crs,
            geometry=geometry,
        )


        compute_request_area.additional_properties = d
        return compute_request_area

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
