from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.create_twin_area_type_0 import CreateTwinAreaType0





T = TypeVar("T", bound="CreateTwin")



@_attrs_define
class CreateTwin:
    """ What a twin is made of.

        Example:
            {'bbox': [7.09, 45.91, 7.11, 45.93], 'collection': 'parcels', 'default_height': 9, 'filter': "tenure =
                'freehold'", 'height_property': 'height', 'name': 'Old town'}

        Attributes:
            area (CreateTwinAreaType0 | None | Unset): A GeoJSON Polygon or MultiPolygon (CRS84): only features meeting it
                are assets.
            bbox (list[float] | None | Unset): West, south, east, north in degrees (at most 2° a side). Required unless
                `area` is given.
            collection (None | str | Unset): The feature collection of the assets; `parcels` (the cadastre) by default.
            default_height (float | None | Unset): Height of a building without one, in metres (default 9).
            dem_dataset (None | str | Unset): A DEM dataset (`dataset_...`): terrain, and the ground each building stands
                on.
            filter_ (None | str | Unset): CQL2 text on the features' properties, e.g. `tenure = 'freehold'`.
            height_property (None | str | Unset): The property holding each building's height in metres.
            name (None | str | Unset): 1 to 200 characters.
     """

    area: CreateTwinAreaType0 | None | Unset = UNSET
    bbox: list[float] | None | Unset = UNSET
    collection: None | str | Unset = UNSET
    default_height: float | None | Unset = UNSET
    dem_dataset: None | str | Unset = UNSET
    filter_: None | str | Unset = UNSET
    height_property: None | str | Unset = UNSET
    name: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.create_twin_area_type_0 import CreateTwinAreaType0 # noqa: PLC0415
        area: dict[str, Any] | None | Unset
        if isinstance(self.area, Unset):
            area = UNSET
        elif isinstance(self.area, CreateTwinAreaType0):
            area = self.area.to_dict()
        else:
            area = self.area

        bbox: list[float] | None | Unset
        if isinstance(self.bbox, Unset):
            bbox = UNSET
        elif isinstance(self.bbox, list):
            bbox = self.bbox


        else:
            bbox = self.bbox

        collection: None | str | Unset
        if isinstance(self.collection, Unset):
            collection = UNSET
        else:
            collection = self.collection

        default_height: float | None | Unset
        if isinstance(self.default_height, Unset):
            default_height = UNSET
        else:
            default_height = self.default_height

        dem_dataset: None | str | Unset
        if isinstance(self.dem_dataset, Unset):
            dem_dataset = UNSET
        else:
            dem_dataset = self.dem_dataset

        filter_: None | str | Unset
        if isinstance(self.filter_, Unset):
            filter_ = UNSET
        else:
            filter_ = self.filter_

        height_property: None | str | Unset
        if isinstance(self.height_property, Unset):
            height_property = UNSET
        else:
            height_property = self.height_property

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if area is not UNSET:
            field_dict["area"] = area
        if bbox is not UNSET:
            field_dict["bbox"] = bbox
        if collection is not UNSET:
            field_dict["collection"] = collection
        if default_height is not UNSET:
            field_dict["default_height"] = default_height
        if dem_dataset is not UNSET:
            field_dict["dem_dataset"] = dem_dataset
        if filter_ is not UNSET:
            field_dict["filter"] = filter_
        if height_property is not UNSET:
            field_dict["height_property"] = height_property
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.create_twin_area_type_0 import CreateTwinAreaType0 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_area(data: object) -> CreateTwinAreaType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                area_type_0 = CreateTwinAreaType0.from_dict(data)



                return area_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("CreateTwinAreaType0 | None | Unset", data)

        area = _parse_area(d.pop("area", UNSET))


        def _parse_bbox(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                bbox_type_0 = cast(list[float], data)

                return bbox_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("list[float] | None | Unset", data)

        bbox = _parse_bbox(d.pop("bbox", UNSET))


        def _parse_collection(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        collection = _parse_collection(d.pop("collection", UNSET))


        def _parse_default_height(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        default_height = _parse_default_height(d.pop("default_height", UNSET))


        def _parse_dem_dataset(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        dem_dataset = _parse_dem_dataset(d.pop("dem_dataset", UNSET))


        def _parse_filter_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        filter_ = _parse_filter_(d.pop("filter", UNSET))


        def _parse_height_property(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        height_property = _parse_height_property(d.pop("height_property", UNSET))


        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        name = _parse_name(d.pop("name", UNSET))


        create_twin = cls(
            area=area,
            bbox=bbox,
            collection=collection,
            default_height=default_height,
            dem_dataset=dem_dataset,
            filter_=filter_,
            height_property=height_property,
            name=name,
        )

        return create_twin

