from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="SetTime")



@_attrs_define
class SetTime:
    """ A change of the clock: every field optional, the others are kept.

        Example:
            {'playing': True, 'rate': 60, 'time': '2024-06-01T09:00:00Z'}

        Attributes:
            playing (bool | None | Unset): Whether the clock runs.
            rate (float | None | Unset): Simulated seconds per real second while playing; negative plays backwards (-1e6 to
                1e6).
            time (None | str | Unset): An RFC 3339 instant, or `now`. Example: 2026-01-01T08:00:00Z.
     """

    playing: bool | None | Unset = UNSET
    rate: float | None | Unset = UNSET
    time: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        playing: bool | None | Unset
        if isinstance(self.playing, Unset):
            playing = UNSET
        else:
            playing = self.playing

        rate: float | None | Unset
        if isinstance(self.rate, Unset):
            rate = UNSET
        else:
            rate = self.rate

        time: None | str | Unset
        if isinstance(self.time, Unset):
            time = UNSET
        else:
            time = self.time


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if playing is not UNSET:
            field_dict["playing"] = playing
        if rate is not UNSET:
            field_dict["rate"] = rate
        if time is not UNSET:
            field_dict["time"] = time

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_playing(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("bool | None | Unset", data)

        playing = _parse_playing(d.pop("playing", UNSET))


        def _parse_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        rate = _parse_rate(d.pop("rate", UNSET))


        def _parse_time(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        time = _parse_time(d.pop("time", UNSET))


        set_time = cls(
            playing=playing,
            rate=rate,
            time=time,
        )

        return set_time

