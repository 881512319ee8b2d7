from __future__ import annotations
from dateutil.parser import isoparse as _isoparse

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.parcel_version_change import ParcelVersionChange
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.geometry_collection import GeometryCollection
  from ..models.line_string import LineString
  from ..models.multi_line_string import MultiLineString
  from ..models.multi_point import MultiPoint
  from ..models.multi_polygon import MultiPolygon
  from ..models.parcel_version_properties_type_0 import ParcelVersionPropertiesType0
  from ..models.point import Point
  from ..models.polygon import Polygon





T = TypeVar("T", bound="ParcelVersion")



@_attrs_define
class ParcelVersion:
    """ 
        Attributes:
            change (ParcelVersionChange):
            recorded_at (datetime.datetime):
            version (int):
            geometry (GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon
                | Unset):
            properties (None | ParcelVersionPropertiesType0 | Unset):
     """

    change: ParcelVersionChange
    recorded_at: datetime.datetime
    version: int
    geometry: GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon | Unset = UNSET
    properties: None | ParcelVersionPropertiesType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.geometry_collection import GeometryCollection # noqa: PLC0415
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.parcel_version_properties_type_0 import ParcelVersionPropertiesType0 # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        change = self.change.value

        recorded_at = self.recorded_at.isoformat()

        version = self.version

        geometry: dict[str, Any] | None | Unset
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
        elif isinstance(self.geometry, GeometryCollection):
            geometry = self.geometry.to_dict()
        else:
            geometry = self.geometry

        properties: dict[str, Any] | None | Unset
        if isinstance(self.properties, Unset):
            properties = UNSET
        elif isinstance(self.properties, ParcelVersionPropertiesType0):
            properties = self.properties.to_dict()
        else:
            properties = self.properties


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "change": change,
            "recorded_at": recorded_at,
            "version": version,
        })
        if geometry is not UNSET:
            field_dict["geometry"] = geometry
        if properties is not UNSET:
            field_dict["properties"] = properties

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.geometry_collection import GeometryCollection # noqa: PLC0415
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.parcel_version_properties_type_0 import ParcelVersionPropertiesType0 # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        d = dict(src_dict)
        change = ParcelVersionChange(d.pop("change"))




        recorded_at = _isoparse(d.pop("recorded_at"))




        version = d.pop("version")

        def _parse_geometry(data: object) -> GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon | Unset:
            if data is None:
                return data
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
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_6 = GeometryCollection.from_dict(data)



                return componentsschemas_geometry_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon | Unset", data)

        geometry = _parse_geometry(d.pop("geometry", UNSET))


        def _parse_properties(data: object) -> None | ParcelVersionPropertiesType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                properties_type_0 = ParcelVersionPropertiesType0.from_dict(data)



                return properties_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | ParcelVersionPropertiesType0 | Unset", data)

        properties = _parse_properties(d.pop("properties", UNSET))


        parcel_version = cls(
            change=change,
            recorded_at=recorded_at,
            version=version,
            geometry=geometry,
            properties=properties,
        )


        parcel_version.additional_properties = d
        return parcel_version

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
