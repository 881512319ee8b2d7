from __future__ import annotations
from dateutil.parser import isoparse as _isoparse

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.clock import Clock
  from ..models.geometry_collection import GeometryCollection
  from ..models.line_string import LineString
  from ..models.multi_line_string import MultiLineString
  from ..models.multi_point import MultiPoint
  from ..models.multi_polygon import MultiPolygon
  from ..models.point import Point
  from ..models.polygon import Polygon
  from ..models.sensor import Sensor
  from ..models.twin_asset_properties import TwinAssetProperties





T = TypeVar("T", bound="TwinAsset")



@_attrs_define
class TwinAsset:
    """ 
        Attributes:
            id (str):
            properties (TwinAssetProperties):
            twin (str):
            area_m2 (float | None | Unset):
            as_of (datetime.datetime | Unset):
            clock (Clock | Unset):
            collection (str | Unset):
            footprint (GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point |
                Polygon | Unset):
            height (float | None | Unset): Extruded height in metres
            registered_at (datetime.datetime | None | Unset):
            sensors (list[Sensor] | Unset):
            valid_from (datetime.datetime | None | Unset):
            version (int | Unset):
     """

    id: str
    properties: TwinAssetProperties
    twin: str
    area_m2: float | None | Unset = UNSET
    as_of: datetime.datetime | Unset = UNSET
    clock: Clock | Unset = UNSET
    collection: str | Unset = UNSET
    footprint: GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon | Unset = UNSET
    height: float | None | Unset = UNSET
    registered_at: datetime.datetime | None | Unset = UNSET
    sensors: list[Sensor] | Unset = UNSET
    valid_from: datetime.datetime | None | Unset = UNSET
    version: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.clock import Clock # noqa: PLC0415
        from ..models.geometry_collection import GeometryCollection # noqa: PLC0415
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        from ..models.sensor import Sensor # noqa: PLC0415
        from ..models.twin_asset_properties import TwinAssetProperties # noqa: PLC0415
        id = self.id

        properties = self.properties.to_dict()

        twin = self.twin

        area_m2: float | None | Unset
        if isinstance(self.area_m2, Unset):
            area_m2 = UNSET
        else:
            area_m2 = self.area_m2

        as_of: str | Unset = UNSET
        if not isinstance(self.as_of, Unset):
            as_of = self.as_of.isoformat()

        clock: dict[str, Any] | Unset = UNSET
        if not isinstance(self.clock, Unset):
            clock = self.clock.to_dict()

        collection = self.collection

        footprint: dict[str, Any] | None | Unset
        if isinstance(self.footprint, Unset):
            footprint = UNSET
        elif isinstance(self.footprint, Point):
            footprint = self.footprint.to_dict()
        elif isinstance(self.footprint, MultiPoint):
            footprint = self.footprint.to_dict()
        elif isinstance(self.footprint, LineString):
            footprint = self.footprint.to_dict()
        elif isinstance(self.footprint, MultiLineString):
            footprint = self.footprint.to_dict()
        elif isinstance(self.footprint, Polygon):
            footprint = self.footprint.to_dict()
        elif isinstance(self.footprint, MultiPolygon):
            footprint = self.footprint.to_dict()
        elif isinstance(self.footprint, GeometryCollection):
            footprint = self.footprint.to_dict()
        else:
            footprint = self.footprint

        height: float | None | Unset
        if isinstance(self.height, Unset):
            height = UNSET
        else:
            height = self.height

        registered_at: None | str | Unset
        if isinstance(self.registered_at, Unset):
            registered_at = UNSET
        elif isinstance(self.registered_at, datetime.datetime):
            registered_at = self.registered_at.isoformat()
        else:
            registered_at = self.registered_at

        sensors: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.sensors, Unset):
            sensors = []
            for sensors_item_data in self.sensors:
                sensors_item = sensors_item_data.to_dict()
                sensors.append(sensors_item)



        valid_from: None | str | Unset
        if isinstance(self.valid_from, Unset):
            valid_from = UNSET
        elif isinstance(self.valid_from, datetime.datetime):
            valid_from = self.valid_from.isoformat()
        else:
            valid_from = self.valid_from

        version = self.version


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "properties": properties,
            "twin": twin,
        })
        if area_m2 is not UNSET:
            field_dict["area_m2"] = area_m2
        if as_of is not UNSET:
            field_dict["as_of"] = as_of
        if clock is not UNSET:
            field_dict["clock"] = clock
        if collection is not UNSET:
            field_dict["collection"] = collection
        if footprint is not UNSET:
            field_dict["footprint"] = footprint
        if height is not UNSET:
            field_dict["height"] = height
        if registered_at is not UNSET:
            field_dict["registered_at"] = registered_at
        if sensors is not UNSET:
            field_dict["sensors"] = sensors
        if valid_from is not UNSET:
            field_dict["valid_from"] = valid_from
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.clock import Clock # noqa: PLC0415
        from ..models.geometry_collection import GeometryCollection # noqa: PLC0415
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        from ..models.sensor import Sensor # noqa: PLC0415
        from ..models.twin_asset_properties import TwinAssetProperties # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        properties = TwinAssetProperties.from_dict(d.pop("properties"))




        twin = d.pop("twin")

        def _parse_area_m2(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        area_m2 = _parse_area_m2(d.pop("area_m2", UNSET))


        _as_of = d.pop("as_of", UNSET)
        as_of: datetime.datetime | Unset
        if isinstance(_as_of,  Unset):
            as_of = UNSET
        else:
            as_of = _isoparse(_as_of)




        _clock = d.pop("clock", UNSET)
        clock: Clock | Unset
        if isinstance(_clock,  Unset):
            clock = UNSET
        else:
            clock = Clock.from_dict(_clock)




        collection = d.pop("collection", UNSET)

        def _parse_footprint(data: object) -> GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon | Unset:
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

        footprint = _parse_footprint(d.pop("footprint", UNSET))


        def _parse_height(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        height = _parse_height(d.pop("height", UNSET))


        def _parse_registered_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                registered_at_type_0 = _isoparse(data)



                return registered_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        registered_at = _parse_registered_at(d.pop("registered_at", UNSET))


        _sensors = d.pop("sensors", UNSET)
        sensors: list[Sensor] | Unset = UNSET
        if _sensors is not UNSET:
            sensors = []
            for sensors_item_data in _sensors:
                sensors_item = Sensor.from_dict(sensors_item_data)



                sensors.append(sensors_item)


        def _parse_valid_from(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_from_type_0 = _isoparse(data)



                return valid_from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        valid_from = _parse_valid_from(d.pop("valid_from", UNSET))


        version = d.pop("version", UNSET)

        twin_asset = cls(
            id=id,
            properties=properties,
            twin=twin,
            area_m2=area_m2,
            as_of=as_of,
            clock=clock,
            collection=collection,
            footprint=footprint,
            height=height,
            registered_at=registered_at,
            sensors=sensors,
            valid_from=valid_from,
            version=version,
        )


        twin_asset.additional_properties = d
        return twin_asset

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
