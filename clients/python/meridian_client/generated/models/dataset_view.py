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






T = TypeVar("T", bound="DatasetView")



@_attrs_define
class DatasetView:
    """ An uploaded DEM.

        Attributes:
            bands (int):
            created_at (datetime.datetime):
            data_type (str): Sample type, e.g. `Float32`.
            geo_transform (list[float]): GDAL-order geotransform.
            height (int):
            id (str): `dataset_...`
            size (int): Bytes.
            width (int):
            bounds (list[float] | None | Unset): Longitude/latitude bounds: min lon, min lat, max lon, max lat.
            epsg (int | None | Unset): EPSG code of the CRS.
            filename (None | str | Unset): The file name sent with the upload.
            nodata (float | None | Unset):
     """

    bands: int
    created_at: datetime.datetime
    data_type: str
    geo_transform: list[float]
    height: int
    id: str
    size: int
    width: int
    bounds: list[float] | None | Unset = UNSET
    epsg: int | None | Unset = UNSET
    filename: None | str | Unset = UNSET
    nodata: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        bands = self.bands

        created_at = self.created_at.isoformat()

        data_type = self.data_type

        geo_transform = self.geo_transform



        height = self.height

        id = self.id

        size = self.size

        width = self.width

        bounds: list[float] | None | Unset
        if isinstance(self.bounds, Unset):
            bounds = UNSET
        elif isinstance(self.bounds, list):
            bounds = self.bounds


        else:
            bounds = self.bounds

        epsg: int | None | Unset
        if isinstance(self.epsg, Unset):
            epsg = UNSET
        else:
            epsg = self.epsg

        filename: None | str | Unset
        if isinstance(self.filename, Unset):
            filename = UNSET
        else:
            filename = self.filename

        nodata: float | None | Unset
        if isinstance(self.nodata, Unset):
            nodata = UNSET
        else:
            nodata = self.nodata


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "bands": bands,
            "created_at": created_at,
            "data_type": data_type,
            "geo_transform": geo_transform,
            "height": height,
            "id": id,
            "size": size,
            "width": width,
        })
        if bounds is not UNSET:
            field_dict["bounds"] = bounds
        if epsg is not UNSET:
            field_dict["epsg"] = epsg
        if filename is not UNSET:
            field_dict["filename"] = filename
        if nodata is not UNSET:
            field_dict["nodata"] = nodata

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bands = d.pop("bands")

        created_at = _isoparse(d.pop("created_at"))




        data_type = d.pop("data_type")

        geo_transform = cast(list[float], d.pop("geo_transform"))


        height = d.pop("height")

        id = d.pop("id")

        size = d.pop("size")

        width = d.pop("width")

        def _parse_bounds(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                bounds_type_0 = cast(list[float], data)

                return bounds_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("list[float] | None | Unset", data)

        bounds = _parse_bounds(d.pop("bounds", UNSET))


        def _parse_epsg(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("int | None | Unset", data)

        epsg = _parse_epsg(d.pop("epsg", UNSET))


        def _parse_filename(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        filename = _parse_filename(d.pop("filename", UNSET))


        def _parse_nodata(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        nodata = _parse_nodata(d.pop("nodata", UNSET))


        dataset_view = cls(
            bands=bands,
            created_at=created_at,
            data_type=data_type,
            geo_transform=geo_transform,
            height=height,
            id=id,
            size=size,
            width=width,
            bounds=bounds,
            epsg=epsg,
            filename=filename,
            nodata=nodata,
        )


        dataset_view.additional_properties = d
        return dataset_view

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
