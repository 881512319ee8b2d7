from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.stac_item_type import StacItemType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.geometry_collection import GeometryCollection
  from ..models.line_string import LineString
  from ..models.link import Link
  from ..models.multi_line_string import MultiLineString
  from ..models.multi_point import MultiPoint
  from ..models.multi_polygon import MultiPolygon
  from ..models.point import Point
  from ..models.polygon import Polygon
  from ..models.stac_item_assets import StacItemAssets
  from ..models.stac_item_properties import StacItemProperties





T = TypeVar("T", bound="StacItem")



@_attrs_define
class StacItem:
    """ A STAC Item (1.0): a GeoJSON Feature with `datetime` and assets

        Example:
            {'assets': {'B8': {'eo:bands': [{'common_name': 'nir', 'name': 'B8'}], 'href':
                'https://example.com/scene-1/B8.tif', 'type': 'image/tiff; application=geotiff; profile=cloud-optimized'}},
                'bbox': [151.1, -33.9, 151.3, -33.8], 'geometry': {'coordinates': [[[151.1, -33.9], [151.3, -33.9], [151.3,
                -33.8], [151.1, -33.8], [151.1, -33.9]]], 'type': 'Polygon'}, 'id': 'scene-1', 'links': [], 'properties':
                {'datetime': '2017-11-21T00:00:00Z'}, 'stac_version': '1.0.0', 'type': 'Feature'}

        Attributes:
            id (str):
            properties (StacItemProperties):
            type_ (StacItemType):
            assets (StacItemAssets | Unset):
            bbox (list[float] | Unset):
            collection (str | Unset):
            geometry (GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon
                | Unset):
            links (list[Link] | Unset):
            stac_extensions (list[str] | Unset):
            stac_version (str | Unset):
     """

    id: str
    properties: StacItemProperties
    type_: StacItemType
    assets: StacItemAssets | Unset = UNSET
    bbox: list[float] | Unset = UNSET
    collection: str | Unset = UNSET
    geometry: GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon | Unset = UNSET
    links: list[Link] | Unset = UNSET
    stac_extensions: list[str] | Unset = UNSET
    stac_version: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.geometry_collection import GeometryCollection # noqa: PLC0415
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.link import Link # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        from ..models.stac_item_assets import StacItemAssets # noqa: PLC0415
        from ..models.stac_item_properties import StacItemProperties # noqa: PLC0415
        id = self.id

        properties = self.properties.to_dict()

        type_ = self.type_.value

        assets: dict[str, Any] | Unset = UNSET
        if not isinstance(self.assets, Unset):
            assets = self.assets.to_dict()

        bbox: list[float] | Unset = UNSET
        if not isinstance(self.bbox, Unset):
            bbox = self.bbox



        collection = self.collection

        geometry: dict[str, Any] | None | Unset
        if isinstance(self.geometry, Unset):
            geometry = UNSET
        elif isinstance(self.geometry, Point):
            geometry = self.geometry.to_dict()
        elif isinstance(self.geometry, MultiPoint):
            geometry = self.geometry.to_dict()
        elif isinstance(self.geometry, LineString):
            geometry = self.geometry.to_dict()
        elif isinstance(self.geometry, MultiLineString):
            geometry = self.geometry.to_dict()
        elif isinstance(self.geometry, Polygon):
            geometry = self.geometry.to_dict()
        elif isinstance(self.geometry, MultiPolygon):
            geometry = self.geometry.to_dict()
        elif isinstance(self.geometry, GeometryCollection):
            geometry = self.geometry.to_dict()
        else:
            geometry = self.geometry

        links: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.links, Unset):
            links = []
            for links_item_data in self.links:
                links_item = links_item_data.to_dict()
                links.append(links_item)



        stac_extensions: list[str] | Unset = UNSET
        if not isinstance(self.stac_extensions, Unset):
            stac_extensions = self.stac_extensions



        stac_version = self.stac_version


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "properties": properties,
            "type": type_,
        })
        if assets is not UNSET:
            field_dict["assets"] = assets
        if bbox is not UNSET:
            field_dict["bbox"] = bbox
        if collection is not UNSET:
            field_dict["collection"] = collection
        if geometry is not UNSET:
            field_dict["geometry"] = geometry
        if links is not UNSET:
            field_dict["links"] = links
        if stac_extensions is not UNSET:
            field_dict["stac_extensions"] = stac_extensions
        if stac_version is not UNSET:
            field_dict["stac_version"] = stac_version

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.geometry_collection import GeometryCollection # noqa: PLC0415
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.link import Link # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        from ..models.stac_item_assets import StacItemAssets # noqa: PLC0415
        from ..models.stac_item_properties import StacItemProperties # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        properties = StacItemProperties.from_dict(d.pop("properties"))




        type_ = StacItemType(d.pop("type"))




        _assets = d.pop("assets", UNSET)
        assets: StacItemAssets | Unset
        if isinstance(_assets,  Unset):
            assets = UNSET
        else:
            assets = StacItemAssets.from_dict(_assets)




        bbox = cast(list[float], d.pop("bbox", UNSET))


        collection = d.pop("collection", UNSET)

        def _parse_geometry(data: object) -> GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_0 = Point.from_dict(data)



                return componentsschemas_geometry_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_1 = MultiPoint.from_dict(data)



                return componentsschemas_geometry_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_2 = LineString.from_dict(data)



                return componentsschemas_geometry_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_3 = MultiLineString.from_dict(data)



                return componentsschemas_geometry_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_4 = Polygon.from_dict(data)



                return componentsschemas_geometry_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_5 = MultiPolygon.from_dict(data)



                return componentsschemas_geometry_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_geometry_type_6 = GeometryCollection.from_dict(data)



                return componentsschemas_geometry_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon | Unset", data)

        geometry = _parse_geometry(d.pop("geometry", UNSET))


        _links = d.pop("links", UNSET)
        links: list[Link] | Unset = UNSET
        if _links is not UNSET:
            links = []
            for links_item_data in _links:
                links_item = Link.from_dict(links_item_data)



                links.append(links_item)


        stac_extensions = cast(list[str], d.pop("stac_extensions", UNSET))


        stac_version = d.pop("stac_version", UNSET)

        stac_item = cls(
            id=id,
            properties=properties,
            type_=type_,
            assets=assets,
            bbox=bbox,
            collection=collection,
            geometry=geometry,
            links=links,
            stac_extensions=stac_extensions,
            stac_version=stac_version,
        )


        stac_item.additional_properties = d
        return stac_item

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
