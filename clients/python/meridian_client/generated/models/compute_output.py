from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ComputeOutput")



@_attrs_define
class ComputeOutput:
    """ 
        Attributes:
            href (str):
            name (str):
            roles (list[str] | Unset):
            size (int | Unset):
            type_ (str | Unset):
     """

    href: str
    name: str
    roles: list[str] | Unset = UNSET
    size: int | Unset = UNSET
    type_: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        href = self.href

        name = self.name

        roles: list[str] | Unset = UNSET
        if not isinstance(self.roles, Unset):
            roles = self.roles



        size = self.size

        type_ = self.type_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "href": href,
            "name": name,
        })
        if roles is not UNSET:
            field_dict["roles"] = roles
        if size is not UNSET:
            field_dict["size"] = size
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        href = d.pop("href")

        name = d.pop("name")

        roles = cast(list[str], d.pop("roles", UNSET))


        size = d.pop("size", UNSET)

        type_ = d.pop("type", UNSET)

        compute_output = cls(
            href=href,
            name=name,
            roles=roles,
            size=size,
            type_=type_,
        )


        compute_output.additional_properties = d
        return compute_output

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
