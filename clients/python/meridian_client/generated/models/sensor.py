from __future__ import annotations
from dateutil.parser import isoparse as _isoparse

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.sensor_type import SensorType
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.sensor_latest_type_0 import SensorLatestType0





T = TypeVar("T", bound="Sensor")



@_attrs_define
class Sensor:
    """ 
        Attributes:
            id (str):
            twin (str):
            type_ (SensorType):
            created_at (datetime.datetime | Unset):
            feature_id (None | str | Unset): The asset the sensor is on
            latest (None | SensorLatestType0 | Unset): The latest reading as of the clock
            name (None | str | Unset):
            unit (None | str | Unset):
     """

    id: str
    twin: str
    type_: SensorType
    created_at: datetime.datetime | Unset = UNSET
    feature_id: None | str | Unset = UNSET
    latest: None | SensorLatestType0 | Unset = UNSET
    name: None | str | Unset = UNSET
    unit: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.sensor_latest_type_0 import SensorLatestType0 # noqa: PLC0415
        id = self.id

        twin = self.twin

        type_ = self.type_.value

        created_at: str | Unset = UNSET
        if not isinstance(self.created_at, Unset):
            created_at = self.created_at.isoformat()

        feature_id: None | str | Unset
        if isinstance(self.feature_id, Unset):
            feature_id = UNSET
        else:
            feature_id = self.feature_id

        latest: dict[str, Any] | None | Unset
        if isinstance(self.latest, Unset):
            latest = UNSET
        elif isinstance(self.latest, SensorLatestType0):
            latest = self.latest.to_dict()
        else:
            latest = self.latest

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        unit: None | str | Unset
        if isinstance(self.unit, Unset):
            unit = UNSET
        else:
            unit = self.unit


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "twin": twin,
            "type": type_,
        })
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if feature_id is not UNSET:
            field_dict["feature_id"] = feature_id
        if latest is not UNSET:
            field_dict["latest"] = latest
        if name is not UNSET:
            field_dict["name"] = name
        if unit is not UNSET:
            field_dict["unit"] = unit

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sensor_latest_type_0 import SensorLatestType0 # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        twin = d.pop("twin")

        type_ = SensorType(d.pop("type"))




        _created_at = d.pop("created_at", UNSET)
        created_at: datetime.datetime | Unset
        if isinstance(_created_at,  Unset):
            created_at = UNSET
        else:
            created_at = _isoparse(_created_at)




        def _parse_feature_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        feature_id = _parse_feature_id(d.pop("feature_id", UNSET))


        def _parse_latest(data: object) -> None | SensorLatestType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                latest_type_0 = SensorLatestType0.from_dict(data)



                return latest_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | SensorLatestType0 | Unset", data)

        latest = _parse_latest(d.pop("latest", UNSET))


        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_unit(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        unit = _parse_unit(d.pop("unit", UNSET))


        sensor = cls(
            id=id,
            twin=twin,
            type_=type_,
            created_at=created_at,
            feature_id=feature_id,
            latest=latest,
            name=name,
            unit=unit,
        )


        sensor.additional_properties = d
        return sensor

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
