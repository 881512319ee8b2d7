from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.stac_extent_spatial import StacExtentSpatial
  from ..models.stac_extent_temporal import StacExtentTemporal





T = TypeVar("T", bound="StacExtent")



@_attrs_define
class StacExtent:
    """ 
        Attributes:
            spatial (StacExtentSpatial | Unset):
            temporal (StacExtentTemporal | Unset):
     """

    spatial: StacExtentSpatial | Unset = UNSET
    temporal: StacExtentTemporal | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.stac_extent_spatial import StacExtentSpatial # noqa: PLC0415
        from ..models.stac_extent_temporal import StacExtentTemporal # noqa: PLC0415
        spatial: dict[str, Any] | Unset = UNSET
        if not isinstance(self.spatial, Unset):
            spatial = self.spatial.to_dict()

        temporal: dict[str, Any] | Unset = UNSET
        if not isinstance(self.temporal, Unset):
            temporal = self.temporal.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if spatial is not UNSET:
            field_dict["spatial"] = spatial
        if temporal is not UNSET:
            field_dict["temporal"] = temporal

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.stac_extent_spatial import StacExtentSpatial # noqa: PLC0415
        from ..models.stac_extent_temporal import StacExtentTemporal # noqa: PLC0415
        d = dict(src_dict)
        _spatial = d.pop("spatial", UNSET)
        spatial: StacExtentSpatial | Unset
        if isinstance(_spatial,  Unset):
            spatial = UNSET
        else:
            spatial = StacExtentSpatial.from_dict(_spatial)




        _temporal = d.pop("temporal", UNSET)
        temporal: StacExtentTemporal | Unset
        if isinstance(_temporal,  Unset):
            temporal = UNSET
        else:
            temporal = StacExtentTemporal.from_dict(_temporal)




        stac_extent = cls(
            spatial=spatial,
            temporal=temporal,
        )


        stac_extent.additional_properties = d
        return stac_extent

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
