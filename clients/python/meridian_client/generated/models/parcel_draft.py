from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.parcel_draft_type import ParcelDraftType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.multi_polygon import MultiPolygon
  from ..models.parcel_draft_properties import ParcelDraftProperties
  from ..models.polygon import Polygon





T = TypeVar("T", bound="ParcelDraft")



@_attrs_define
class ParcelDraft:
    """ A parcel to register or replace

        Example:
            {'geometry': {'coordinates': [[[151.2, -33.87], [151.201, -33.87], [151.201, -33.869], [151.2, -33.869], [151.2,
                -33.87]]], 'type': 'Polygon'}, 'properties': {'lot': '12', 'plan': 'DP1234', 'tenure': 'freehold'}, 'type':
                'Feature'}

        Attributes:
            geometry (MultiPolygon | Polygon): A Polygon or MultiPolygon
            type_ (ParcelDraftType):
            properties (ParcelDraftProperties | Unset):
     """

    geometry: MultiPolygon | Polygon
    type_: ParcelDraftType
    properties: ParcelDraftProperties | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.parcel_draft_properties import ParcelDraftProperties # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        geometry: dict[str, Any]
        if isinstance(self.geometry, Polygon):
            geometry = self.geometry.to_dict()
        else:
            geometry = self.geometry.to_dict()


        type_ = self.type_.value

        properties: dict[str, Any] | Unset = UNSET
        if not isinstance(self.properties, Unset):
            properties = self.properties.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "geometry": geometry,
            "type": type_,
        })
        if properties is not UNSET:
            field_dict["properties"] = properties

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.parcel_draft_properties import ParcelDraftProperties # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        d = dict(src_dict)
        def _parse_geometry(data: object) -> MultiPolygon | Polygon:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_areal_geometry_type_0 = Polygon.from_dict(data)



                return componentsschemas_areal_geometry_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_areal_geometry_type_1 = MultiPolygon.from_dict(data)



            return componentsschemas_areal_geometry_type_1

        geometry = _parse_geometry(d.pop("geometry"))


        type_ = ParcelDraftType(d.pop("type"))




        _properties = d.pop("properties", UNSET)
        properties: ParcelDraftProperties | Unset
        if isinstance(_properties,  Unset):
            properties = UNSET
        else:
            properties = ParcelDraftProperties.from_dict(_properties)




        parcel_draft = cls(
            geometry=geometry,
            type_=type_,
            properties=properties,
        )


        parcel_draft.additional_properties = d
        return parcel_draft

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
