from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.stac_search_filter_lang_type_1 import StacSearchFilterLangType1
from ..models.stac_search_filter_lang_type_2_type_1 import StacSearchFilterLangType2Type1
from ..models.stac_search_filter_lang_type_3_type_1 import StacSearchFilterLangType3Type1
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.geometry_collection import GeometryCollection
  from ..models.line_string import LineString
  from ..models.multi_line_string import MultiLineString
  from ..models.multi_point import MultiPoint
  from ..models.multi_polygon import MultiPolygon
  from ..models.point import Point
  from ..models.polygon import Polygon
  from ..models.stac_search_fields_type_0 import StacSearchFieldsType0
  from ..models.stac_search_sortby_type_0_item import StacSearchSortbyType0Item





T = TypeVar("T", bound="StacSearch")



@_attrs_define
class StacSearch:
    """ STAC Item Search

        Example:
            {'bbox': [151.0, -34.0, 151.5, -33.5], 'collections': ['cbers4'], 'datetime': '2017-01-01T00:00:00Z/..',
                'limit': 10}

        Attributes:
            bbox (list[float] | None | Unset):
            collections (list[str] | None | str | Unset): Collection ids: an array, or one string as a comma-separated list
                (as in GET)
            datetime_ (None | str | Unset): An instant or an interval `start/end` (`..` open)
            fields (None | StacSearchFieldsType0 | Unset):
            filter_ (Any | Unset): CQL2 JSON (an object), or CQL2 text with `filter-lang`
            filter_lang (None | StacSearchFilterLangType1 | StacSearchFilterLangType2Type1 | StacSearchFilterLangType3Type1
                | Unset):
            ids (list[str] | None | str | Unset): Item ids: an array, or one string as a comma-separated list (as in GET)
            intersects (GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point |
                Polygon | Unset):
            limit (int | None | Unset): Page size (default 10; above `eo.max_limit` the page holds `eo.max_limit` items, as
                OGC API Features prescribes)
            sortby (list[StacSearchSortbyType0Item] | None | str | Unset): Sort keys: `[{"field": ..., "direction": "asc" |
                "desc"}]`, or the text form `-datetime,id`
            token (None | str | Unset): The token of a `next` link
     """

    bbox: list[float] | None | Unset = UNSET
    collections: list[str] | None | str | Unset = UNSET
    datetime_: None | str | Unset = UNSET
    fields: None | StacSearchFieldsType0 | Unset = UNSET
    filter_: Any | Unset = UNSET
    filter_lang: None | StacSearchFilterLangType1 | StacSearchFilterLangType2Type1 | StacSearchFilterLangType3Type1 | Unset = UNSET
    ids: list[str] | None | str | Unset = UNSET
    intersects: GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon | Unset = UNSET
    limit: int | None | Unset = UNSET
    sortby: list[StacSearchSortbyType0Item] | None | str | Unset = UNSET
    token: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.geometry_collection import GeometryCollection # noqa: PLC0415
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        from ..models.stac_search_fields_type_0 import StacSearchFieldsType0 # noqa: PLC0415
        from ..models.stac_search_sortby_type_0_item import StacSearchSortbyType0Item # noqa: PLC0415
        bbox: list[float] | None | Unset
        if isinstance(self.bbox, Unset):
            bbox = UNSET
        elif isinstance(self.bbox, list):
            bbox = self.bbox


        else:
            bbox = self.bbox

        collections: list[str] | None | str | Unset
        if isinstance(self.collections, Unset):
            collections = UNSET
        elif isinstance(self.collections, list):
            collections = self.collections


        else:
            collections = self.collections

        datetime_: None | str | Unset
        if isinstance(self.datetime_, Unset):
            datetime_ = UNSET
        else:
            datetime_ = self.datetime_

        fields: dict[str, Any] | None | Unset
        if isinstance(self.fields, Unset):
            fields = UNSET
        elif isinstance(self.fields, StacSearchFieldsType0):
            fields = self.fields.to_dict()
        else:
            fields = self.fields

        filter_ = self.filter_

        filter_lang: None | str | Unset
        if isinstance(self.filter_lang, Unset):
            filter_lang = UNSET
        elif isinstance(self.filter_lang, StacSearchFilterLangType1):
            filter_lang = self.filter_lang.value
        elif isinstance(self.filter_lang, StacSearchFilterLangType2Type1):
            filter_lang = self.filter_lang.value
        elif isinstance(self.filter_lang, StacSearchFilterLangType3Type1):
            filter_lang = self.filter_lang.value
        else:
            filter_lang = self.filter_lang

        ids: list[str] | None | str | Unset
        if isinstance(self.ids, Unset):
            ids = UNSET
        elif isinstance(self.ids, list):
            ids = self.ids


        else:
            ids = self.ids

        intersects: dict[str, Any] | None | Unset
        if isinstance(self.intersects, Unset):
            intersects = UNSET
        elif isinstance(self.intersects, Point):
            intersects = self.intersects.to_dict()
        elif isinstance(self.intersects, MultiPoint):
            intersects = self.intersects.to_dict()
        elif isinstance(self.intersects, LineString):
            intersects = self.intersects.to_dict()
        elif isinstance(self.intersects, MultiLineString):
            intersects = self.intersects.to_dict()
        elif isinstance(self.intersects, Polygon):
            intersects = self.intersects.to_dict()
        elif isinstance(self.intersects, MultiPolygon):
            intersects = self.intersects.to_dict()
        elif isinstance(self.intersects, GeometryCollection):
            intersects = self.intersects.to_dict()
        else:
            intersects = self.intersects

        limit: int | None | Unset
        if isinstance(self.limit, Unset):
            limit = UNSET
        else:
            limit = self.limit

        sortby: list[dict[str, Any]] | None | str | Unset
        if isinstance(self.sortby, Unset):
            sortby = UNSET
        elif isinstance(self.sortby, list):
            sortby = []
            for sortby_type_0_item_data in self.sortby:
                sortby_type_0_item = sortby_type_0_item_data.to_dict()
                sortby.append(sortby_type_0_item)


        else:
            sortby = self.sortby

        token: None | str | Unset
        if isinstance(self.token, Unset):
            token = UNSET
        else:
            token = self.token


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if bbox is not UNSET:
            field_dict["bbox"] = bbox
        if collections is not UNSET:
            field_dict["collections"] = collections
        if datetime_ is not UNSET:
            field_dict["datetime"] = datetime_
        if fields is not UNSET:
            field_dict["fields"] = fields
        if filter_ is not UNSET:
            field_dict["filter"] = filter_
        if filter_lang is not UNSET:
            field_dict["filter-lang"] = filter_lang
        if ids is not UNSET:
            field_dict["ids"] = ids
        if intersects is not UNSET:
            field_dict["intersects"] = intersects
        if limit is not UNSET:
            field_dict["limit"] = limit
        if sortby is not UNSET:
            field_dict["sortby"] = sortby
        if token is not UNSET:
            field_dict["token"] = token

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.geometry_collection import GeometryCollection # noqa: PLC0415
        from ..models.line_string import LineString # noqa: PLC0415
        from ..models.multi_line_string import MultiLineString # noqa: PLC0415
        from ..models.multi_point import MultiPoint # noqa: PLC0415
        from ..models.multi_polygon import MultiPolygon # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        from ..models.polygon import Polygon # noqa: PLC0415
        from ..models.stac_search_fields_type_0 import StacSearchFieldsType0 # noqa: PLC0415
        from ..models.stac_search_sortby_type_0_item import StacSearchSortbyType0Item # noqa: PLC0415
        d = dict(src_dict)
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


        def _parse_collections(data: object) -> list[str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                collections_type_0 = cast(list[str], data)

                return collections_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("list[str] | None | str | Unset", data)

        collections = _parse_collections(d.pop("collections", UNSET))


        def _parse_datetime_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        datetime_ = _parse_datetime_(d.pop("datetime", UNSET))


        def _parse_fields(data: object) -> None | StacSearchFieldsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                fields_type_0 = StacSearchFieldsType0.from_dict(data)



                return fields_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | StacSearchFieldsType0 | Unset", data)

        fields = _parse_fields(d.pop("fields", UNSET))


        filter_ = d.pop("filter", UNSET)

        def _parse_filter_lang(data: object) -> None | StacSearchFilterLangType1 | StacSearchFilterLangType2Type1 | StacSearchFilterLangType3Type1 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                filter_lang_type_1 = StacSearchFilterLangType1(data)



                return filter_lang_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                filter_lang_type_2_type_1 = StacSearchFilterLangType2Type1(data)



                return filter_lang_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                filter_lang_type_3_type_1 = StacSearchFilterLangType3Type1(data)



                return filter_lang_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("None | StacSearchFilterLangType1 | StacSearchFilterLangType2Type1 | StacSearchFilterLangType3Type1 | Unset", data)

        filter_lang = _parse_filter_lang(d.pop("filter-lang", UNSET))


        def _parse_ids(data: object) -> list[str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                ids_type_0 = cast(list[str], data)

                return ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("list[str] | None | str | Unset", data)

        ids = _parse_ids(d.pop("ids", UNSET))


        def _parse_intersects(data: object) -> GeometryCollection | LineString | MultiLineString | MultiPoint | MultiPolygon | None | Point | Polygon | Unset:
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

        intersects = _parse_intersects(d.pop("intersects", UNSET))


        def _parse_limit(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("int | None | Unset", data)

        limit = _parse_limit(d.pop("limit", UNSET))


        def _parse_sortby(data: object) -> list[StacSearchSortbyType0Item] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                sortby_type_0 = []
                _sortby_type_0 = data
                for sortby_type_0_item_data in (_sortby_type_0):
                    sortby_type_0_item = StacSearchSortbyType0Item.from_dict(sortby_type_0_item_data)



                    sortby_type_0.append(sortby_type_0_item)

                return sortby_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast("list[StacSearchSortbyType0Item] | None | str | Unset", data)

        sortby = _parse_sortby(d.pop("sortby", UNSET))


        def _parse_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast("None | str | Unset", data)

        token = _parse_token(d.pop("token", UNSET))


        stac_search = cls(
            bbox=bbox,
            collections=collections,
            datetime_=datetime_,
            fields=fields,
            filter_=filter_,
            filter_lang=filter_lang,
            ids=ids,
            intersects=intersects,
            limit=limit,
            sortby=sortby,
            token=token,
        )


        stac_search.additional_properties = d
        return stac_search

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
