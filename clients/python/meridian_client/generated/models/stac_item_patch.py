from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.stac_item_patch_geometry_type_0 import StacItemPatchGeometryType0
  from ..models.stac_item_patch_properties_type_0 import StacItemPatchPropertiesType0





T = TypeVar("T", bound="StacItemPatch")



@_attrs_define
class StacItemPatch:
    """ A JSON merge patch (RFC 7396) of a STAC Item

        Example:
            {'properties': {'eo:cloud_cover': 12.5}}

        Attributes:
            geometry (None | StacItemPatchGeometryType0 | Unset): Merged into the geometry (RFC 7396); null removes it
            properties (None | StacItemPatchPropertiesType0 | Unset): Merged into the properties (RFC 7396); null removes it
     """

    geometry: None | StacItemPatchGeometryType0 | Unset = UNSET
    properties: None | StacItemPatchPropertiesType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.stac_item_patch_geometry_type_0 import StacItemPatchGeometryType0 # noqa: PLC0415
        from ..models.stac_item_patch_properties_type_0 import StacItemPatchPropertiesType0 # noqa: PLC0415
        geometry: dict[str, Any] | None | Unset
        if isinstance(self.geometry, Unset):
            geometry = UNSET
        elif isinstance(self.geometry, StacItemPatchGeometryType0):
            geometry = self.geometry.to_dict()
        else:
            geometry = self.geometry

        properties: dict[str, Any] | None | Unset
        if isinstance(self.properties, Unset):
            properties = UNSET
        elif isinstance(self.properties, StacItemPatchPropertiesType0):
            properties = self.properties.to_dict()
        else:
            properties = self.properties


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if geometry is not UNSET:
            field_dict["geometry"] = geometry
        if properties is not UNSET:
            field_dict["properties"] = properties

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.stac_item_patch_geometry_type_0 import StacItemPatchGeometryType0 # noqa: PLC0415
        from ..models.stac_item_patch_properties_type_0 import StacItemPatchPropertiesType0 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_geometry(data: object) -> None | StacItemPatchGeometryType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                geometry_type_0 = StacItemPatchGeometryType0.from_dict(data)



                return geometry_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | StacItemPatchGeometryType0 | Unset", data)

        geometry = _parse_geometry(d.pop("geometry", UNSET))


        def _parse_properties(data: object) -> None | StacItemPatchPropertiesType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                properties_type_0 = StacItemPatchPropertiesType0.from_dict(data)



                return properties_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | StacItemPatchPropertiesType0 | Unset", data)

        properties = _parse_properties(d.pop("properties", UNSET))


        stac_item_patch = cls(
            geometry=geometry,
            properties=properties,
        )


        stac_item_patch.additional_properties = d
        return stac_item_patch

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
