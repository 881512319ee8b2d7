from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.tileset_asset import TilesetAsset
  from ..models.tileset_properties import TilesetProperties
  from ..models.tileset_root import TilesetRoot





T = TypeVar("T", bound="Tileset")



@_attrs_define
class Tileset:
    """ A 3D Tiles 1.1 tileset.json

        Attributes:
            asset (TilesetAsset):
            geometric_error (float):
            root (TilesetRoot):
            properties (TilesetProperties | Unset):
     """

    asset: TilesetAsset
    geometric_error: float
    root: TilesetRoot
    properties: TilesetProperties | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.tileset_asset import TilesetAsset # noqa: PLC0415
        from ..models.tileset_properties import TilesetProperties # noqa: PLC0415
        from ..models.tileset_root import TilesetRoot # noqa: PLC0415
        asset = self.asset.to_dict()

        geometric_error = self.geometric_error

        root = self.root.to_dict()

        properties: dict[str, Any] | Unset = UNSET
        if not isinstance(self.properties, Unset):
            properties = self.properties.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "asset": asset,
            "geometricError": geometric_error,
            "root": root,
        })
        if properties is not UNSET:
            field_dict["properties"] = properties

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tileset_asset import TilesetAsset # noqa: PLC0415
        from ..models.tileset_properties import TilesetProperties # noqa: PLC0415
        from ..models.tileset_root import TilesetRoot # noqa: PLC0415
        d = dict(src_dict)
        asset = TilesetAsset.from_dict(d.pop("asset"))




        geometric_error = d.pop("geometricError")

        root = TilesetRoot.from_dict(d.pop("root"))




        _properties = d.pop("properties", UNSET)
        properties: TilesetProperties | Unset
        if isinstance(_properties,  Unset):
            properties = UNSET
        else:
            properties = TilesetProperties.from_dict(_properties)




        tileset = cls(
            asset=asset,
            geometric_error=geometric_error,
            root=root,
            properties=properties,
        )


        tileset.additional_properties = d
        return tileset

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
