from __future__ import annotations
from dateutil.parser import isoparse as _isoparse

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.twin_created_job import TwinCreatedJob
  from ..models.twin_view_area_type_0 import TwinViewAreaType0
  from ..models.twin_view_clock import TwinViewClock
  from ..models.twin_view_error_type_0 import TwinViewErrorType0
  from ..models.twin_view_links import TwinViewLinks
  from ..models.twin_view_tileset_type_0 import TwinViewTilesetType0





T = TypeVar("T", bound="TwinCreated")



@_attrs_define
class TwinCreated:
    """ The 202 of a created twin.

        Attributes:
            bbox (list[float]): West, south, east, north (degrees).
            clock (TwinViewClock): The simulation clock: `time`, `mode` (`live` or `simulated`), `rate`, `playing`,
                `set_at`.
            collection (str): The feature collection of its assets.
            created_at (datetime.datetime):
            default_height (float):
            id (str): `twin_...`
            links (TwinViewLinks): `self`, `tileset`, `time`, `sensors`, `readings`, `features`, `websocket`, `build_job`.
            name (str):
            status (str): `building` (its first tileset), `ready` or `failed`.
            updated_at (datetime.datetime):
            job (TwinCreatedJob): The job building its first tileset: `/api/v1/jobs/{id}`.
            area (None | TwinViewAreaType0 | Unset): The polygon given as the area, if any (GeoJSON).
            dem_dataset (None | str | Unset): The DEM dataset giving terrain and ground heights.
            error (None | TwinViewErrorType0 | Unset): Why the first build failed, as a problem document.
            filter_ (None | str | Unset): The CQL2 text filter on the features.
            height_property (None | str | Unset):
            tileset (None | TwinViewTilesetType0 | Unset): The latest build: `stamp` (the tileset's version), `as_of`,
                `features`, `footprints`,
                `tiles`, `triangles`, `bytes`, `skipped`, `terrain`, `built_at`.
     """

    bbox: list[float]
    clock: TwinViewClock
    collection: str
    created_at: datetime.datetime
    default_height: float
    id: str
    links: TwinViewLinks
    name: str
    status: str
    updated_at: datetime.datetime
    job: TwinCreatedJob
    area: None | TwinViewAreaType0 | Unset = UNSET
    dem_dataset: None | str | Unset = UNSET
    error: None | TwinViewErrorType0 | Unset = UNSET
    filter_: None | str | Unset = UNSET
    height_property: None | str | Unset = UNSET
    tileset: None | TwinViewTilesetType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.twin_created_job import TwinCreatedJob # noqa: PLC0415
        from ..models.twin_view_area_type_0 import TwinViewAreaType0 # noqa: PLC0415
        from ..models.twin_view_clock import TwinViewClock # noqa: PLC0415
        from ..models.twin_view_error_type_0 import TwinViewErrorType0 # noqa: PLC0415
        from ..models.twin_view_links import TwinViewLinks # noqa: PLC0415
        from ..models.twin_view_tileset_type_0 import TwinViewTilesetType0 # noqa: PLC0415
        bbox = self.bbox



        clock = self.clock.to_dict()

        collection = self.collection

        created_at = self.created_at.isoformat()

        default_height = self.default_height

        id = self.id

        links = self.links.to_dict()

        name = self.name

        status = self.status

        updated_at = self.updated_at.isoformat()

        job = self.job.to_dict()

        area: dict[str, Any] | None | Unset
        if isinstance(self.area, Unset):
            area = UNSET
        elif isinstance(self.area, TwinViewAreaType0):
            area = self.area.to_dict()
        else:
            area = self.area

        dem_dataset: None | str | Unset
        if isinstance(self.dem_dataset, Unset):
            dem_dataset = UNSET
        else:
            dem_dataset = self.dem_dataset

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, TwinViewErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

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

        tileset: dict[str, Any] | None | Unset
        if isinstance(self.tileset, Unset):
            tileset = UNSET
        elif isinstance(self.tileset, TwinViewTilesetType0):
            tileset = self.tileset.to_dict()
        else:
            tileset = self.tileset


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "bbox": bbox,
            "clock": clock,
            "collection": collection,
            "created_at": created_at,
            "default_height": default_height,
            "id": id,
            "links": links,
            "name": name,
            "status": status,
            "updated_at": updated_at,
            "job": job,
        })
        if area is not UNSET:
            field_dict["area"] = area
        if dem_dataset is not UNSET:
            field_dict["dem_dataset"] = dem_dataset
        if error is not UNSET:
            field_dict["error"] = error
        if filter_ is not UNSET:
            field_dict["filter"] = filter_
        if height_property is not UNSET:
            field_dict["height_property"] = height_property
        if tileset is not UNSET:
            field_dict["tileset"] = tileset

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.twin_created_job import TwinCreatedJob # noqa: PLC0415
        from ..models.twin_view_area_type_0 import TwinViewAreaType0 # noqa: PLC0415
        from ..models.twin_view_clock import TwinViewClock # noqa: PLC0415
        from ..models.twin_view_error_type_0 import TwinViewErrorType0 # noqa: PLC0415
        from ..models.twin_view_links import TwinViewLinks # noqa: PLC0415
        from ..models.twin_view_tileset_type_0 import TwinViewTilesetType0 # noqa: PLC0415
        d = dict(src_dict)
        bbox = cast(list[float], d.pop("bbox"))


        clock = TwinViewClock.from_dict(d.pop("clock"))




        collection = d.pop("collection")

        created_at = _isoparse(d.pop("created_at"))




        default_height = d.pop("default_height")

        id = d.pop("id")

        links = TwinViewLinks.from_dict(d.pop("links"))




        name = d.pop("name")

        status = d.pop("status")

        updated_at = _isoparse(d.pop("updated_at"))




        job = TwinCreatedJob.from_dict(d.pop("job"))




        def _parse_area(data: object) -> None | TwinViewAreaType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                area_type_0 = TwinViewAreaType0.from_dict(data)



                return area_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | TwinViewAreaType0 | Unset", data)

        area = _parse_area(d.pop("area", UNSET))


        def _parse_dem_dataset(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        dem_dataset = _parse_dem_dataset(d.pop("dem_dataset", UNSET))


        def _parse_error(data: object) -> None | TwinViewErrorType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = TwinViewErrorType0.from_dict(data)



                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | TwinViewErrorType0 | Unset", data)

        error = _parse_error(d.pop("error", UNSET))


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


        def _parse_tileset(data: object) -> None | TwinViewTilesetType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tileset_type_0 = TwinViewTilesetType0.from_dict(data)



                return tileset_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | TwinViewTilesetType0 | Unset", data)

        tileset = _parse_tileset(d.pop("tileset", UNSET))


        twin_created = cls(
            bbox=bbox,
            clock=clock,
            collection=collection,
            created_at=created_at,
            default_height=default_height,
            id=id,
            links=links,
            name=name,
            status=status,
            updated_at=updated_at,
            job=job,
            area=area,
            dem_dataset=dem_dataset,
            error=error,
            filter_=filter_,
            height_property=height_property,
            tileset=tileset,
        )


        twin_created.additional_properties = d
        return twin_created

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
