from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="DsView")



@_attrs_define
class DsView:
    """ A DS record to give the registrar.

        Attributes:
            algorithm (int):
            digest (str): Hex.
            digest_type (int): 2: SHA-256.
            ds (str): The DS record in master-file form.
            key_tag (int):
     """

    algorithm: int
    digest: str
    digest_type: int
    ds: str
    key_tag: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        algorithm = self.algorithm

        digest = self.digest

        digest_type = self.digest_type

        ds = self.ds

        key_tag = self.key_tag


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "algorithm": algorithm,
            "digest": digest,
            "digest_type": digest_type,
            "ds": ds,
            "key_tag": key_tag,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        algorithm = d.pop("algorithm")

        digest = d.pop("digest")

        digest_type = d.pop("digest_type")

        ds = d.pop("ds")

        key_tag = d.pop("key_tag")

        ds_view = cls(
            algorithm=algorithm,
            digest=digest,
            digest_type=digest_type,
            ds=ds,
            key_tag=key_tag,
        )


        ds_view.additional_properties = d
        return ds_view

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
