from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="CreateZone")



@_attrs_define
class CreateZone:
    """ Body of zone creation.

        Example:
            {'name': 'example.com'}

        Attributes:
            name (str): The domain, e.g. `example.com` (internationalized names are accepted and kept as punycode).
     """

    name: str





    def to_dict(self) -> dict[str, Any]:
        name = self.name


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        create_zone = cls(
            name=name,
        )

        return create_zone

