from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="DnskeyView")



@_attrs_define
class DnskeyView:
    """ A signing key.

        Attributes:
            algorithm (int): 13: ECDSA P-256 with SHA-256.
            dnskey (str): The DNSKEY record in master-file form.
            flags (int): 257: a key-signing key that also signs the zone.
            key_tag (int):
            public_key (str): Base64.
     """

    algorithm: int
    dnskey: str
    flags: int
    key_tag: int
    public_key: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        algorithm = self.algorithm

        dnskey = self.dnskey

        flags = self.flags

        key_tag = self.key_tag

        public_key = self.public_key


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "algorithm": algorithm,
            "dnskey": dnskey,
            "flags": flags,
            "key_tag": key_tag,
            "public_key": public_key,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        algorithm = d.pop("algorithm")

        dnskey = d.pop("dnskey")

        flags = d.pop("flags")

        key_tag = d.pop("key_tag")

        public_key = d.pop("public_key")

        dnskey_view = cls(
            algorithm=algorithm,
            dnskey=dnskey,
            flags=flags,
            key_tag=key_tag,
            public_key=public_key,
        )


        dnskey_view.additional_properties = d
        return dnskey_view

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
