from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.band_statistics_histogram import BandStatisticsHistogram





T = TypeVar("T", bound="BandStatistics")



@_attrs_define
class BandStatistics:
    """ Statistics of the valid pixels (null where there are none)

        Attributes:
            count (int | Unset):
            histogram (BandStatisticsHistogram | Unset):
            max_ (float | None | Unset):
            mean (float | None | Unset):
            min_ (float | None | Unset):
            nodata_count (int | Unset):
            std (float | None | Unset):
     """

    count: int | Unset = UNSET
    histogram: BandStatisticsHistogram | Unset = UNSET
    max_: float | None | Unset = UNSET
    mean: float | None | Unset = UNSET
    min_: float | None | Unset = UNSET
    nodata_count: int | Unset = UNSET
    std: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.band_statistics_histogram import BandStatisticsHistogram # noqa: PLC0415
        count = self.count

        histogram: dict[str, Any] | Unset = UNSET
        if not isinstance(self.histogram, Unset):
            histogram = self.histogram.to_dict()

        max_: float | None | Unset
        if isinstance(self.max_, Unset):
            max_ = UNSET
        else:
            max_ = self.max_

        mean: float | None | Unset
        if isinstance(self.mean, Unset):
            mean = UNSET
        else:
            mean = self.mean

        min_: float | None | Unset
        if isinstance(self.min_, Unset):
            min_ = UNSET
        else:
            min_ = self.min_

        nodata_count = self.nodata_count

        std: float | None | Unset
        if isinstance(self.std, Unset):
            std = UNSET
        else:
            std = self.std


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if count is not UNSET:
            field_dict["count"] = count
        if histogram is not UNSET:
            field_dict["histogram"] = histogram
        if max_ is not UNSET:
            field_dict["max"] = max_
        if mean is not UNSET:
            field_dict["mean"] = mean
        if min_ is not UNSET:
            field_dict["min"] = min_
        if nodata_count is not UNSET:
            field_dict["nodata_count"] = nodata_count
        if std is not UNSET:
            field_dict["std"] = std

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.band_statistics_histogram import BandStatisticsHistogram # noqa: PLC0415
        d = dict(src_dict)
        count = d.pop("count", UNSET)

        _histogram = d.pop("histogram", UNSET)
        histogram: BandStatisticsHistogram | Unset
        if isinstance(_histogram,  Unset):
            histogram = UNSET
        else:
            histogram = BandStatisticsHistogram.from_dict(_histogram)




        def _parse_max_(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        max_ = _parse_max_(d.pop("max", UNSET))


        def _parse_mean(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        mean = _parse_mean(d.pop("mean", UNSET))


        def _parse_min_(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        min_ = _parse_min_(d.pop("min", UNSET))


        nodata_count = d.pop("nodata_count", UNSET)

        def _parse_std(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        std = _parse_std(d.pop("std", UNSET))


        band_statistics = cls(
            count=count,
            histogram=histogram,
            max_=max_,
            mean=mean,
            min_=min_,
            nodata_count=nodata_count,
            std=std,
        )


        band_statistics.additional_properties = d
        return band_statistics

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
