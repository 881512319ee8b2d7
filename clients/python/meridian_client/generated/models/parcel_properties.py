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






T = TypeVar("T", bound="ParcelProperties")



@_attrs_define
class ParcelProperties:
    """ The interface's parcel attributes; any other properties are kept as given

        Attributes:
            area_m2 (float): Area on the WGS84 ellipsoid, kept by the server
            lot (str): Lot number
            plan (str): Plan (deposited plan) number; (lot, plan) is unique
            updated_at (datetime.datetime): Kept by the server
            tenure (None | str | Unset):
     """

    area_m2: float
    lot: str
    plan: str
    updated_at: datetime.datetime
    tenure: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        area_m2 = self.area_m2

        lot = self.lot

        plan = self.plan

        updated_at = self.updated_at.isoformat()

        tenure: None | str | Unset
        if isinstance(self.tenure, Unset):
            tenure = UNSET
        else:
            tenure = self.tenure


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "area_m2": area_m2,
            "lot": lot,
            "plan": plan,
            "updated_at": updated_at,
        })
        if tenure is not UNSET:
            field_dict["tenure"] = tenure

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        area_m2 = d.pop("area_m2")

        lot = d.pop("lot")

        plan = d.pop("plan")

        updated_at = _isoparse(d.pop("updated_at"))




        def _parse_tenure(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        tenure = _parse_tenure(d.pop("tenure", UNSET))


        parcel_properties = cls(
            area_m2=area_m2,
            lot=lot,
            plan=plan,
            updated_at=updated_at,
            tenure=tenure,
        )


        parcel_properties.additional_properties = d
        return parcel_properties

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
