from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ParcelDraftProperties")



@_attrs_define
class ParcelDraftProperties:
    """ 
        Attributes:
            lot (str):
            plan (str):
            tenure (None | str | Unset):
     """

    lot: str
    plan: str
    tenure: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        lot = self.lot

        plan = self.plan

        tenure: None | str | Unset
        if isinstance(self.tenure, Unset):
            tenure = UNSET
        else:
            tenure = self.tenure


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "lot": lot,
            "plan": plan,
        })
        if tenure is not UNSET:
            field_dict["tenure"] = tenure

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        lot = d.pop("lot")

        plan = d.pop("plan")

        def _parse_tenure(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        tenure = _parse_tenure(d.pop("tenure", UNSET))


        parcel_draft_properties = cls(
            lot=lot,
            plan=plan,
            tenure=tenure,
        )


        parcel_draft_properties.additional_properties = d
        return parcel_draft_properties

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
