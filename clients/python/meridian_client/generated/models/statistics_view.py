from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="StatisticsView")



@_attrs_define
class StatisticsView:
    """ Minimum, maximum and mean of an output's valid samples (contours: of the line levels).

        Attributes:
            count (int): Valid samples (contours: lines).
            max_ (float):
            mean (float):
            min_ (float):
     """

    count: int
    max_: float
    mean: float
    min_: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        count = self.count

        max_ = self.max_

        mean = self.mean

        min_ = self.min_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "count": count,
            "max": max_,
            "mean": mean,
            "min": min_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        count = d.pop("count")

        max_ = d.pop("max")

        mean = d.pop("mean")

        min_ = d.pop("min")

        statistics_view = cls(
            count=count,
            max_=max_,
            mean=mean,
            min_=min_,
        )


        statistics_view.additional_properties = d
        return statistics_view

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
