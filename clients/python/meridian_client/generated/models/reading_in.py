from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ReadingIn")



@_attrs_define
class ReadingIn:
    """ One reading, a batch (`readings`), or an array of readings.

        Example:
            {'ts': '2026-11-25T08:00:00.250Z', 'value': 12.5}

        Attributes:
            value (Any): A number, boolean, string or small JSON object, as the sensor's `type` says.
            sensor_id (None | str | Unset): The sensor (in a twin-wide batch).
            ts (None | str | Unset): RFC 3339 (default: now); at most 5 minutes ahead of the server.
     """

    value: Any
    sensor_id: None | str | Unset = UNSET
    ts: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        value = self.value

        sensor_id: None | str | Unset
        if isinstance(self.sensor_id, Unset):
            sensor_id = UNSET
        else:
            sensor_id = self.sensor_id

        ts: None | str | Unset
        if isinstance(self.ts, Unset):
            ts = UNSET
        else:
            ts = self.ts


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "value": value,
        })
        if sensor_id is not UNSET:
            field_dict["sensorId"] = sensor_id
        if ts is not UNSET:
            field_dict["ts"] = ts

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        value = d.pop("value")

        def _parse_sensor_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        sensor_id = _parse_sensor_id(d.pop("sensorId", UNSET))


        def _parse_ts(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        ts = _parse_ts(d.pop("ts", UNSET))


        reading_in = cls(
            value=value,
            sensor_id=sensor_id,
            ts=ts,
        )


        reading_in.additional_properties = d
        return reading_in

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
