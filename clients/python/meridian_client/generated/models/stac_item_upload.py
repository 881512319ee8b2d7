from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field
import json
from .. import types

from ..types import UNSET, Unset

from ..types import File, FileTypes
from io import BytesIO






T = TypeVar("T", bound="StacItemUpload")



@_attrs_define
class StacItemUpload:
    """ A part `item` (JSON: at least `id` and `datetime`, and the assets' `eo:bands`) and one GeoTIFF part per asset, named
    by the asset key

        Example:
            {'item': '{"id": "scene-1", "properties": {"datetime": "2017-11-21T00:00:00Z"}, "assets": {"B8": {"eo:bands":
                [{"name": "B8", "common_name": "nir"}]}}}'}

        Attributes:
            item (str): The Item as JSON text
     """

    item: str
    additional_properties: dict[str, File] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        item = self.item


        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            field_dict[prop_name] = prop.to_tuple()


        field_dict.update({
            "item": item,
        })

        return field_dict


    def to_multipart(self) -> types.RequestFiles:
        files: types.RequestFiles = []

        files.append(("item", (None, str(self.item).encode(), "text/plain")))




        for prop_name, prop in self.additional_properties.items():
            files.append((prop_name, prop.to_tuple()))



        return files


    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        item = d.pop("item")

        stac_item_upload = cls(
            item=item,
        )


        additional_properties = {}
        for prop_name, prop_dict in d.items():
            additional_property = File(
                 payload = BytesIO(prop_dict)
            )



            additional_properties[prop_name] = additional_property

        stac_item_upload.additional_properties = additional_properties
        return stac_item_upload

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> File:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: File) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
