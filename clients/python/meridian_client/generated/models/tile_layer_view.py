from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="TileLayerView")



@_attrs_define
class TileLayerView:
    """ A tile layer of a job: a URL template (`{z}`, `{x}`, `{y}`; `{y}@2x.png` for 512-px tiles).

        Attributes:
            bounds (list[float]): Longitude/latitude bounds: min lon, min lat, max lon, max lat.
            maxzoom (int):
            minzoom (int):
            template (str):
            layer (None | str | Unset): An output layer (its operation) ...
            style (None | str | Unset): ... or a style rendered from the source DEM.
     """

    bounds: list[float]
    maxzoom: int
    minzoom: int
    template: str
    layer: None | str | Unset = UNSET
    style: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        bounds = self.bounds



        maxzoom = self.maxzoom

        minzoom = self.minzoom

        template = self.template

        layer: None | str | Unset
        if isinstance(self.layer, Unset):
            layer = UNSET
        else:
            layer = self.layer

        style: None | str | Unset
        if isinstance(self.style, Unset):
            style = UNSET
        else:
            style = self.style


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "bounds": bounds,
            "maxzoom": maxzoom,
            "minzoom": minzoom,
            "template": template,
        })
        if layer is not UNSET:
            field_dict["layer"] = layer
        if style is not UNSET:
            field_dict["style"] = style

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bounds = cast(list[float], d.pop("bounds"))


        maxzoom = d.pop("maxzoom")

        minzoom = d.pop("minzoom")

        template = d.pop("template")

        def _parse_layer(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        layer = _parse_layer(d.pop("layer", UNSET))


        def _parse_style(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        style = _parse_style(d.pop("style", UNSET))


        tile_layer_view = cls(
            bounds=bounds,
            maxzoom=maxzoom,
            minzoom=minzoom,
            template=template,
            layer=layer,
            style=style,
        )


        tile_layer_view.additional_properties = d
        return tile_layer_view

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
