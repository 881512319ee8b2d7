from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ClassifyGround")



@_attrs_define
class ClassifyGround:
    """ The ground step: PDAL's `filters.smrf` or `filters.csf` names, and the raised-ground step.

        Attributes:
            cell (float | None | Unset): SMRF cell, metres; null or absent: 1 m, or the point spacing where points are
                sparser.
            cut (float | Unset):
            hdiff (float | Unset):
            iterations (int | Unset):
            low_noise (bool | Unset): Low noise within the ground filter's tolerance of the ground surface is ground, as the
                few
                ground returns under a closed canopy (true).
            method (str | Unset): `smrf` (the default) or `csf`.
            normalised (bool | Unset): Take the ground at z ≈ 0 when the file is height-normalised, rather than filter it
                (true).
            offset (float | None | Unset): Ground points more than this many metres above the ground surface are given back
                to the
                classes step; null (the default) keeps them.
            resolution (float | Unset): CSF cloth resolution, metres.
            rigidness (int | Unset):
            roofs (bool | Unset): Take roofs wider than the window back out of the ground (true).
            scalar (float | Unset):
            slope (float | Unset):
            smooth (bool | Unset):
            step (float | Unset):
            threshold (float | Unset):
            window (float | Unset):
     """

    cell: float | None | Unset = UNSET
    cut: float | Unset = UNSET
    hdiff: float | Unset = UNSET
    iterations: int | Unset = UNSET
    low_noise: bool | Unset = UNSET
    method: str | Unset = UNSET
    normalised: bool | Unset = UNSET
    offset: float | None | Unset = UNSET
    resolution: float | Unset = UNSET
    rigidness: int | Unset = UNSET
    roofs: bool | Unset = UNSET
    scalar: float | Unset = UNSET
    slope: float | Unset = UNSET
    smooth: bool | Unset = UNSET
    step: float | Unset = UNSET
    threshold: float | Unset = UNSET
    window: float | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        cell: float | None | Unset
        if isinstance(self.cell, Unset):
            cell = UNSET
        else:
            cell = self.cell

        cut = self.cut

        hdiff = self.hdiff

        iterations = self.iterations

        low_noise = self.low_noise

        method = self.method

        normalised = self.normalised

        offset: float | None | Unset
        if isinstance(self.offset, Unset):
            offset = UNSET
        else:
            offset = self.offset

        resolution = self.resolution

        rigidness = self.rigidness

        roofs = self.roofs

        scalar = self.scalar

        slope = self.slope

        smooth = self.smooth

        step = self.step

        threshold = self.threshold

        window = self.window


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if cell is not UNSET:
            field_dict["cell"] = cell
        if cut is not UNSET:
            field_dict["cut"] = cut
        if hdiff is not UNSET:
            field_dict["hdiff"] = hdiff
        if iterations is not UNSET:
            field_dict["iterations"] = iterations
        if low_noise is not UNSET:
            field_dict["low_noise"] = low_noise
        if method is not UNSET:
            field_dict["method"] = method
        if normalised is not UNSET:
            field_dict["normalised"] = normalised
        if offset is not UNSET:
            field_dict["offset"] = offset
        if resolution is not UNSET:
            field_dict["resolution"] = resolution
        if rigidness is not UNSET:
            field_dict["rigidness"] = rigidness
        if roofs is not UNSET:
            field_dict["roofs"] = roofs
        if scalar is not UNSET:
            field_dict["scalar"] = scalar
        if slope is not UNSET:
            field_dict["slope"] = slope
        if smooth is not UNSET:
            field_dict["smooth"] = smooth
        if step is not UNSET:
            field_dict["step"] = step
        if threshold is not UNSET:
            field_dict["threshold"] = threshold
        if window is not UNSET:
            field_dict["window"] = window

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_cell(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        cell = _parse_cell(d.pop("cell", UNSET))


        cut = d.pop("cut", UNSET)

        hdiff = d.pop("hdiff", UNSET)

        iterations = d.pop("iterations", UNSET)

        low_noise = d.pop("low_noise", UNSET)

        method = d.pop("method", UNSET)

        normalised = d.pop("normalised", UNSET)

        def _parse_offset(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        offset = _parse_offset(d.pop("offset", UNSET))


        resolution = d.pop("resolution", UNSET)

        rigidness = d.pop("rigidness", UNSET)

        roofs = d.pop("roofs", UNSET)

        scalar = d.pop("scalar", UNSET)

        slope = d.pop("slope", UNSET)

        smooth = d.pop("smooth", UNSET)

        step = d.pop("step", UNSET)

        threshold = d.pop("threshold", UNSET)

        window = d.pop("window", UNSET)

        classify_ground = cls(
            cell=cell,
            cut=cut,
            hdiff=hdiff,
            iterations=iterations,
            low_noise=low_noise,
            method=method,
            normalised=normalised,
            offset=offset,
            resolution=resolution,
            rigidness=rigidness,
            roofs=roofs,
            scalar=scalar,
            slope=slope,
            smooth=smooth,
            step=step,
            threshold=threshold,
            window=window,
        )

        return classify_ground

