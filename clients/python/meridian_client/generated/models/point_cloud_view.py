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
  from ..models.point_cloud_view_attributes_type_0 import PointCloudViewAttributesType0
  from ..models.point_cloud_view_bounds_type_0 import PointCloudViewBoundsType0
  from ..models.point_cloud_view_classification_histogram_type_0 import PointCloudViewClassificationHistogramType0
  from ..models.point_cloud_view_classification_type_0 import PointCloudViewClassificationType0
  from ..models.point_cloud_view_crs_type_0 import PointCloudViewCrsType0
  from ..models.point_cloud_view_error_type_0 import PointCloudViewErrorType0
  from ..models.point_cloud_view_links import PointCloudViewLinks
  from ..models.point_cloud_view_returns_type_0 import PointCloudViewReturnsType0





T = TypeVar("T", bound="PointCloudView")



@_attrs_define
class PointCloudView:
    """ A point cloud as its owner sees it.

        Attributes:
            created_at (datetime.datetime):
            format_ (str): `las` or `laz`.
            id (str): `pc_...`
            links (PointCloudViewLinks): `self`, `download`, `classify`, `index_job` and, once classified, `classified`.
            size (int): Bytes as uploaded.
            status (str): `indexing`, `ready`, `classifying` or `failed`.
            updated_at (datetime.datetime):
            attributes (None | PointCloudViewAttributesType0 | Unset): Intensity range, GPS time span, colour, NIR, extra
                bytes, VLR counts.
            bounds (None | PointCloudViewBoundsType0 | Unset): `native`: min x, min y, min z, max x, max y, max z in the
                file's CRS; `wgs84`: min lon, min
                lat, max lon, max lat (when the CRS is known).
            classification (None | PointCloudViewClassificationType0 | Unset): The latest classification: its job, status,
                parameters, model, histogram, per-class
                counts, timings; null before the first.
            classification_histogram (None | PointCloudViewClassificationHistogramType0 | Unset): Points per ASPRS class
                code, as the file holds them.
            crs (None | PointCloudViewCrsType0 | Unset): `epsg`, `wkt` and `source` (`wkt`, `geotiff` or `override`); null
                when the file declares none.
            density (float | None | Unset): Points per square metre over the occupied area.
            error (None | PointCloudViewErrorType0 | Unset): Why indexing failed, as a problem document.
            filename (None | str | Unset): The file name sent with the upload.
            las_version (None | str | Unset): e.g. `1.4`.
            name (None | str | Unset):
            offset (list[float] | None | Unset): Offset of the stored integer coordinates, x, y, z.
            point_format (int | None | Unset): Point data record format, 0 to 10.
            points (int | None | Unset): Points in the file (once indexed).
            returns (None | PointCloudViewReturnsType0 | Unset): Points per return number and per number of returns, and
                single/first/intermediate/last counts.
            scale (list[float] | None | Unset): Scale of the stored integer coordinates, x, y, z.
     """

    created_at: datetime.datetime
    format_: str
    id: str
    links: PointCloudViewLinks
    size: int
    status: str
    updated_at: datetime.datetime
    attributes: None | PointCloudViewAttributesType0 | Unset = UNSET
    bounds: None | PointCloudViewBoundsType0 | Unset = UNSET
    classification: None | PointCloudViewClassificationType0 | Unset = UNSET
    classification_histogram: None | PointCloudViewClassificationHistogramType0 | Unset = UNSET
    crs: None | PointCloudViewCrsType0 | Unset = UNSET
    density: float | None | Unset = UNSET
    error: None | PointCloudViewErrorType0 | Unset = UNSET
    filename: None | str | Unset = UNSET
    las_version: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    offset: list[float] | None | Unset = UNSET
    point_format: int | None | Unset = UNSET
    points: int | None | Unset = UNSET
    returns: None | PointCloudViewReturnsType0 | Unset = UNSET
    scale: list[float] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.point_cloud_view_attributes_type_0 import PointCloudViewAttributesType0 # noqa: PLC0415
        from ..models.point_cloud_view_bounds_type_0 import PointCloudViewBoundsType0 # noqa: PLC0415
        from ..models.point_cloud_view_classification_histogram_type_0 import PointCloudViewClassificationHistogramType0 # noqa: PLC0415
        from ..models.point_cloud_view_classification_type_0 import PointCloudViewClassificationType0 # noqa: PLC0415
        from ..models.point_cloud_view_crs_type_0 import PointCloudViewCrsType0 # noqa: PLC0415
        from ..models.point_cloud_view_error_type_0 import PointCloudViewErrorType0 # noqa: PLC0415
        from ..models.point_cloud_view_links import PointCloudViewLinks # noqa: PLC0415
        from ..models.point_cloud_view_returns_type_0 import PointCloudViewReturnsType0 # noqa: PLC0415
        created_at = self.created_at.isoformat()

        format_ = self.format_

        id = self.id

        links = self.links.to_dict()

        size = self.size

        status = self.status

        updated_at = self.updated_at.isoformat()

        attributes: dict[str, Any] | None | Unset
        if isinstance(self.attributes, Unset):
            attributes = UNSET
        elif isinstance(self.attributes, PointCloudViewAttributesType0):
            attributes = self.attributes.to_dict()
        else:
            attributes = self.attributes

        bounds: dict[str, Any] | None | Unset
        if isinstance(self.bounds, Unset):
            bounds = UNSET
        elif isinstance(self.bounds, PointCloudViewBoundsType0):
            bounds = self.bounds.to_dict()
        else:
            bounds = self.bounds

        classification: dict[str, Any] | None | Unset
        if isinstance(self.classification, Unset):
            classification = UNSET
        elif isinstance(self.classification, PointCloudViewClassificationType0):
            classification = self.classification.to_dict()
        else:
            classification = self.classification

        classification_histogram: dict[str, Any] | None | Unset
        if isinstance(self.classification_histogram, Unset):
            classification_histogram = UNSET
        elif isinstance(self.classification_histogram, PointCloudViewClassificationHistogramType0):
            classification_histogram = self.classification_histogram.to_dict()
        else:
            classification_histogram = self.classification_histogram

        crs: dict[str, Any] | None | Unset
        if isinstance(self.crs, Unset):
            crs = UNSET
        elif isinstance(self.crs, PointCloudViewCrsType0):
            crs = self.crs.to_dict()
        else:
            crs = self.crs

        density: float | None | Unset
        if isinstance(self.density, Unset):
            density = UNSET
        else:
            density = self.density

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, PointCloudViewErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        filename: None | str | Unset
        if isinstance(self.filename, Unset):
            filename = UNSET
        else:
            filename = self.filename

        las_version: None | str | Unset
        if isinstance(self.las_version, Unset):
            las_version = UNSET
        else:
            las_version = self.las_version

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        offset: list[float] | None | Unset
        if isinstance(self.offset, Unset):
            offset = UNSET
        elif isinstance(self.offset, list):
            offset = self.offset


        else:
            offset = self.offset

        point_format: int | None | Unset
        if isinstance(self.point_format, Unset):
            point_format = UNSET
        else:
            point_format = self.point_format

        points: int | None | Unset
        if isinstance(self.points, Unset):
            points = UNSET
        else:
            points = self.points

        returns: dict[str, Any] | None | Unset
        if isinstance(self.returns, Unset):
            returns = UNSET
        elif isinstance(self.returns, PointCloudViewReturnsType0):
            returns = self.returns.to_dict()
        else:
            returns = self.returns

        scale: list[float] | None | Unset
        if isinstance(self.scale, Unset):
            scale = UNSET
        elif isinstance(self.scale, list):
            scale = self.scale


        else:
            scale = self.scale


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "format": format_,
            "id": id,
            "links": links,
            "size": size,
            "status": status,
            "updated_at": updated_at,
        })
        if attributes is not UNSET:
            field_dict["attributes"] = attributes
        if bounds is not UNSET:
            field_dict["bounds"] = bounds
        if classification is not UNSET:
            field_dict["classification"] = classification
        if classification_histogram is not UNSET:
            field_dict["classification_histogram"] = classification_histogram
        if crs is not UNSET:
            field_dict["crs"] = crs
        if density is not UNSET:
            field_dict["density"] = density
        if error is not UNSET:
            field_dict["error"] = error
        if filename is not UNSET:
            field_dict["filename"] = filename
        if las_version is not UNSET:
            field_dict["las_version"] = las_version
        if name is not UNSET:
            field_dict["name"] = name
        if offset is not UNSET:
            field_dict["offset"] = offset
        if point_format is not UNSET:
            field_dict["point_format"] = point_format
        if points is not UNSET:
            field_dict["points"] = points
        if returns is not UNSET:
            field_dict["returns"] = returns
        if scale is not UNSET:
            field_dict["scale"] = scale

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.point_cloud_view_attributes_type_0 import PointCloudViewAttributesType0 # noqa: PLC0415
        from ..models.point_cloud_view_bounds_type_0 import PointCloudViewBoundsType0 # noqa: PLC0415
        from ..models.point_cloud_view_classification_histogram_type_0 import PointCloudViewClassificationHistogramType0 # noqa: PLC0415
        from ..models.point_cloud_view_classification_type_0 import PointCloudViewClassificationType0 # noqa: PLC0415
        from ..models.point_cloud_view_crs_type_0 import PointCloudViewCrsType0 # noqa: PLC0415
        from ..models.point_cloud_view_error_type_0 import PointCloudViewErrorType0 # noqa: PLC0415
        from ..models.point_cloud_view_links import PointCloudViewLinks # noqa: PLC0415
        from ..models.point_cloud_view_returns_type_0 import PointCloudViewReturnsType0 # noqa: PLC0415
        d = dict(src_dict)
        created_at = _isoparse(d.pop("created_at"))




        format_ = d.pop("format")

        id = d.pop("id")

        links = PointCloudViewLinks.from_dict(d.pop("links"))




        size = d.pop("size")

        status = d.pop("status")

        updated_at = _isoparse(d.pop("updated_at"))




        def _parse_attributes(data: object) -> None | PointCloudViewAttributesType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                attributes_type_0 = PointCloudViewAttributesType0.from_dict(data)



                return attributes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | PointCloudViewAttributesType0 | Unset", data)

        attributes = _parse_attributes(d.pop("attributes", UNSET))


        def _parse_bounds(data: object) -> None | PointCloudViewBoundsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                bounds_type_0 = PointCloudViewBoundsType0.from_dict(data)



                return bounds_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | PointCloudViewBoundsType0 | Unset", data)

        bounds = _parse_bounds(d.pop("bounds", UNSET))


        def _parse_classification(data: object) -> None | PointCloudViewClassificationType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                classification_type_0 = PointCloudViewClassificationType0.from_dict(data)



                return classification_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | PointCloudViewClassificationType0 | Unset", data)

        classification = _parse_classification(d.pop("classification", UNSET))


        def _parse_classification_histogram(data: object) -> None | PointCloudViewClassificationHistogramType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                classification_histogram_type_0 = PointCloudViewClassificationHistogramType0.from_dict(data)



                return classification_histogram_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | PointCloudViewClassificationHistogramType0 | Unset", data)

        classification_histogram = _parse_classification_histogram(d.pop("classification_histogram", UNSET))


        def _parse_crs(data: object) -> None | PointCloudViewCrsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                crs_type_0 = PointCloudViewCrsType0.from_dict(data)



                return crs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | PointCloudViewCrsType0 | Unset", data)

        crs = _parse_crs(d.pop("crs", UNSET))


        def _parse_density(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("float | None | Unset", data)

        density = _parse_density(d.pop("density", UNSET))


        def _parse_error(data: object) -> None | PointCloudViewErrorType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = PointCloudViewErrorType0.from_dict(data)



                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | PointCloudViewErrorType0 | Unset", data)

        error = _parse_error(d.pop("error", UNSET))


        def _parse_filename(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        filename = _parse_filename(d.pop("filename", UNSET))


        def _parse_las_version(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        las_version = _parse_las_version(d.pop("las_version", UNSET))


        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_offset(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                offset_type_0 = cast(list[float], data)

                return offset_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("list[float] | None | Unset", data)

        offset = _parse_offset(d.pop("offset", UNSET))


        def _parse_point_format(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("int | None | Unset", data)

        point_format = _parse_point_format(d.pop("point_format", UNSET))


        def _parse_points(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("int | None | Unset", data)

        points = _parse_points(d.pop("points", UNSET))


        def _parse_returns(data: object) -> None | PointCloudViewReturnsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                returns_type_0 = PointCloudViewReturnsType0.from_dict(data)



                return returns_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | PointCloudViewReturnsType0 | Unset", data)

        returns = _parse_returns(d.pop("returns", UNSET))


        def _parse_scale(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                scale_type_0 = cast(list[float], data)

                return scale_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("list[float] | None | Unset", data)

        scale = _parse_scale(d.pop("scale", UNSET))


        point_cloud_view = cls(
            created_at=created_at,
            format_=format_,
            id=id,
            links=links,
            size=size,
            status=status,
            updated_at=updated_at,
            attributes=attributes,
            bounds=bounds,
            classification=classification,
            classification_histogram=classification_histogram,
            crs=crs,
            density=density,
            error=error,
            filename=filename,
            las_version=las_version,
            name=name,
            offset=offset,
            point_format=point_format,
            points=points,
            returns=returns,
            scale=scale,
        )


        point_cloud_view.additional_properties = d
        return point_cloud_view

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
