from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.compute_request_area import ComputeRequestArea
  from ..models.compute_request_bands import ComputeRequestBands
  from ..models.compute_request_output import ComputeRequestOutput
  from ..models.compute_request_zones import ComputeRequestZones





T = TypeVar("T", bound="ComputeRequest")



@_attrs_define
class ComputeRequest:
    """ 
        Example:
            {'bands': {'nir': 'B8', 'red': 'B7'}, 'scene': 'cbers4/scene-1', 'zones': {'collection': 'parcels'}}

        Attributes:
            scene (str): `collection/item` or an item id
            area (ComputeRequestArea | Unset):
            async_ (bool | Unset): Always run as a job
            bands (ComputeRequestBands | Unset): Role to asset key or band name, e.g. {"red": "B7", "nir": "B8"}
            expression (str | Unset): For `/compute/expression`: band math over asset keys or band names
            output (ComputeRequestOutput | Unset):
            zones (ComputeRequestZones | Unset):
     """

    scene: str
    area: ComputeRequestArea | Unset = UNSET
    async_: bool | Unset = UNSET
    bands: ComputeRequestBands | Unset = UNSET
    expression: str | Unset = UNSET
    output: ComputeRequestOutput | Unset = UNSET
    zones: ComputeRequestZones | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.compute_request_area import ComputeRequestArea # noqa: PLC0415
        from ..models.compute_request_bands import ComputeRequestBands # noqa: PLC0415
        from ..models.compute_request_output import ComputeRequestOutput # noqa: PLC0415
        from ..models.compute_request_zones import ComputeRequestZones # noqa: PLC0415
        scene = self.scene

        area: dict[str, Any] | Unset = UNSET
        if not isinstance(self.area, Unset):
            area = self.area.to_dict()

        async_ = self.async_

        bands: dict[str, Any] | Unset = UNSET
        if not isinstance(self.bands, Unset):
            bands = self.bands.to_dict()

        expression = self.expression

        output: dict[str, Any] | Unset = UNSET
        if not isinstance(self.output, Unset):
            output = self.output.to_dict()

        zones: dict[str, Any] | Unset = UNSET
        if not isinstance(self.zones, Unset):
            zones = self.zones.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "scene": scene,
        })
        if area is not UNSET:
            field_dict["area"] = area
        if async_ is not UNSET:
            field_dict["async"] = async_
        if bands is not UNSET:
            field_dict["bands"] = bands
        if expression is not UNSET:
            field_dict["expression"] = expression
        if output is not UNSET:
            field_dict["output"] = output
        if zones is not UNSET:
            field_dict["zones"] = zones

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.compute_request_area import ComputeRequestArea # noqa: PLC0415
        from ..models.compute_request_bands import ComputeRequestBands # noqa: PLC0415
        from ..models.compute_request_output import ComputeRequestOutput # noqa: PLC0415
        from ..models.compute_request_zones import ComputeRequestZones # noqa: PLC0415
        d = dict(src_dict)
        scene = d.pop("scene")

        _area = d.pop("area", UNSET)
        area: ComputeRequestArea | Unset
        if isinstance(_area,  Unset):
            area = UNSET
        else:
            area = ComputeRequestArea.from_dict(_area)




        async_ = d.pop("async", UNSET)

        _bands = d.pop("bands", UNSET)
        bands: ComputeRequestBands | Unset
        if isinstance(_bands,  Unset):
            bands = UNSET
        else:
            bands = ComputeRequestBands.from_dict(_bands)




        expression = d.pop("expression", UNSET)

        _output = d.pop("output", UNSET)
        output: ComputeRequestOutput | Unset
        if isinstance(_output,  Unset):
            output = UNSET
        else:
            output = ComputeRequestOutput.from_dict(_output)




        _zones = d.pop("zones", UNSET)
        zones: ComputeRequestZones | Unset
        if isinstance(_zones,  Unset):
            zones = UNSET
        else:
            zones = ComputeRequestZones.from_dict(_zones)




        compute_request = cls(
            scene=scene,
            area=area,
            async_=async_,
            bands=bands,
            expression=expression,
            output=output,
            zones=zones,
        )


        compute_request.additional_properties = d
        return compute_request

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
