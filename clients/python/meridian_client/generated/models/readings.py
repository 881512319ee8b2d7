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
  from ..models.readings_buckets_item import ReadingsBucketsItem
  from ..models.readings_readings_item import ReadingsReadingsItem
  from ..models.sensor_of_readings import SensorOfReadings





T = TypeVar("T", bound="Readings")



@_attrs_define
class Readings:
    """ Readings oldest first, or with `interval` their buckets; `next` continues a long answer

        Attributes:
            sensor (SensorOfReadings):
            buckets (list[ReadingsBucketsItem] | Unset):
            from_ (datetime.datetime | None | Unset):
            interval_ms (int | Unset):
            next_ (None | str | Unset): Where the next readings start (`from`)
            readings (list[ReadingsReadingsItem] | Unset):
            to (datetime.datetime | None | Unset):
     """

    sensor: SensorOfReadings
    buckets: list[ReadingsBucketsItem] | Unset = UNSET
    from_: datetime.datetime | None | Unset = UNSET
    interval_ms: int | Unset = UNSET
    next_: None | str | Unset = UNSET
    readings: list[ReadingsReadingsItem] | Unset = UNSET
    to: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.readings_buckets_item import ReadingsBucketsItem # noqa: PLC0415
        from ..models.readings_readings_item import ReadingsReadingsItem # noqa: PLC0415
        from ..models.sensor_of_readings import SensorOfReadings # noqa: PLC0415
        sensor = self.sensor.to_dict()

        buckets: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.buckets, Unset):
            buckets = []
            for buckets_item_data in self.buckets:
                buckets_item = buckets_item_data.to_dict()
                buckets.append(buckets_item)



        from_: None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        elif isinstance(self.from_, datetime.datetime):
            from_ = self.from_.isoformat()
        else:
            from_ = self.from_

        interval_ms = self.interval_ms

        next_: None | str | Unset
        if isinstance(self.next_, Unset):
            next_ = UNSET
        else:
            next_ = self.next_

        readings: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.readings, Unset):
            readings = []
            for readings_item_data in self.readings:
                readings_item = readings_item_data.to_dict()
                readings.append(readings_item)



        to: None | str | Unset
        if isinstance(self.to, Unset):
            to = UNSET
        elif isinstance(self.to, datetime.datetime):
            to = self.to.isoformat()
        else:
            to = self.to


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "sensor": sensor,
        })
        if buckets is not UNSET:
            field_dict["buckets"] = buckets
        if from_ is not UNSET:
            field_dict["from"] = from_
        if interval_ms is not UNSET:
            field_dict["interval_ms"] = interval_ms
        if next_ is not UNSET:
            field_dict["next"] = next_
        if readings is not UNSET:
            field_dict["readings"] = readings
        if to is not UNSET:
            field_dict["to"] = to

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.readings_buckets_item import ReadingsBucketsItem # noqa: PLC0415
        from ..models.readings_readings_item import ReadingsReadingsItem # noqa: PLC0415
        from ..models.sensor_of_readings import SensorOfReadings # noqa: PLC0415
        d = dict(src_dict)
        sensor = SensorOfReadings.from_dict(d.pop("sensor"))




        _buckets = d.pop("buckets", UNSET)
        buckets: list[ReadingsBucketsItem] | Unset = UNSET
        if _buckets is not UNSET:
            buckets = []
            for buckets_item_data in _buckets:
                buckets_item = ReadingsBucketsItem.from_dict(buckets_item_data)



                buckets.append(buckets_item)


        def _parse_from_(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                from_type_0 = _isoparse(data)



                return from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        from_ = _parse_from_(d.pop("from", UNSET))


        interval_ms = d.pop("interval_ms", UNSET)

        def _parse_next_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        next_ = _parse_next_(d.pop("next", UNSET))


        _readings = d.pop("readings", UNSET)
        readings: list[ReadingsReadingsItem] | Unset = UNSET
        if _readings is not UNSET:
            readings = []
            for readings_item_data in _readings:
                readings_item = ReadingsReadingsItem.from_dict(readings_item_data)



                readings.append(readings_item)


        def _parse_to(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                to_type_0 = _isoparse(data)



                return to_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        to = _parse_to(d.pop("to", UNSET))


        readings = cls(
            sensor=sensor,
            buckets=buckets,
            from_=from_,
            interval_ms=interval_ms,
            next_=next_,
            readings=readings,
            to=to,
        )


        readings.additional_properties = d
        return readings

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
