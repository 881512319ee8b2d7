from __future__ import annotations
from dateutil.parser import isoparse as _isoparse

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.sensor_of_readings_type import SensorOfReadingsType
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="SensorOfReadings")



@_attrs_define
class SensorOfReadings:
    """ 
        Attributes:
            id (str):
            twin (str):
            type_ (SensorOfReadingsType):
            created_at (datetime.datetime | Unset):
            feature_id (None | str | Unset): The asset the sensor is on
            name (None | str | Unset):
            unit (None | str | Unset):
     """

    id: str
    twin: str
    type_: SensorOfReadingsType
    created_at: datetime.datetime | Unset = UNSET
    feature_id: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    unit: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
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
        if name is not UNSET:
            field_dict["name"] = name
        if unit is not UNSET:
            field_dict["unit"] = unit

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        twin = d.pop("twin")

        type_ = SensorOfReadingsType(d.pop("type"))




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


        sensor_of_readings = cls(
            id=id,
            twin=twin,
            type_=type_,
            created_at=created_at,
            feature_id=feature_id,
            name=name,
            unit=unit,
        )


        sensor_of_readings.additional_properties = d
        return sensor_of_readings

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
