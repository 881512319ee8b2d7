from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.compute_request_output_formats_item import ComputeRequestOutputFormatsItem
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ComputeRequestOutput")



@_attrs_define
class ComputeRequestOutput:
    """ 
        Attributes:
            colormap (str | Unset):
            formats (list[ComputeRequestOutputFormatsItem] | Unset):
            rescale (list[float] | Unset):
     """

    colormap: str | Unset = UNSET
    formats: list[ComputeRequestOutputFormatsItem] | Unset = UNSET
    rescale: list[float] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        colormap = self.colormap

        formats: list[str] | Unset = UNSET
        if not isinstance(self.formats, Unset):
            formats = []
            for formats_item_data in self.formats:
                formats_item = formats_item_data.value
                formats.append(formats_item)



        rescale: list[float] | Unset = UNSET
        if not isinstance(self.rescale, Unset):
            rescale = self.rescale




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if colormap is not UNSET:
            field_dict["colormap"] = colormap
        if formats is not UNSET:
            field_dict["formats"] = formats
        if rescale is not UNSET:
            field_dict["rescale"] = rescale

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        colormap = d.pop("colormap", UNSET)

        _formats = d.pop("formats", UNSET)
        formats: list[ComputeRequestOutputFormatsItem] | Unset = UNSET
        if _formats is not UNSET:
            formats = []
            for formats_item_data in _formats:
                formats_item = ComputeRequestOutputFormatsItem(formats_item_data)



                formats.append(formats_item)


        rescale = cast(list[float], d.pop("rescale", UNSET))


        compute_request_output = cls(
            colormap=colormap,
            formats=formats,
            rescale=rescale,
        )


        compute_request_output.additional_properties = d
        return compute_request_output

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
