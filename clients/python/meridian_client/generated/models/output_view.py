from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.statistics_view import StatisticsView





T = TypeVar("T", bound="OutputView")



@_attrs_define
class OutputView:
    """ One output of a job.

        Attributes:
            href (str): Where to download it (with the same credentials).
            media_type (str): `image/tiff; application=geotiff; profile=cloud-optimized` or `application/geo+json`.
            operation (str): The operation that made it; also its tile layer.
            size (int): Bytes.
            statistics (None | StatisticsView | Unset):
     """

    href: str
    media_type: str
    operation: str
    size: int
    statistics: None | StatisticsView | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.statistics_view import StatisticsView # noqa: PLC0415
        href = self.href

        media_type = self.media_type

        operation = self.operation

        size = self.size

        statistics: dict[str, Any] | None | Unset
        if isinstance(self.statistics, Unset):
            statistics = UNSET
        elif isinstance(self.statistics, StatisticsView):
            statistics = self.statistics.to_dict()
        else:
            statistics = self.statistics


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "href": href,
            "media_type": media_type,
            "operation": operation,
            "size": size,
        })
        if statistics is not UNSET:
            field_dict["statistics"] = statistics

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.statistics_view import StatisticsView # noqa: PLC0415
        d = dict(src_dict)
        href = d.pop("href")

        media_type = d.pop("media_type")

        operation = d.pop("operation")

        size = d.pop("size")

        def _parse_statistics(data: object) -> None | StatisticsView | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                statistics_type_1 = StatisticsView.from_dict(data)



                return statistics_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | StatisticsView | Unset", data)

        statistics = _parse_statistics(d.pop("statistics", UNSET))


        output_view = cls(
            href=href,
            media_type=media_type,
            operation=operation,
            size=size,
            statistics=statistics,
        )


        output_view.additional_properties = d
        return output_view

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
