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






T = TypeVar("T", bound="StacItemProperties")



@_attrs_define
class StacItemProperties:
    """ 
        Attributes:
            datetime_ (datetime.datetime | None | Unset):
            end_datetime (datetime.datetime | Unset):
            start_datetime (datetime.datetime | Unset):
     """

    datetime_: datetime.datetime | None | Unset = UNSET
    end_datetime: datetime.datetime | Unset = UNSET
    start_datetime: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        datetime_: None | str | Unset
        if isinstance(self.datetime_, Unset):
            datetime_ = UNSET
        elif isinstance(self.datetime_, datetime.datetime):
            datetime_ = self.datetime_.isoformat()
        else:
            datetime_ = self.datetime_

        end_datetime: str | Unset = UNSET
        if not isinstance(self.end_datetime, Unset):
            end_datetime = self.end_datetime.isoformat()

        start_datetime: str | Unset = UNSET
        if not isinstance(self.start_datetime, Unset):
            start_datetime = self.start_datetime.isoformat()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if datetime_ is not UNSET:
            field_dict["datetime"] = datetime_
        if end_datetime is not UNSET:
            field_dict["end_datetime"] = end_datetime
        if start_datetime is not UNSET:
            field_dict["start_datetime"] = start_datetime

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_datetime_(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                datetime_type_0 = _isoparse(data)



                return datetime_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("datetime.datetime | None | Unset", data)

        datetime_ = _parse_datetime_(d.pop("datetime", UNSET))


        _end_datetime = d.pop("end_datetime", UNSET)
        end_datetime: datetime.datetime | Unset
        if isinstance(_end_datetime,  Unset):
            end_datetime = UNSET
        else:
            end_datetime = _isoparse(_end_datetime)




        _start_datetime = d.pop("start_datetime", UNSET)
        start_datetime: datetime.datetime | Unset
        if isinstance(_start_datetime,  Unset):
            start_datetime = UNSET
        else:
            start_datetime = _isoparse(_start_datetime)




        stac_item_properties = cls(
            datetime_=datetime_,
            end_datetime=end_datetime,
            start_datetime=start_datetime,
        )


        stac_item_properties.additional_properties = d
        return stac_item_properties

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
