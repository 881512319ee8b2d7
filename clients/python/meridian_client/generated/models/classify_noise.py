from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ClassifyNoise")



@_attrs_define
class ClassifyNoise:
    """ The noise step: PDAL's `filters.outlier` (and `filters.elm`).

        Attributes:
            elm (bool | Unset): Run the extended local minimum filter for low outliers first (false: in a sparse closed
                canopy it takes the few ground returns for low noise).
            mean_k (int | Unset):
            method (str | Unset): `radius` (the default) or `statistical`.
            min_k (int | Unset):
            multiplier (float | Unset):
            radius (float | None | Unset): Metres; null or absent: four times the point spacing.
     """

    elm: bool | Unset = UNSET
    mean_k: int | Unset = UNSET
    method: str | Unset = UNSET
    min_k: int | Unset = UNSET
    multiplier: float | Unset = UNSET
    radius: float | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        elm = self.elm

        mean_k = self.mean_k

        method = self.method

        min_k = self.min_k

        multiplier = self.multiplier

        radius: float | None | Unset
        if isinstance(self.radius, Unset):
            radius = UNSET
        else:
            radius = self.radius


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if elm is not UNSET:
            field_dict["elm"] = elm
        if mean_k is not UNSET:
            field_dict["mean_k"] = mean_k
        if method is not UNSET:
            field_dict["method"] = method
        if min_k is not UNSET:
            field_dict["min_k"] = min_k
        if multiplier is not UNSET:
            field_dict["multiplier"] = multiplier
        if radius is not UNSET:
            field_dict["radius"] = radius

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        elm = d.pop("elm", UNSET)

        mean_k = d.pop("mean_k", UNSET)

        method = d.pop("method", UNSET)

        min_k = d.pop("min_k", UNSET)

        multiplier = d.pop("multiplier", UNSET)

        def _parse_radius(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        radius = _parse_radius(d.pop("radius", UNSET))


        classify_noise = cls(
            elm=elm,
            mean_k=mean_k,
            method=method,
            min_k=min_k,
            multiplier=multiplier,
            radius=radius,
        )

        return classify_noise

