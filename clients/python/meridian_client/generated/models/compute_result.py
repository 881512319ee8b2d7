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
  from ..models.band_statistics import BandStatistics
  from ..models.compute_output import ComputeOutput
  from ..models.compute_result_bands import ComputeResultBands
  from ..models.feature_collection import FeatureCollection





T = TypeVar("T", bound="ComputeResult")



@_attrs_define
class ComputeResult:
    """ 
        Attributes:
            id (str): `eoc_...`
            outputs (list[ComputeOutput]):
            bands (ComputeResultBands | Unset):
            bbox (list[float] | Unset):
            created_at (datetime.datetime | Unset):
            crs (str | Unset):
            expression (None | str | Unset):
            geo_transform (list[float] | Unset):
            height (int | Unset):
            index (str | Unset):
            nodata (float | None | Unset):
            scene (str | Unset):
            statistics (BandStatistics | Unset): Statistics of the valid pixels (null where there are none)
            tiles (str | Unset): XYZ tile URL template
            width (int | Unset):
            zones (FeatureCollection | None | Unset): Zonal statistics per feature, when zones were asked
     """

    id: str
    outputs: list[ComputeOutput]
    bands: ComputeResultBands | Unset = UNSET
    bbox: list[float] | Unset = UNSET
    created_at: datetime.datetime | Unset = UNSET
    crs: str | Unset = UNSET
    expression: None | str | Unset = UNSET
    geo_transform: list[float] | Unset = UNSET
    height: int | Unset = UNSET
    index: str | Unset = UNSET
    nodata: float | None | Unset = UNSET
    scene: str | Unset = UNSET
    statistics: BandStatistics | Unset = UNSET
    tiles: str | Unset = UNSET
    width: int | Unset = UNSET
    zones: FeatureCollection | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.band_statistics import BandStatistics # noqa: PLC0415
        from ..models.compute_output import ComputeOutput # noqa: PLC0415
        from ..models.compute_result_bands import ComputeResultBands # noqa: PLC0415
        from ..models.feature_collection import FeatureCollection # noqa: PLC0415
        id = self.id

        outputs = []
        for outputs_item_data in self.outputs:
            outputs_item = outputs_item_data.to_dict()
            outputs.append(outputs_item)



        bands: dict[str, Any] | Unset = UNSET
        if not isinstance(self.bands, Unset):
            bands = self.bands.to_dict()

        bbox: list[float] | Unset = UNSET
        if not isinstance(self.bbox, Unset):
            bbox = self.bbox



        created_at: str | Unset = UNSET
        if not isinstance(self.created_at, Unset):
            created_at = self.created_at.isoformat()

        crs = self.crs

        expression: None | str | Unset
        if isinstance(self.expression, Unset):
            expression = UNSET
        else:
            expression = self.expression

        geo_transform: list[float] | Unset = UNSET
        if not isinstance(self.geo_transform, Unset):
            geo_transform = self.geo_transform



        height = self.height

        index = self.index

        nodata: float | None | Unset
        if isinstance(self.nodata, Unset):
            nodata = UNSET
        else:
            nodata = self.nodata

        scene = self.scene

        statistics: dict[str, Any] | Unset = UNSET
        if not isinstance(self.statistics, Unset):
            statistics = self.statistics.to_dict()

        tiles = self.tiles

        width = self.width

        zones: dict[str, Any] | None | Unset
        if isinstance(self.zones, Unset):
            zones = UNSET
        elif isinstance(self.zones, FeatureCollection):
            zones = self.zones.to_dict()
        else:
            zones = self.zones


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "outputs": outputs,
        })
        if bands is not UNSET:
            field_dict["bands"] = bands
        if bbox is not UNSET:
            field_dict["bbox"] = bbox
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if crs is not UNSET:
            field_dict["crs"] = crs
        if expression is not UNSET:
            field_dict["expression"] = expression
        if geo_transform is not UNSET:
            field_dict["geo_transform"] = geo_transform
        if height is not UNSET:
            field_dict["height"] = height
        if index is not UNSET:
            field_dict["index"] = index
        if nodata is not UNSET:
            field_dict["nodata"] = nodata
        if scene is not UNSET:
            field_dict["scene"] = scene
        if statistics is not UNSET:
            field_dict["statistics"] = statistics
        if tiles is not UNSET:
            field_dict["tiles"] = tiles
        if width is not UNSET:
            field_dict["width"] = width
        if zones is not UNSET:
            field_dict["zones"] = zones

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.band_statistics import BandStatistics # noqa: PLC0415
        from ..models.compute_output import ComputeOutput # noqa: PLC0415
        from ..models.compute_result_bands import ComputeResultBands # noqa: PLC0415
        from ..models.feature_collection import FeatureCollection # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        outputs = []
        _outputs = d.pop("outputs")
        for outputs_item_data in (_outputs):
            outputs_item = ComputeOutput.from_dict(outputs_item_data)



            outputs.append(outputs_item)


        _bands = d.pop("bands", UNSET)
        bands: ComputeResultBands | Unset
        if isinstance(_bands,  Unset):
            bands = UNSET
        else:
            bands = ComputeResultBands.from_dict(_bands)




        bbox = cast(list[float], d.pop("bbox", UNSET))


        _created_at = d.pop("created_at", UNSET)
        created_at: datetime.datetime | Unset
        if isinstance(_created_at,  Unset):
            created_at = UNSET
        else:
            created_at = _isoparse(_created_at)




        crs = d.pop("crs", UNSET)

        def _parse_expression(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        expression = _parse_expression(d.pop("expression", UNSET))


        geo_transform = cast(list[float], d.pop("geo_transform", UNSET))


        height = d.pop("height", UNSET)

        index = d.pop("index", UNSET)

        def _parse_nodata(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        nodata = _parse_nodata(d.pop("nodata", UNSET))


        scene = d.pop("scene", UNSET)

        _statistics = d.pop("statistics", UNSET)
        statistics: BandStatistics | Unset
        if isinstance(_statistics,  Unset):
            statistics = UNSET
        else:
            statistics = BandStatistics.from_dict(_statistics)




        tiles = d.pop("tiles", UNSET)

        width = d.pop("width", UNSET)

        def _parse_zones(data: object) -> FeatureCollection | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                zones_type_0 = FeatureCollection.from_dict(data)



                return zones_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("FeatureCollection | None | Unset", data)

        zones = _parse_zones(d.pop("zones", UNSET))


        compute_result = cls(
            id=id,
            outputs=outputs,
            bands=bands,
            bbox=bbox,
            created_at=created_at,
            crs=crs,
            expression=expression,
            geo_transform=geo_transform,
            height=height,
            index=index,
            nodata=nodata,
            scene=scene,
            statistics=statistics,
            tiles=tiles,
            width=width,
            zones=zones,
        )


        compute_result.additional_properties = d
        return compute_result

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
