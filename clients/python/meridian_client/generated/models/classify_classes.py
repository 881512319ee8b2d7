from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="ClassifyClasses")



@_attrs_define
class ClassifyClasses:
    """ The classes step.

        Attributes:
            method (str | Unset): `combined` (the default: the model where it is confident, the geometric rules elsewhere),
                `rules`, `model`, or `heights` (vegetation by height band alone, the PDAL-style baseline).
            water (bool | Unset): Ground points on water (sparse, flat, single returns below the ground around them)
                become class 9 (true).
     """

    method: str | Unset = UNSET
    water: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        method = self.method

        water = self.water


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if method is not UNSET:
            field_dict["method"] = method
        if water is not UNSET:
            field_dict["water"] = water

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        method = d.pop("method", UNSET)

        water = d.pop("water", UNSET)

        classify_classes = cls(
            method=method,
            water=water,
        )

        return classify_classes

