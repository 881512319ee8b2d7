//! The OpenAPI schemas of the JSON documents the routes build as `serde_json::Value` (GeoJSON,
//! STAC, OGC API documents, results), written as JSON Schema, and the finishing pass that puts
//! them into the document.
//!
//! A route names such a body with one of the marker types below (`body = schemas::Parcel`):
//! utoipa references it as `#/components/schemas/Parcel` and registers a placeholder, which
//! [`complete`] replaces with the definition from [`definitions`]. Definitions may reference
//! each other and the schemas derived from Rust types. They describe what the server answers:
//! members that are always present are `required`, members a server may add later are allowed
//! (`additionalProperties` is left open, as GeoJSON, STAC and OGC API allow foreign members).

use serde_json::{json, Map, Value};

macro_rules! markers {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        $(
            $(#[$doc])*
            pub struct $name;
            impl utoipa::PartialSchema for $name {
                fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                    utoipa::openapi::schema::ObjectBuilder::new().build().into()
                }
            }
            impl utoipa::ToSchema for $name {}
        )*
        /// The names of the marker types, each of which must have a definition.
        pub const MARKERS: &[&str] = &[$(stringify!($name)),*];
    };
}

markers!(
    /// Links to every area's API and the docs.
    LandingPage,
    /// OGC API conformance classes.
    Conformance,
    /// A JSON Schema of queryable properties (OGC API Features Part 3).
    Queryables,
    /// An OpenAPI document.
    OpenApiDocument,
    /// A cadastral parcel as a GeoJSON Feature.
    Parcel,
    /// A page of parcels.
    ParcelCollection,
    /// A parcel to register: one Feature, or a FeatureCollection registered all or nothing.
    ParcelInput,
    /// A parcel to register or replace.
    ParcelDraft,
    /// The ids of a FeatureCollection's parcels, registered together.
    ParcelsRegistered,
    /// A JSON merge patch of a parcel.
    ParcelPatch,
    /// Every version of a parcel.
    ParcelHistory,
    /// A GeoJSON Feature of any collection.
    Feature,
    /// A GeoJSON FeatureCollection.
    FeatureCollection,
    /// A JSON merge patch of a feature.
    FeaturePatch,
    /// OGC API Features landing page.
    OgcLandingPage,
    /// The feature collections of the account.
    OgcCollections,
    /// One feature collection's description.
    OgcCollection,
    /// STAC API landing page.
    StacCatalog,
    /// STAC Collections.
    StacCollections,
    /// A STAC Collection.
    StacCollection,
    /// A STAC Item.
    StacItem,
    /// A STAC ItemCollection (a page of items).
    StacItemCollection,
    /// STAC Items to publish: one Item or a FeatureCollection of Items.
    StacItemInput,
    /// The ids of the items a FeatureCollection published.
    StacItemsAdded,
    /// A JSON merge patch of a STAC Item.
    StacItemPatch,
    /// The multipart upload of a scene.
    StacItemUpload,
    /// STAC Item Search (POST body).
    StacSearch,
    /// A job accepted to run later.
    JobAccepted,
    /// A band-math computation to run.
    ComputeRequest,
    /// A band-math computation's result.
    ComputeResult,
    /// A webhook event's payload.
    EventPayload,
    /// A file or tileset still being prepared.
    Pending,
    /// A twin's sensor with its latest reading.
    Sensor,
    /// A twin's sensors.
    SensorList,
    /// Readings stored.
    ReadingsAccepted,
    /// A sensor's readings or their buckets.
    Readings,
    /// A twin's simulation clock.
    Clock,
    /// A twin asset as of an instant.
    TwinAsset,
    /// A 3D Tiles 1.1 tileset.
    Tileset,
);

/// Every definition, by schema name.
pub fn definitions() -> Map<String, Value> {
    let mut defs = Map::new();
    let mut add = |name: &str, schema: Value| {
        defs.insert(name.to_owned(), schema);
    };
    let r = |name: &str| json!({"$ref": format!("#/components/schemas/{name}")});

    // Shared documents.
    add(
        "Link",
        json!({
            "type": "object",
            "description": "A link (RFC 8288 as OGC API and STAC write it)",
            "required": ["href", "rel"],
            "properties": {
                "href": {"type": "string", "description": "Absolute URL or a path on this server"},
                "rel": {"type": "string", "examples": ["self", "next", "prev", "collection"]},
                "type": {"type": "string", "description": "Media type of the target"},
                "title": {"type": "string"},
                "method": {"type": "string", "enum": ["GET", "POST"], "description": "STAC search links: the method to follow with"},
                "body": {"type": "object", "description": "STAC POST search links: the body to send", "additionalProperties": true},
                "merge": {"type": "boolean"}
            }
        }),
    );
    add(
        "LandingPage",
        json!({
            "type": "object",
            "required": ["title", "links"],
            "properties": {
                "title": {"type": "string"},
                "description": {"type": "string"},
                "links": {"type": "array", "items": r("Link")}
            }
        }),
    );
    add(
        "Conformance",
        json!({
            "type": "object",
            "required": ["conformsTo"],
            "properties": {"conformsTo": {"type": "array", "items": {"type": "string", "format": "uri"}}}
        }),
    );
    add(
        "Queryables",
        json!({
            "type": "object",
            "description": "A JSON Schema (draft 2020-12) of the properties a filter or sort may name",
            "required": ["type", "properties"],
            "properties": {
                "$schema": {"type": "string"},
                "$id": {"type": "string"},
                "type": {"type": "string", "const": "object"},
                "title": {"type": "string"},
                "properties": {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": true}},
                "additionalProperties": {"type": "boolean"}
            }
        }),
    );
    add(
        "OpenApiDocument",
        json!({
            "type": "object",
            "required": ["openapi", "info", "paths"],
            "properties": {
                "openapi": {"type": "string"},
                "info": {"type": "object", "additionalProperties": true},
                "paths": {"type": "object", "additionalProperties": true}
            }
        }),
    );

    // GeoJSON (RFC 7946).
    let position = json!({"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 3});
    let bbox = json!({"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 6});
    add("Position", position);
    add("BBox", bbox);
    let positions = |depth: usize| {
        let mut s = r("Position");
        for _ in 0..depth {
            s = json!({"type": "array", "items": s});
        }
        s
    };
    for (name, depth) in [
        ("Point", 0),
        ("MultiPoint", 1),
        ("LineString", 1),
        ("MultiLineString", 2),
        ("Polygon", 2),
        ("MultiPolygon", 3),
    ] {
        add(
            name,
            json!({
                "type": "object",
                "required": ["type", "coordinates"],
                "properties": {"type": {"type": "string", "enum": [name]}, "coordinates": positions(depth), "bbox": r("BBox")}
            }),
        );
    }
    add(
        "GeometryCollection",
        json!({
            "type": "object",
            "required": ["type", "geometries"],
            "properties": {
                "type": {"type": "string", "enum": ["GeometryCollection"]},
                "geometries": {"type": "array", "items": r("Geometry")},
                "bbox": r("BBox")
            }
        }),
    );
    let geometry_names =
        ["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection"];
    add(
        "Geometry",
        json!({
            "description": "A GeoJSON geometry",
            "oneOf": geometry_names.iter().copied().map(r).collect::<Vec<_>>(),
            "discriminator": {
                "propertyName": "type",
                "mapping": geometry_names.iter().map(|n| (n.to_string(), json!(format!("#/components/schemas/{n}")))).collect::<Map<_, _>>()
            }
        }),
    );
    add(
        "ArealGeometry",
        json!({
            "description": "A Polygon or MultiPolygon",
            "oneOf": [r("Polygon"), r("MultiPolygon")],
            "discriminator": {"propertyName": "type", "mapping": {
                "Polygon": "#/components/schemas/Polygon", "MultiPolygon": "#/components/schemas/MultiPolygon"}}
        }),
    );
    let nullable = |s: Value| json!({"oneOf": [s, {"type": "null"}]});
    let strings_or_list = |what: &str| {
        json!({"description": format!("{what}: an array, or one string as a comma-separated list (as in GET)"),
            "oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]})
    };
    let merged = |what: &str| {
        json!({"type": ["object", "null"], "additionalProperties": true,
            "description": format!("Merged into the {what} (RFC 7396); null removes it")})
    };
    add(
        "Feature",
        json!({
            "type": "object",
            "description": "A GeoJSON Feature",
            "required": ["type", "geometry", "properties"],
            "properties": {
                "type": {"type": "string", "enum": ["Feature"]},
                "id": {"type": ["string", "integer"]},
                "geometry": nullable(r("Geometry")),
                "properties": {"type": ["object", "null"], "additionalProperties": true},
                "bbox": r("BBox"),
                "links": {"type": "array", "items": r("Link")}
            },
            "example": {"type": "Feature", "geometry": {"type": "Point", "coordinates": [151.2093, -33.8688]}, "properties": {"name": "Town Hall"}}
        }),
    );
    let paging = |features: Value| {
        json!({
            "type": {"type": "string", "enum": ["FeatureCollection"]},
            "features": {"type": "array", "items": features},
            "numberMatched": {"type": "integer", "minimum": 0, "description": "Features matching the query, when cheap to count"},
            "numberReturned": {"type": "integer", "minimum": 0},
            "timeStamp": {"type": "string", "format": "date-time"},
            "links": {"type": "array", "items": r("Link"), "description": "`self`, and `next` while more features follow"},
            "meta": r("PageMeta"),
            "bbox": r("BBox")
        })
    };
    add(
        "PageMeta",
        json!({
            "type": "object",
            "required": ["limit", "offset"],
            "properties": {
                "limit": {"type": "integer", "minimum": 1},
                "offset": {"type": "integer", "minimum": 0},
                "total": {"type": "integer", "minimum": 0}
            }
        }),
    );
    add(
        "FeatureCollection",
        json!({
            "type": "object",
            "description": "A GeoJSON FeatureCollection; a page of a list carries `links` (with `next`) and counts",
            "required": ["type", "features"],
            "properties": paging(r("Feature")),
            "example": {"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [151.2093, -33.8688]}, "properties": {"name": "Town Hall"}}]}
        }),
    );
    add(
        "FeaturePatch",
        json!({
            "type": "object",
            "description": "A JSON merge patch (RFC 7396) of a Feature: members set to null are removed, objects are merged member by member",
            "properties": {
                "geometry": merged("geometry"),
                "properties": merged("properties")
            },
            "example": {"properties": {"name": "Customs House", "old_name": null}}
        }),
    );

    // Cadastre.
    add(
        "ParcelProperties",
        json!({
            "type": "object",
            "description": "The interface's parcel attributes; any other properties are kept as given",
            "required": ["lot", "plan", "area_m2", "updated_at"],
            "properties": {
                "lot": {"type": "string", "description": "Lot number"},
                "plan": {"type": "string", "description": "Plan (deposited plan) number; (lot, plan) is unique"},
                "tenure": {"type": ["string", "null"], "examples": ["freehold", "leasehold", "crown"]},
                "area_m2": {"type": "number", "minimum": 0, "description": "Area on the WGS84 ellipsoid, kept by the server"},
                "updated_at": {"type": "string", "format": "date-time", "description": "Kept by the server"}
            },
            "additionalProperties": true
        }),
    );
    let parcel_example = json!({
        "type": "Feature",
        "geometry": {"type": "Polygon", "coordinates": [[[151.2, -33.87], [151.201, -33.87], [151.201, -33.869], [151.2, -33.869], [151.2, -33.87]]]},
        "properties": {"lot": "12", "plan": "DP1234", "tenure": "freehold"}
    });
    add(
        "Parcel",
        json!({
            "type": "object",
            "description": "A cadastral parcel: a GeoJSON Feature with a Polygon or MultiPolygon",
            "required": ["type", "id", "geometry", "properties"],
            "properties": {
                "type": {"type": "string", "enum": ["Feature"]},
                "id": {"type": "string", "description": "`parcel_...`"},
                "geometry": r("ArealGeometry"),
                "properties": r("ParcelProperties"),
                "links": {"type": "array", "items": r("Link")}
            }
        }),
    );
    add(
        "ParcelCollection",
        json!({
            "type": "object",
            "description": "A page of parcels",
            "required": ["type", "features", "links"],
            "properties": paging(r("Parcel"))
        }),
    );
    add(
        "ParcelDraft",
        json!({
            "type": "object",
            "description": "A parcel to register or replace",
            "required": ["type", "geometry"],
            "properties": {
                "type": {"type": "string", "enum": ["Feature"]},
                "geometry": r("ArealGeometry"),
                "properties": {
                    "type": "object",
                    "required": ["lot", "plan"],
                    "properties": {
                        "lot": {"type": "string", "minLength": 1, "maxLength": 64},
                        "plan": {"type": "string", "minLength": 1, "maxLength": 64},
                        "tenure": {"type": ["string", "null"], "minLength": 1, "maxLength": 32}
                    },
                    "additionalProperties": true
                }
            },
            "example": parcel_example
        }),
    );
    add(
        "ParcelDraftCollection",
        json!({
            "type": "object",
            "description": "Parcels registered in one transaction: all or nothing",
            "required": ["type", "features"],
            "properties": {
                "type": {"type": "string", "enum": ["FeatureCollection"]},
                "features": {"type": "array", "items": r("ParcelDraft")}
            }
        }),
    );
    add(
        "ParcelInput",
        json!({
            "oneOf": [r("ParcelDraft"), r("ParcelDraftCollection")],
            "discriminator": {"propertyName": "type", "mapping": {
                "Feature": "#/components/schemas/ParcelDraft", "FeatureCollection": "#/components/schemas/ParcelDraftCollection"}},
            "example": parcel_example
        }),
    );
    add(
        "ParcelsRegistered",
        json!({
            "type": "object",
            "required": ["registered", "ids"],
            "properties": {
                "registered": {"type": "integer", "minimum": 0},
                "ids": {"type": "array", "items": {"type": "string"}}
            }
        }),
    );
    add(
        "ParcelPatch",
        json!({
            "type": "object",
            "description": "A JSON merge patch (RFC 7396) of a parcel: members set to null are removed, objects are merged member by member",
            "properties": {
                "geometry": merged("geometry (a Polygon or MultiPolygon once merged)"),
                "properties": merged("properties")
            },
            "example": {"properties": {"tenure": "leasehold"}}
        }),
    );
    add(
        "ParcelVersion",
        json!({
            "type": "object",
            "required": ["version", "change", "recorded_at"],
            "properties": {
                "version": {"type": "integer", "minimum": 1},
                "change": {"type": "string", "enum": ["registered", "updated", "retired"]},
                "recorded_at": {"type": "string", "format": "date-time"},
                "geometry": nullable(r("Geometry")),
                "properties": {"type": ["object", "null"], "additionalProperties": true}
            }
        }),
    );
    add(
        "ParcelHistory",
        json!({
            "type": "object",
            "required": ["id", "versions"],
            "properties": {"id": {"type": "string"}, "versions": {"type": "array", "items": r("ParcelVersion")}}
        }),
    );

    // OGC API Features.
    add(
        "OgcLandingPage",
        json!({
            "type": "object",
            "required": ["links"],
            "properties": {"title": {"type": "string"}, "description": {"type": "string"}, "links": {"type": "array", "items": r("Link")}}
        }),
    );
    add(
        "OgcCollection",
        json!({
            "type": "object",
            "required": ["id", "links"],
            "properties": {
                "id": {"type": "string"},
                "title": {"type": "string"},
                "description": {"type": "string"},
                "itemType": {"type": "string"},
                "crs": {"type": "array", "items": {"type": "string"}},
                "storageCrs": {"type": "string"},
                "extent": {"type": "object", "additionalProperties": true},
                "links": {"type": "array", "items": r("Link")}
            }
        }),
    );
    add(
        "OgcCollections",
        json!({
            "type": "object",
            "required": ["collections", "links"],
            "properties": {
                "collections": {"type": "array", "items": r("OgcCollection")},
                "links": {"type": "array", "items": r("Link")}
            }
        }),
    );

    // STAC.
    add(
        "StacCatalog",
        json!({
            "type": "object",
            "required": ["type", "id", "stac_version", "links"],
            "properties": {
                "type": {"type": "string", "enum": ["Catalog"]},
                "id": {"type": "string"},
                "stac_version": {"type": "string"},
                "title": {"type": "string"},
                "description": {"type": "string"},
                "conformsTo": {"type": "array", "items": {"type": "string", "format": "uri"}},
                "links": {"type": "array", "items": r("Link")}
            }
        }),
    );
    add(
        "StacExtent",
        json!({
            "type": "object",
            "properties": {
                "spatial": {"type": "object", "properties": {"bbox": {"type": "array", "items": r("BBox")}}},
                "temporal": {"type": "object", "properties": {"interval": {"type": "array", "items": {
                    "type": "array", "items": {"type": ["string", "null"], "format": "date-time"}, "minItems": 2, "maxItems": 2}}}}
            }
        }),
    );
    add(
        "StacCollection",
        json!({
            "type": "object",
            "description": "A STAC Collection (1.0)",
            "required": ["id"],
            "properties": {
                "type": {"type": "string", "enum": ["Collection"]},
                "stac_version": {"type": "string"},
                "stac_extensions": {"type": "array", "items": {"type": "string"}},
                "id": {"type": "string"},
                "title": {"type": "string"},
                "description": {"type": "string"},
                "license": {"type": "string"},
                "keywords": {"type": "array", "items": {"type": "string"}},
                "extent": r("StacExtent"),
                "summaries": {"type": "object", "additionalProperties": true},
                "links": {"type": "array", "items": r("Link")}
            },
            "example": {"type": "Collection", "stac_version": "1.0.0", "id": "cbers4", "description": "CBERS-4 MUX scenes", "license": "CC-BY-SA-3.0",
                "extent": {"spatial": {"bbox": [[-180, -90, 180, 90]]}, "temporal": {"interval": [["2017-01-01T00:00:00Z", null]]}}, "links": []}
        }),
    );
    add(
        "StacCollections",
        json!({
            "type": "object",
            "required": ["collections", "links"],
            "properties": {
                "collections": {"type": "array", "items": r("StacCollection")},
                "links": {"type": "array", "items": r("Link")}
            }
        }),
    );
    add(
        "StacAsset",
        json!({
            "type": "object",
            "required": ["href"],
            "properties": {
                "href": {"type": "string"},
                "type": {"type": "string"},
                "title": {"type": "string"},
                "roles": {"type": "array", "items": {"type": "string"}}
            },
            "additionalProperties": true
        }),
    );
    let item_example = json!({
        "type": "Feature", "stac_version": "1.0.0", "id": "scene-1",
        "geometry": {"type": "Polygon", "coordinates": [[[151.1, -33.9], [151.3, -33.9], [151.3, -33.8], [151.1, -33.8], [151.1, -33.9]]]},
        "bbox": [151.1, -33.9, 151.3, -33.8],
        "properties": {"datetime": "2017-11-21T00:00:00Z"},
        "assets": {"B8": {"href": "https://example.com/scene-1/B8.tif", "type": "image/tiff; application=geotiff; profile=cloud-optimized", "eo:bands": [{"name": "B8", "common_name": "nir"}]}},
        "links": []
    });
    add(
        "StacItem",
        json!({
            "type": "object",
            "description": "A STAC Item (1.0): a GeoJSON Feature with `datetime` and assets",
            "required": ["type", "id", "properties"],
            "properties": {
                "type": {"type": "string", "enum": ["Feature"]},
                "stac_version": {"type": "string"},
                "stac_extensions": {"type": "array", "items": {"type": "string"}},
                "id": {"type": "string"},
                "collection": {"type": "string"},
                "geometry": nullable(r("Geometry")),
                "bbox": r("BBox"),
                "properties": {
                    "type": "object",
                    "properties": {
                        "datetime": {"type": ["string", "null"], "format": "date-time"},
                        "start_datetime": {"type": "string", "format": "date-time"},
                        "end_datetime": {"type": "string", "format": "date-time"}
                    },
                    "additionalProperties": true
                },
                "assets": {"type": "object", "additionalProperties": r("StacAsset")},
                "links": {"type": "array", "items": r("Link")}
            },
            "example": item_example
        }),
    );
    add(
        "StacItemCollection",
        json!({
            "type": "object",
            "description": "A page of STAC Items; the `next` link continues it",
            "required": ["type", "features"],
            "properties": {
                "type": {"type": "string", "enum": ["FeatureCollection"]},
                "features": {"type": "array", "items": r("StacItem")},
                "links": {"type": "array", "items": r("Link")},
                "numberMatched": {"type": "integer", "minimum": 0},
                "numberReturned": {"type": "integer", "minimum": 0}
            }
        }),
    );
    add(
        "StacItemInput",
        json!({
            "oneOf": [r("StacItem"), r("StacItemCollection")],
            "discriminator": {"propertyName": "type", "mapping": {
                "Feature": "#/components/schemas/StacItem", "FeatureCollection": "#/components/schemas/StacItemCollection"}},
            "example": item_example
        }),
    );
    add(
        "StacItemsAdded",
        json!({
            "type": "object",
            "required": ["added", "ids"],
            "properties": {"added": {"type": "integer", "minimum": 0}, "ids": {"type": "array", "items": {"type": "string"}}}
        }),
    );
    add(
        "StacItemPatch",
        json!({
            "type": "object",
            "description": "A JSON merge patch (RFC 7396) of a STAC Item",
            "properties": {"properties": merged("properties"), "geometry": merged("geometry")},
            "additionalProperties": true,
            "example": {"properties": {"eo:cloud_cover": 12.5}}
        }),
    );
    add(
        "StacItemUpload",
        json!({
            "type": "object",
            "description": "A part `item` (JSON: at least `id` and `datetime`, and the assets' `eo:bands`) and one GeoTIFF part per asset, named by the asset key",
            "required": ["item"],
            "properties": {"item": {"type": "string", "description": "The Item as JSON text"}},
            "additionalProperties": {"type": "string", "format": "binary", "description": "A GeoTIFF, the part named by its asset key"},
            "example": {"item": "{\"id\": \"scene-1\", \"properties\": {\"datetime\": \"2017-11-21T00:00:00Z\"}, \"assets\": {\"B8\": {\"eo:bands\": [{\"name\": \"B8\", \"common_name\": \"nir\"}]}}}"}
        }),
    );
    add(
        "StacSearch",
        json!({
            "type": "object",
            "description": "STAC Item Search",
            "properties": {
                "bbox": r("BBox"),
                "intersects": r("Geometry"),
                "datetime": {"type": "string", "description": "An instant or an interval `start/end` (`..` open)"},
                "collections": strings_or_list("Collection ids"),
                "ids": strings_or_list("Item ids"),
                "limit": {"type": "integer", "minimum": 1, "description": "Page size (default 10; above `eo.max_limit` the page holds `eo.max_limit` items, as OGC API Features prescribes)"},
                "filter": {"description": "CQL2 JSON (an object), or CQL2 text with `filter-lang`"},
                "filter-lang": {"type": "string", "enum": ["cql2-text", "cql2-json"]},
                "sortby": {"description": "Sort keys: `[{\"field\": ..., \"direction\": \"asc\" | \"desc\"}]`, or the text form `-datetime,id`",
                    "oneOf": [
                        {"type": "array", "items": {"type": "object", "required": ["field"], "properties": {
                            "field": {"type": "string"}, "direction": {"type": "string", "enum": ["asc", "desc"]}}}},
                        {"type": "string"}
                    ]},
                "fields": {"type": "object", "properties": {
                    "include": nullable(strings_or_list("Members to include")),
                    "exclude": nullable(strings_or_list("Members to leave out"))}},
                "token": {"type": "string", "description": "The token of a `next` link"}
            },
            "example": {"bbox": [151.0, -34.0, 151.5, -33.5], "datetime": "2017-01-01T00:00:00Z/..", "collections": ["cbers4"], "limit": 10}
        }),
    );

    // Jobs accepted and computations.
    add(
        "JobAccepted",
        json!({
            "type": "object",
            "description": "A job queued to do the work; follow `href` (also in `Location`) or wait on it",
            "required": ["job", "status", "href"],
            "properties": {
                "job": {"type": "string", "description": "`job_...`"},
                "status": {"type": "string", "enum": ["queued", "running", "succeeded", "failed", "cancelled"]},
                "href": {"type": "string"},
                "result": {"type": "string", "description": "Where the result will be"}
            }
        }),
    );
    add(
        "ComputeRequest",
        json!({
            "type": "object",
            "required": ["scene"],
            "properties": {
                "scene": {"type": "string", "description": "`collection/item` or an item id"},
                "expression": {"type": "string", "description": "For `/compute/expression`: band math over asset keys or band names"},
                "bands": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Role to asset key or band name, e.g. {\"red\": \"B7\", \"nir\": \"B8\"}"},
                "area": {"type": "object", "properties": {
                    "bbox": r("BBox"), "geometry": r("Geometry"), "crs": {"type": "string"}}},
                "output": {"type": "object", "properties": {
                    "formats": {"type": "array", "items": {"type": "string", "enum": ["cog", "png"]}},
                    "colormap": {"type": "string"},
                    "rescale": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}}},
                "zones": {"type": "object", "properties": {
                    "collection": {"type": "string"}, "filter": {"type": "string", "description": "CQL2 text"},
                    "filter_json": {"type": "object", "additionalProperties": true}, "all_touched": {"type": "boolean"}}},
                "async": {"type": "boolean", "description": "Always run as a job"}
            },
            "example": {"scene": "cbers4/scene-1", "bands": {"red": "B7", "nir": "B8"}, "zones": {"collection": "parcels"}}
        }),
    );
    add(
        "ComputeOutput",
        json!({
            "type": "object",
            "required": ["name", "href"],
            "properties": {
                "name": {"type": "string"},
                "href": {"type": "string"},
                "type": {"type": "string"},
                "size": {"type": "integer", "minimum": 0},
                "roles": {"type": "array", "items": {"type": "string"}}
            }
        }),
    );
    let number_or_null = json!({"type": ["number", "null"]});
    add(
        "BandStatistics",
        json!({
            "type": "object",
            "description": "Statistics of the valid pixels (null where there are none)",
            "properties": {
                "min": number_or_null, "max": number_or_null, "mean": number_or_null, "std": number_or_null,
                "count": {"type": "integer", "minimum": 0}, "nodata_count": {"type": "integer", "minimum": 0},
                "histogram": {"type": "object", "additionalProperties": true}
            },
            "additionalProperties": true
        }),
    );
    add(
        "ComputeResult",
        json!({
            "type": "object",
            "required": ["id", "outputs"],
            "properties": {
                "id": {"type": "string", "description": "`eoc_...`"},
                "scene": {"type": "string"},
                "index": {"type": "string"},
                "expression": {"type": ["string", "null"]},
                "bands": {"type": "object", "additionalProperties": true},
                "crs": {"type": "string"},
                "width": {"type": "integer"},
                "height": {"type": "integer"},
                "geo_transform": {"type": "array", "items": {"type": "number"}},
                "bbox": r("BBox"),
                "nodata": {"type": ["number", "null"]},
                "statistics": r("BandStatistics"),
                "outputs": {"type": "array", "items": r("ComputeOutput")},
                "tiles": {"type": "string", "description": "XYZ tile URL template"},
                "zones": {"oneOf": [r("FeatureCollection"), {"type": "null"}], "description": "Zonal statistics per feature, when zones were asked"},
                "created_at": {"type": "string", "format": "date-time"}
            }
        }),
    );
    add(
        "EventPayload",
        json!({
            "type": "object",
            "description": "A webhook event as delivered: `id`, `event` and `timestamp`, and the event's own members",
            "required": ["id", "event", "timestamp"],
            "properties": {
                "id": {"type": "string", "description": "`evt_...`: deduplicate on it"},
                "event": {"type": "string", "description": "The event type"},
                "timestamp": {"type": "string", "format": "date-time"}
            },
            "additionalProperties": true
        }),
    );
    // Digital twins.
    add(
        "Pending",
        json!({
            "type": "object",
            "description": "Still being prepared (once, for every request): ask again after `Retry-After` seconds",
            "required": ["status", "detail"],
            "properties": {"status": {"type": "string", "enum": ["building", "converting"]}, "detail": {"type": "string"}}
        }),
    );
    let timestamp = json!({"type": "string", "format": "date-time"});
    let sensor = |latest: bool| {
        let mut props = json!({
            "id": {"type": "string"},
            "twin": {"type": "string"},
            "name": {"type": ["string", "null"]},
            "unit": {"type": ["string", "null"]},
            "type": {"type": "string", "enum": ["number", "boolean", "string", "object"]},
            "feature_id": {"type": ["string", "null"], "description": "The asset the sensor is on"},
            "created_at": timestamp
        });
        if latest {
            props["latest"] = json!({"description": "The latest reading as of the clock", "oneOf": [
                {"type": "object", "required": ["ts", "value"], "properties": {"ts": timestamp, "value": {"description": "As the sensor's type says"}}},
                {"type": "null"}]});
        }
        json!({"type": "object", "required": ["id", "twin", "type"], "properties": props})
    };
    add("Sensor", sensor(true));
    add("SensorOfReadings", sensor(false));
    add(
        "SensorList",
        json!({
            "type": "object",
            "required": ["sensors", "total"],
            "properties": {"sensors": {"type": "array", "items": r("Sensor")}, "total": {"type": "integer", "minimum": 0}}
        }),
    );
    add(
        "ReadingsAccepted",
        json!({
            "type": "object",
            "required": ["accepted", "replaced"],
            "properties": {
                "accepted": {"type": "integer", "minimum": 0},
                "replaced": {"type": "integer", "minimum": 0, "description": "Readings whose `ts` the sensor already had (a retry)"}
            }
        }),
    );
    add(
        "Readings",
        json!({
            "type": "object",
            "description": "Readings oldest first, or with `interval` their buckets; `next` continues a long answer",
            "required": ["sensor"],
            "properties": {
                "sensor": r("SensorOfReadings"),
                "from": {"type": ["string", "null"], "format": "date-time"},
                "to": {"type": ["string", "null"], "format": "date-time"},
                "next": {"type": ["string", "null"], "description": "Where the next readings start (`from`)"},
                "interval_ms": {"type": "integer", "minimum": 1},
                "readings": {"type": "array", "items": {"type": "object", "required": ["sensorId", "ts", "value"], "properties": {
                    "sensorId": {"type": "string"}, "ts": timestamp, "value": {}}}},
                "buckets": {"type": "array", "items": {"type": "object", "required": ["ts", "count"], "properties": {
                    "ts": timestamp, "count": {"type": "integer", "minimum": 0},
                    "min": {"type": ["number", "null"]}, "max": {"type": ["number", "null"]}, "mean": {"type": ["number", "null"]},
                    "last": {"description": "The last value in the bucket (sensors that are not numbers)"}}}}
            }
        }),
    );
    add(
        "Clock",
        json!({
            "type": "object",
            "required": ["time", "mode", "rate", "playing"],
            "properties": {
                "time": {"type": "string", "format": "date-time", "description": "The clock's instant now"},
                "mode": {"type": "string", "enum": ["live", "simulated"]},
                "rate": {"type": "number", "description": "Simulated seconds a second (negative runs backwards)"},
                "playing": {"type": "boolean"},
                "set_at": {"type": ["string", "null"], "format": "date-time"}
            }
        }),
    );
    add(
        "TwinAsset",
        json!({
            "type": "object",
            "required": ["id", "twin", "properties"],
            "properties": {
                "id": {"type": "string"},
                "twin": {"type": "string"},
                "collection": {"type": "string"},
                "properties": {"type": "object", "additionalProperties": true},
                "footprint": nullable(r("Geometry")),
                "area_m2": {"type": ["number", "null"]},
                "height": {"type": ["number", "null"], "description": "Extruded height in metres"},
                "version": {"type": "integer"},
                "valid_from": {"type": ["string", "null"], "format": "date-time"},
                "registered_at": {"type": ["string", "null"], "format": "date-time"},
                "as_of": {"type": "string", "format": "date-time"},
                "clock": r("Clock"),
                "sensors": {"type": "array", "items": r("Sensor")}
            }
        }),
    );
    add(
        "Tileset",
        json!({
            "type": "object",
            "description": "A 3D Tiles 1.1 tileset.json",
            "required": ["asset", "geometricError", "root"],
            "properties": {
                "asset": {"type": "object", "required": ["version"], "properties": {"version": {"type": "string"}, "generator": {"type": "string"}}},
                "geometricError": {"type": "number", "minimum": 0},
                "root": {"type": "object", "additionalProperties": true},
                "properties": {"type": "object", "additionalProperties": true}
            }
        }),
    );

    // A member that is null is taken as absent.
    if let Some(props) = defs.get_mut("StacSearch").and_then(|s| s.get_mut("properties")).and_then(Value::as_object_mut)
    {
        for p in props.values_mut() {
            match p.get("type").cloned() {
                Some(Value::String(t)) => {
                    p["type"] = json!([t, "null"]);
                    if let Some(Value::Array(values)) = p.get_mut("enum") {
                        values.push(Value::Null);
                    }
                }
                Some(_) => {}
                None if p.get("$ref").is_some() => *p = nullable(p.clone()),
                None if p.get("oneOf").is_some() => {
                    if let Some(Value::Array(choices)) = p.get_mut("oneOf") {
                        choices.push(json!({"type": "null"}));
                    }
                }
                None => {}
            }
        }
    }
    defs
}

/// Examples of the request bodies whose schemas are derived from Rust types, by schema name.
fn examples() -> Vec<(&'static str, Value)> {
    vec![
        ("CreateAccount", json!({"name": "Ops", "email": "ops@example.com"})),
        ("CreateApiKey", json!({"name": "dns-bot", "scopes": ["dns:write"], "expires_in": 2592000})),
        (
            "ProcessRequest",
            json!({"source": {"dataset_id": "dataset_01m80pxqn5wq755fvheh5647jw"},
                "params": {"operations": [{"type": "hillshade"}, {"type": "slope"}]}}),
        ),
        ("ProcessUpload", json!({"params": "{\"operations\": [{\"type\": \"hillshade\"}]}"})),
        ("PointCloudUpload", json!({"params": "{\"name\": \"survey-2026\"}"})),
        ("ReadingIn", json!({"value": 12.5, "ts": "2026-11-25T08:00:00.250Z"})),
        ("CreateSensor", json!({"id": "pump-3", "name": "Pump 3 flow", "unit": "l/s", "type": "number"})),
        ("SetTime", json!({"time": "2024-06-01T09:00:00Z", "playing": true, "rate": 60})),
        (
            "CreateTwin",
            json!({"name": "Old town", "bbox": [7.09, 45.91, 7.11, 45.93], "collection": "parcels",
                "filter": "tenure = 'freehold'", "height_property": "height", "default_height": 9}),
        ),
        (
            "CreateSubscription",
            json!({"url": "https://hooks.example.com/meridian", "events": ["dns.*", "cadastre.parcel.registered"], "description": "ops"}),
        ),
        ("UpdateSubscription", json!({"events": ["*"], "status": "paused"})),
        ("ReplayRequest", json!({"since": "2026-01-01T00:00:00Z", "only_failed": false})),
        ("CreateDnsWebhook", json!({"url": "https://hooks.example.com/dns"})),
        ("CreateZone", json!({"name": "example.com"})),
        ("RecordBody", json!({"type": "A", "name": "www", "content": "192.0.2.10", "ttl": 300})),
        (
            "BatchBody",
            json!({"deletes": [{"id": "rec_01m80pxqn5wq755fvheh5647jw"}],
                "creates": [{"type": "A", "name": "api", "content": "192.0.2.12"}]}),
        ),
    ]
}

/// Puts the definitions into the document, replacing the markers' placeholders and adding the
/// schemas they reference; describes the problem document once as a response.
pub fn complete(doc: &mut Value) {
    let defs = definitions();
    if let Some(schemas) = doc.pointer_mut("/components/schemas").and_then(Value::as_object_mut) {
        for (name, schema) in defs {
            schemas.insert(name, schema);
        }
        for (name, example) in examples() {
            if let Some(schema) = schemas.get_mut(name).and_then(Value::as_object_mut) {
                schema.entry("example").or_insert(example);
            }
        }
    }
    problem_responses(doc);
    bodies(doc);
}

/// Whether a media type carries bytes rather than JSON or text.
pub fn is_binary(media: &str) -> bool {
    let m = media.split(';').next().unwrap_or(media).trim();
    !(m.contains("json")
        || m.starts_with("text/")
        || m.ends_with("/xml")
        || m.ends_with("+xml")
        || m.starts_with("multipart/"))
}

/// Binary bodies are strings of `format: binary` (generators make them streams or files), and
/// the text bodies get examples.
fn bodies(doc: &mut Value) {
    let text_examples = [
        ("text/dns", json!("$ORIGIN example.com.\n$TTL 300\n@ IN A 192.0.2.1\nwww IN CNAME example.com.\n")),
        (
            "application/xml",
            json!(
                "<wfs:GetFeature service=\"WFS\" version=\"2.0.0\" xmlns:wfs=\"http://www.opengis.net/wfs/2.0\">\
                   <wfs:Query typeNames=\"parcels\"/></wfs:GetFeature>"
            ),
        ),
    ];
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else { return };
    for item in paths.values_mut() {
        for op in item.as_object_mut().into_iter().flat_map(|m| m.values_mut()) {
            let Some(op) = op.as_object_mut() else { continue };
            if let Some(content) =
                op.get_mut("requestBody").and_then(|b| b.get_mut("content")).and_then(Value::as_object_mut)
            {
                for (media, c) in content.iter_mut() {
                    binary(media, c);
                    let example = text_examples.iter().find(|(m, _)| *m == media.as_str());
                    if let (Some((_, example)), Some(c)) = (example, c.as_object_mut()) {
                        c.entry("example").or_insert_with(|| example.clone());
                    }
                }
            }
            for (_, response) in op.get_mut("responses").and_then(Value::as_object_mut).into_iter().flatten() {
                for (media, c) in response.get_mut("content").and_then(Value::as_object_mut).into_iter().flatten() {
                    binary(media, c);
                }
            }
        }
    }
}

fn binary(media: &str, content: &mut Value) {
    if !is_binary(media) {
        return;
    }
    let Some(content) = content.as_object_mut() else { return };
    let plain = match content.get("schema") {
        None => true,
        Some(s) => s == &json!({"type": "string"}),
    };
    if plain {
        content.insert("schema".into(), json!({"type": "string", "format": "binary"}));
    }
}

/// The problem document, described once in `components/responses` and referenced (with each
/// status's own description) by every error response that carries it.
fn problem_responses(doc: &mut Value) {
    const PROBLEM: &str = "#/components/schemas/Problem";
    let media = meridian_core::problem::MEDIA_TYPE;
    let Some(components) = doc.get_mut("components").and_then(Value::as_object_mut) else { return };
    components.insert(
        "responses".into(),
        json!({"Problem": {
            "description": "An error, as an RFC 7807 problem document",
            "content": {media: {"schema": {"$ref": PROBLEM}}}
        }}),
    );
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else { return };
    for item in paths.values_mut() {
        for op in item.as_object_mut().into_iter().flat_map(|m| m.values_mut()) {
            for (_, response) in op.get_mut("responses").and_then(Value::as_object_mut).into_iter().flatten() {
                let only_problem = response.get("content").and_then(Value::as_object).is_some_and(|c| {
                    c.len() == 1
                        && c.get(meridian_core::problem::MEDIA_TYPE)
                            .and_then(|m| m.pointer("/schema/$ref"))
                            .and_then(Value::as_str)
                            == Some(PROBLEM)
                });
                if only_problem && response.get("headers").is_none() {
                    let description = response.get("description").cloned().unwrap_or(Value::Null);
                    *response = json!({"$ref": "#/components/responses/Problem", "description": description});
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_marker_has_a_definition_and_every_reference_resolves() {
        let defs = definitions();
        for m in MARKERS {
            assert!(defs.contains_key(*m), "{m} has no definition");
        }
        fn refs(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(r)) = m.get("$ref") {
                        out.push(r.clone());
                    }
                    m.values().for_each(|v| refs(v, out));
                }
                Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
                _ => {}
            }
        }
        let mut found = Vec::new();
        refs(&Value::Object(defs.clone()), &mut found);
        for r in found {
            let name = r.trim_start_matches("#/components/schemas/");
            assert!(defs.contains_key(name), "{r} is not defined here");
        }
    }
}
