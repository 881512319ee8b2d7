from __future__ import annotations
from dateutil.parser import isoparse as _isoparse

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.clock_mode import ClockMode
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="Clock")



@_attrs_define
class Clock:
    """ 
        Attributes:
            mode (ClockMode):
            playing (bool):
            rate (float): Simulated seconds a second (negative runs backwards)
            time (datetime.datetime): The clock's instant now
            set_at (datetime.datetime | None | Unset):
     """

    mode: ClockMode
    playing: bool
    rate: float
    time: datetime.datetime
    set_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        mode = self.mode.value

        playing = self.playing

        rate = self.rate

        time = self.time.isoformat()

        set_at: None | str | Unset
        if isinstance(self.set_at, Unset):
            set_at = UNSET
        elif isinstance(self.set_at, datetime.datetime):
            set_at = self.set_at.isoformat()
        else:
            set_at = self.set_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "mode": mode,
            "playing": playing,
            "rate": rate,
            "time": time,
        })
        if set_at is not UNSET:
            field_dict["set_at"] = set_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        mode = ClockMode(d.pop("mode"))




        playing = d.pop("playing")

        rate = d.pop("rate")

        time = _isoparse(d.pop("time"))




        def _parse_set_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                set_at_type_0 = _isoparse(data)



                return set_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        set_at = _parse_set_at(d.pop("set_at", UNSET))


        clock = cls(
            mode=mode,
            playing=playing,
            rate=rate,
            time=time,
            set_at=set_at,
        )


        clock.additional_properties = d
        return clock

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
