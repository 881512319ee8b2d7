from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.sensor import Sensor





T = TypeVar("T", bound="SensorList")



@_attrs_define
class SensorList:
    """ 
        Attributes:
            sensors (list[Sensor]):
            total (int):
     """

    sensors: list[Sensor]
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.sensor import Sensor # noqa: PLC0415
        sensors = []
        for sensors_item_data in self.sensors:
            sensors_item = sensors_item_data.to_dict()
            sensors.append(sensors_item)



        total = self.total


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "sensors": sensors,
            "total": total,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sensor import Sensor # noqa: PLC0415
        d = dict(src_dict)
        sensors = []
        _sensors = d.pop("sensors")
        for sensors_item_data in (_sensors):
            sensors_item = Sensor.from_dict(sensors_item_data)



            sensors.append(sensors_item)


        total = d.pop("total")

        sensor_list = cls(
            sensors=sensors,
            total=total,
        )


        sensor_list.additional_properties = d
        return sensor_list

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
