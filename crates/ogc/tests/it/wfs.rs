//! WFS 2.0 driven through `WfsService` directly, on a real store: capabilities and schemas, FES
//! filters against real features, GML and GeoJSON output, paging, transactions through the write
//! path (history, events, versions), and exception codes.

use meridian_backends::StoreOptions;
use meridian_collections::{FeatureService, ListQuery, PARCELS};
use meridian_core::crs::Crs;
use meridian_core::id::{AccountId, ApiKeyId};
use meridian_core::page::Page;
use meridian_core::Timestamp;
use meridian_features::cql2::{self, Subject};
use meridian_ogc::ows::{ExceptionCode, OgcError, Service};
use meridian_ogc::wfs::fes::{self, FesContext};
use meridian_ogc::wfs::xml::{self, XmlLimits};
use meridian_ogc::wfs::{Context, WfsLimits, WfsService};
use meridian_store::features::FeatureCollection;
use meridian_store::model::{Account, ApiKey};
use meridian_store::Store;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

type TestResult<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

struct Fixture {
    _dir: tempfile::TempDir,
    wfs: WfsService,
    features: Arc<FeatureService>,
    store: Store,
    ctx: Context,
}

async fn account(store: &Store, email: &str) -> TestResult<AccountId> {
    let account = Account {
        id: AccountId::generate(),
        name: "Surveyor".into(),
        email: email.into(),
        created_at: Timestamp::now(),
    };
    let id = ApiKeyId::generate();
    let key = ApiKey {
        hash: format!("hash-{}", id.as_str()),
        prefix: id.as_str()[..8].to_owned(),
        id,
        account_id: account.id.clone(),
        name: "first".into(),
        scopes: vec![],
        created_at: Timestamp::now(),
        expires_at: None,
        revoked_at: None,
    };
    store.accounts.create_account(&account, &key).await?;
    Ok(account.id)
}

async fn fixture(limits: WfsLimits) -> TestResult<Fixture> {
    let dir = tempfile::tempdir()?;
    let store = meridian_backends::open(&StoreOptions {
        database_url: format!("sqlite://{}/m.db", dir.path().display()),
        blob_url: format!("file://{}/blobs", dir.path().display()),
        readers: 2,
        busy_timeout: Duration::from_secs(5),
        postgres: Default::default(),
    })
    .await?;
    let account = account(&store, "s@example.com").await?;
    let features = Arc::new(FeatureService::new(store.clone()));
    let wfs = WfsService::new(features.clone(), limits);
    let ctx = Context { account, service_url: "http://test/api/v1/ogc/wfs".into(), carry: vec![], may_write: true };
    Ok(Fixture { _dir: dir, wfs, features, store, ctx })
}

fn square(x: f64, y: f64, size: f64, props: Value) -> Value {
    json!({"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[
        [x, y], [x + size, y], [x + size, y + size], [x, y + size], [x, y]
    ]]}, "properties": props})
}

/// `n` parcels on a 10-wide grid from (151.0, -33.9), 0.005° squares 0.01° apart.
async fn seed(f: &Fixture, n: usize) -> TestResult {
    let bodies: Vec<Value> = (0..n)
        .map(|i| {
            let (x, y) = (151.0 + (i % 10) as f64 * 0.01, -33.9 + (i / 10) as f64 * 0.01);
            square(
                x,
                y,
                0.005,
                json!({"lot": i.to_string(), "plan": format!("DP{}", i % 3),
                "tenure": if i % 2 == 0 { "freehold" } else { "leasehold" }}),
            )
        })
        .collect();
    let drafts = f.features.drafts(bodies, Crs::Crs84, PARCELS).await?;
    f.features.create_many(&f.ctx.account, PARCELS, drafts).await?;
    Ok(())
}

async fn kvp(f: &Fixture, q: &str) -> TestResult<String> {
    Ok(f.wfs.kvp(&f.ctx, q).await?.into_string().await?)
}

async fn post(f: &Fixture, body: &str) -> TestResult<String> {
    Ok(f.wfs.xml(&f.ctx, body).await?.into_string().await?)
}

fn attr(doc: &str, name: &str) -> Option<String> {
    let at = doc.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(doc[at..].split('"').next()?.to_owned())
}

fn well_formed(doc: &str) -> xml::Element {
    xml::parse(doc, &XmlLimits::default()).unwrap_or_else(|e| panic!("not well-formed: {e}\n{doc}"))
}

#[tokio::test]
async fn capabilities_declare_conformance_types_and_extents() -> TestResult {
    let f = fixture(WfsLimits::default()).await?;
    seed(&f, 12).await?;
    let doc = kvp(&f, "service=WFS&request=GetCapabilities").await?;
    let root = well_formed(&doc);
    assert_eq!(root.name, "WFS_Capabilities");
    for c in ["ImplementsBasicWFS", "ImplementsTransactionalWFS", "ImplementsResultPaging", "KVPEncoding"] {
        let at = doc.find(&format!("name=\"{c}\"")).ok_or(c)?;
        assert!(doc[at..at + 120].contains("TRUE"), "{c}");
    }
    assert!(doc.contains("<wfs:Name>features:parcels</wfs:Name>"));
    assert!(doc.contains("<wfs:DefaultCRS>urn:ogc:def:crs:EPSG::4326</wfs:DefaultCRS>"));
    assert!(doc.contains("<ows:LowerCorner>151 -33.9") || doc.contains("<ows:LowerCorner>150.99"), "{doc}");
    assert!(doc.contains("<fes:SpatialOperator name=\"DWithin\"/>"));
    // Another account sees only its own types.
    let other = account(&f.store, "o@example.com").await?;
    let now = Timestamp::now();
    f.store
        .features
        .create_collection(
            &FeatureCollection {
                account_id: other.clone(),
                id: "secret-trees".into(),
                title: "Secret".into(),
                description: String::new(),
                created_at: now,
                updated_at: now,
            },
            &[],
        )
        .await?;
    let mine = kvp(&f, "SERVICE=WFS&REQUEST=GetCapabilities").await?;
    assert!(!mine.contains("secret-trees"));
    let e = f.wfs.kvp(&f.ctx, "SERVICE=WFS&VERSION=2.0.0&REQUEST=DescribeFeatureType&TYPENAMES=secret-trees").await;
    assert_eq!(e.err().map(|e| e.code), Some(ExceptionCode::InvalidParameterValue));
    // Carried parameters come back in every operation URL.
    let ctx = Context { carry: vec![("access_token".into(), "tok".into())], ..f.ctx.clone() };
    let doc = f.wfs.kvp(&ctx, "service=WFS&request=GetCapabilities").await?.into_string().await?;
    assert!(doc.contains("xlink:href=\"http://test/api/v1/ogc/wfs?access_token=tok&amp;\""), "{doc}");
    Ok(())
}

#[tokio::test]
async fn describe_feature_type_is_a_schema_of_the_queryables() -> TestResult {
    let f = fixture(WfsLimits::default()).await?;
    let doc = kvp(&f, "service=WFS&version=2.0.0&request=DescribeFeatureType&typeNames=features:parcels").await?;
    well_formed(&doc);
    assert!(doc.contains("targetNamespace=\"urn:meridian:features\""));
    assert!(doc.contains("<xsd:element name=\"lot\" type=\"xsd:string\""));
    assert!(doc.contains("<xsd:element name=\"area_m2\" type=\"xsd:double\""));
    assert!(doc.contains("<xsd:element name=\"updated_at\" type=\"xsd:dateTime\""));
    assert!(doc.contains(
        "<xsd:element name=\"parcels\" type=\"features:parcelsType\" substitutionGroup=\"gml:AbstractFeature\"/>"
    ));
    Ok(())
}

#[tokio::test]
async fn get_feature_pages_with_links_and_counts_hits() -> TestResult {
    let f = fixture(WfsLimits { page: 7, ..WfsLimits::default() }).await?;
    seed(&f, 25).await?;
    let base = "service=WFS&version=2.0.0&request=GetFeature&typeNames=features:parcels&count=10";
    let first = kvp(&f, base).await?;
    let root = well_formed(&first);
    assert_eq!(root.name, "FeatureCollection");
    assert_eq!(root.children_named("member").count(), 10);
    assert_eq!(attr(&first, "numberMatched").as_deref(), Some("25"));
    assert_eq!(attr(&first, "numberReturned").as_deref(), Some("10"));
    let next = attr(&first, "next").ok_or("no next")?.replace("&amp;", "&");
    assert!(next.contains("STARTINDEX=10") && next.contains("COUNT=10"), "{next}");
    assert!(attr(&first, "previous").is_none());
    // Follow the links to the end: every feature once.
    let mut seen: Vec<String> = Vec::new();
    let mut query = base.to_owned();
    loop {
        let doc = kvp(&f, &query).await?;
        let root = well_formed(&doc);
        for m in root.children_named("member") {
            seen.push(m.children[0].attr("id").ok_or("no gml:id")?.to_owned());
        }
        match attr(&doc, "next") {
            Some(n) => query = n.replace("&amp;", "&").split_once('?').ok_or("no query")?.1.to_owned(),
            None => {
                assert!(attr(&doc, "previous").is_some());
                break;
            }
        }
    }
    assert_eq!(seen.len(), 25);
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 25);
    // Hits: the count only.
    let hits = kvp(&f, "service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&resultType=hits").await?;
    assert_eq!(attr(&hits, "numberMatched").as_deref(), Some("25"));
    assert_eq!(attr(&hits, "numberReturned").as_deref(), Some("0"));
    assert!(!hits.contains("<wfs:member>"));
    // A count larger than one store page is streamed over several pages, all of it.
    let all = kvp(&f, "service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&count=20&startIndex=3").await?;
    assert_eq!(well_formed(&all).children_named("member").count(), 20);
    assert_eq!(attr(&all, "numberReturned").as_deref(), Some("20"));
    Ok(())
}

#[tokio::test]
async fn gml_output_is_latitude_first_in_epsg_4326_and_geojson_is_lon_lat() -> TestResult {
    let f = fixture(WfsLimits::default()).await?;
    seed(&f, 1).await?;
    let gml = kvp(&f, "service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels").await?;
    assert!(gml.contains("srsName=\"urn:ogc:def:crs:EPSG::4326\""));
    assert!(gml.contains("<gml:posList srsDimension=\"2\">-33.9 151 "), "{gml}");
    assert!(gml.contains("<features:lot>0</features:lot>") && gml.contains("<features:area_m2>"));
    let crs84 = kvp(
        &f,
        "service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&srsName=http://www.opengis.net/def/crs/OGC/1.3/CRS84",
    )
    .await?;
    assert!(crs84.contains("<gml:posList srsDimension=\"2\">151 -33.9 "), "{crs84}");
    let json: Value = serde_json::from_str(
        &kvp(&f, "service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&outputFormat=application/json")
            .await?,
    )?;
    assert_eq!(json["type"], "FeatureCollection");
    assert_eq!(json["numberMatched"], 1);
    assert_eq!(json["features"][0]["geometry"]["coordinates"][0][0], json!([151.0, -33.9]));
    assert_eq!(json["features"][0]["properties"]["lot"], "0");
    // PROPERTYNAME keeps only what is asked for.
    let only = kvp(&f, "service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&propertyName=lot").await?;
    assert!(only.contains("<features:lot>") && !only.contains("<features:plan>") && !only.contains("<gml:Polygon"));
    Ok(())
}

#[tokio::test]
async fn bbox_with_crs_and_default_axis_order() -> TestResult {
    let f = fixture(WfsLimits::default()).await?;
    seed(&f, 30).await?;
    // The first row (y = -33.9): latitude first by default.
    let lat_first = kvp(&f, "service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&resultType=hits&bbox=-33.901,150.99,-33.894,151.2").await?;
    assert_eq!(attr(&lat_first, "numberMatched").as_deref(), Some("10"));
    let crs84 = kvp(&f, "service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&resultType=hits&bbox=150.99,-33.901,151.2,-33.894,http://www.opengis.net/def/crs/OGC/1.3/CRS84").await?;
    assert_eq!(attr(&crs84, "numberMatched").as_deref(), Some("10"));
    let e = f
        .wfs
        .kvp(&f.ctx, "service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&bbox=150.99,-33.901,151.2,-33.894")
        .await
        .err()
        .ok_or("a lon-lat box read as EPSG:4326 is out of range")?;
    assert_eq!(e.code, ExceptionCode::InvalidParameterValue);
    assert_eq!(e.locator.as_deref(), Some("bbox"));
    Ok(())
}

fn fes_ctx<'a>(q: &'a [(String, &'static str)]) -> FesContext<'a> {
    FesContext { queryables: q, default_crs: Crs::Epsg(4326), limits: XmlLimits::default() }
}

#[test]
fn fes_filters_become_cql2_and_evaluate() -> TestResult {
    let q = meridian_collections::query::parcel_queryables();
    let props = json!({"lot": "12", "plan": "DP1234", "tenure": "Freehold", "area_m2": 650.5})
        .as_object()
        .cloned()
        .ok_or("props")?;
    let geom = geo::Geometry::Polygon(
        meridian_features::Bbox { min_x: 151.0, min_y: -33.9, max_x: 151.01, max_y: -33.89 }.to_polygon(),
    );
    let s = Subject { id: "parcel_a", properties: &props, geometry: Some(&geom), geometry_name: "geometry" };
    let f = |body: &str| -> Result<Option<bool>, String> {
        let text = format!(
            "<fes:Filter xmlns:fes=\"http://www.opengis.net/fes/2.0\" xmlns:gml=\"http://www.opengis.net/gml/3.2\">{body}</fes:Filter>"
        );
        let e = fes::parse_text(&text, &fes_ctx(&q)).map_err(|e| e.to_string())?;
        Ok(cql2::eval(&e, &s))
    };
    let yes = |body: &str| assert_eq!(f(body), Ok(Some(true)), "{body}");
    let no = |body: &str| assert_eq!(f(body), Ok(Some(false)), "{body}");
    yes("<fes:PropertyIsEqualTo><fes:ValueReference>lot</fes:ValueReference><fes:Literal>12</fes:Literal></fes:PropertyIsEqualTo>");
    // Literals take the property's type: `12` is the string "12", 600 the number.
    yes("<fes:PropertyIsGreaterThan><fes:ValueReference>features:area_m2</fes:ValueReference><fes:Literal>600</fes:Literal></fes:PropertyIsGreaterThan>");
    no("<fes:PropertyIsLessThanOrEqualTo><fes:ValueReference>area_m2</fes:ValueReference><fes:Literal>650</fes:Literal></fes:PropertyIsLessThanOrEqualTo>");
    no("<fes:PropertyIsEqualTo><fes:ValueReference>tenure</fes:ValueReference><fes:Literal>freehold</fes:Literal></fes:PropertyIsEqualTo>");
    yes("<fes:PropertyIsEqualTo matchCase=\"false\"><fes:ValueReference>tenure</fes:ValueReference><fes:Literal>freehold</fes:Literal></fes:PropertyIsEqualTo>");
    yes("<fes:PropertyIsLike wildCard=\"*\" singleChar=\"?\" escapeChar=\"\\\"><fes:ValueReference>plan</fes:ValueReference><fes:Literal>DP1?3*</fes:Literal></fes:PropertyIsLike>");
    no("<fes:PropertyIsLike wildCard=\"*\" singleChar=\"?\" escapeChar=\"!\"><fes:ValueReference>plan</fes:ValueReference><fes:Literal>DP!*</fes:Literal></fes:PropertyIsLike>");
    yes("<fes:PropertyIsBetween><fes:ValueReference>area_m2</fes:ValueReference><fes:LowerBoundary><fes:Literal>600</fes:Literal></fes:LowerBoundary><fes:UpperBoundary><fes:Literal>700</fes:Literal></fes:UpperBoundary></fes:PropertyIsBetween>");
    // `updated_at` is a queryable this subject lacks.
    yes("<fes:PropertyIsNull><fes:ValueReference>updated_at</fes:ValueReference></fes:PropertyIsNull>");
    yes("<fes:Not><fes:PropertyIsNull><fes:ValueReference>lot</fes:ValueReference></fes:PropertyIsNull></fes:Not>");
    yes("<fes:And><fes:PropertyIsEqualTo><fes:ValueReference>lot</fes:ValueReference><fes:Literal>12</fes:Literal></fes:PropertyIsEqualTo><fes:Or><fes:PropertyIsEqualTo><fes:ValueReference>plan</fes:ValueReference><fes:Literal>x</fes:Literal></fes:PropertyIsEqualTo><fes:PropertyIsNotEqualTo><fes:ValueReference>plan</fes:ValueReference><fes:Literal>y</fes:Literal></fes:PropertyIsNotEqualTo></fes:Or></fes:And>");
    yes("<fes:ResourceId rid=\"parcel_a\"/><fes:ResourceId rid=\"parcel_b\"/>");
    no("<fes:ResourceId rid=\"parcel_b\"/>");
    // Spatial: EPSG:4326 literals are latitude first, CRS84 longitude first.
    yes("<fes:BBOX><fes:ValueReference>geometry</fes:ValueReference><gml:Envelope srsName=\"urn:ogc:def:crs:EPSG::4326\"><gml:lowerCorner>-33.895 151.005</gml:lowerCorner><gml:upperCorner>-33.8 151.1</gml:upperCorner></gml:Envelope></fes:BBOX>");
    no("<fes:BBOX><gml:Envelope srsName=\"http://www.opengis.net/def/crs/OGC/1.3/CRS84\"><gml:lowerCorner>152 -34</gml:lowerCorner><gml:upperCorner>153 -33</gml:upperCorner></gml:Envelope></fes:BBOX>");
    yes("<fes:Intersects><fes:ValueReference>geometry</fes:ValueReference><gml:Point srsName=\"http://www.opengis.net/def/crs/OGC/1.3/CRS84\"><gml:pos>151.005 -33.895</gml:pos></gml:Point></fes:Intersects>");
    yes("<fes:Within><fes:ValueReference>geometry</fes:ValueReference><gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>-34 150 -34 152 -33 152 -33 150 -34 150</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></fes:Within>");
    yes("<fes:Contains><fes:ValueReference>geometry</fes:ValueReference><gml:Point><gml:pos>-33.895 151.005</gml:pos></gml:Point></fes:Contains>");
    // 1 km east of the parcel's east edge (151.01): about 0.0108° of longitude at this latitude.
    let point = "<gml:Point srsName=\"http://www.opengis.net/def/crs/OGC/1.3/CRS84\"><gml:pos>151.0208 -33.895</gml:pos></gml:Point>";
    yes(&format!("<fes:DWithin><fes:ValueReference>geometry</fes:ValueReference>{point}<fes:Distance uom=\"m\">1100</fes:Distance></fes:DWithin>"));
    no(&format!("<fes:DWithin><fes:ValueReference>geometry</fes:ValueReference>{point}<fes:Distance uom=\"m\">900</fes:Distance></fes:DWithin>"));
    yes(&format!("<fes:Beyond><fes:ValueReference>geometry</fes:ValueReference>{point}<fes:Distance uom=\"km\">0.9</fes:Distance></fes:Beyond>"));
    // Mistakes are errors, not silent non-matches.
    for bad in [
        "<fes:PropertyIsEqualTo><fes:ValueReference>nope</fes:ValueReference><fes:Literal>1</fes:Literal></fes:PropertyIsEqualTo>",
        "<fes:PropertyIsEqualTo><fes:ValueReference>lot</fes:ValueReference></fes:PropertyIsEqualTo>",
        "<fes:Sideways/>",
        "<fes:Intersects><fes:ValueReference>lot</fes:ValueReference><gml:Point><gml:pos>0 0</gml:pos></gml:Point></fes:Intersects>",
        "<fes:DWithin><gml:Point><gml:pos>0 0</gml:pos></gml:Point><fes:Distance uom=\"parsec\">1</fes:Distance></fes:DWithin>",
    ] {
        assert!(f(bad).is_err(), "{bad}");
    }
    Ok(())
}

/// A zigzag line of 500 vertices grown by 5 km (the filter a 12 KB GET can carry) used to take
/// minutes and gigabytes in a general buffer; the grown form is now linear in the vertices, and
/// still exact: a parcel 4.9 km from the line is within 5 km, one 5.1 km away is not. Past
/// `MAX_DISTANCE_VERTICES` the filter is refused with the figure.
#[test]
fn dwithin_a_zigzag_line_is_linear_and_exact() -> TestResult {
    let q = meridian_collections::query::parcel_queryables();
    let props = json!({"lot": "1"}).as_object().cloned().ok_or("props")?;
    let line = |n: usize| -> String {
        // Along latitude -33.9 from longitude 151, 0.0005° apart, zigzagging by 0.01°.
        (0..n)
            .map(|i| format!("{} {}", -33.9 + if i % 2 == 0 { 0.0 } else { 0.01 }, 151.0 + i as f64 * 0.0005))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let filter = |n: usize, d: f64| {
        format!(
            "<fes:Filter xmlns:fes=\"http://www.opengis.net/fes/2.0\" xmlns:gml=\"http://www.opengis.net/gml/3.2\">\
             <fes:DWithin><fes:ValueReference>geometry</fes:ValueReference><gml:LineString srsName=\"urn:ogc:def:crs:EPSG::4326\">\
             <gml:posList>{}</gml:posList></gml:LineString><fes:Distance uom=\"m\">{d}</fes:Distance></fes:DWithin></fes:Filter>",
            line(n)
        )
    };
    let e = fes::parse_text(&filter(500, 5000.0), &fes_ctx(&q)).map_err(|e| e.to_string())?;
    // A point south of the line's lowest latitude (-33.9), 4.9 km and 5.1 km away (1° of latitude
    // is 110.95 km here).
    let at = |metres: f64| geo::Geometry::Point(geo::Point::new(151.1, -33.9 - metres / 110_950.0));
    let near = at(4_900.0);
    let far = at(5_100.0);
    let eval = |g: &geo::Geometry<f64>| {
        cql2::eval(&e, &Subject { id: "p", properties: &props, geometry: Some(g), geometry_name: "geometry" })
    };
    assert_eq!(eval(&near), Some(true));
    assert_eq!(eval(&far), Some(false));
    let refused =
        fes::parse_text(&filter(fes::MAX_DISTANCE_VERTICES + 1, 10.0), &fes_ctx(&q)).err().ok_or("accepted")?;
    assert!(refused.to_string().contains("at most 5000 vertices"), "{refused}");
    Ok(())
}

#[test]
fn xml_limits_refuse_hostile_documents() {
    let limits = XmlLimits { max_bytes: 10_000, max_depth: 16, max_elements: 50 };
    let deep = format!("{}{}", "<a>".repeat(100), "</a>".repeat(100));
    assert!(xml::parse(&deep, &limits).is_err_and(|e| e.0.contains("nested more than 16")));
    let many = format!("<a>{}</a>", "<b/>".repeat(100));
    assert!(xml::parse(&many, &limits).is_err_and(|e| e.0.contains("more than 50 elements")));
    assert!(xml::parse(&"<a>x</a>".repeat(2_000), &limits).is_err_and(|e| e.0.contains("longer than")));
    let entity = "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>";
    assert!(xml::parse(entity, &XmlLimits::default()).is_err());
    assert!(xml::parse("<a><b></a>", &XmlLimits::default()).is_err());
    let ok = xml::parse("<a k=\"1 &amp; 2\">x &lt; y<![CDATA[<z>]]></a>", &XmlLimits::default());
    assert_eq!(ok.map(|e| (e.text, e.attrs)), Ok(("x < y<z>".to_owned(), vec![("k".to_owned(), "1 & 2".to_owned())])));
}

#[tokio::test]
async fn filtered_get_feature_by_kvp_and_post_and_sorting() -> TestResult {
    let f = fixture(WfsLimits::default()).await?;
    seed(&f, 30).await?;
    let filter = "<fes:Filter xmlns:fes=\"http://www.opengis.net/fes/2.0\"><fes:And>\
        <fes:PropertyIsEqualTo><fes:ValueReference>tenure</fes:ValueReference><fes:Literal>freehold</fes:Literal></fes:PropertyIsEqualTo>\
        <fes:PropertyIsEqualTo><fes:ValueReference>plan</fes:ValueReference><fes:Literal>DP0</fes:Literal></fes:PropertyIsEqualTo>\
        </fes:And></fes:Filter>";
    let q = format!(
        "service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&sortBy=lot%20DESC&filter={}",
        form_urlencoded::byte_serialize(filter.as_bytes()).collect::<String>()
    );
    let doc = kvp(&f, &q).await?;
    // lots 0..29 with i % 2 == 0 and i % 3 == 0: 0, 6, 12, 18, 24, sorted as strings descending.
    assert_eq!(attr(&doc, "numberMatched").as_deref(), Some("5"));
    let lots: Vec<String> = well_formed(&doc)
        .children_named("member")
        .filter_map(|m| m.children[0].child("lot").map(|l| l.text.clone()))
        .collect();
    assert_eq!(lots, ["6", "24", "18", "12", "0"]);
    let body = format!(
        "<wfs:GetFeature service=\"WFS\" version=\"2.0.0\" count=\"2\" outputFormat=\"application/json\" \
         xmlns:wfs=\"http://www.opengis.net/wfs/2.0\" xmlns:features=\"urn:meridian:features\">\
         <wfs:Query typeNames=\"features:parcels\">{filter}<fes:SortBy xmlns:fes=\"http://www.opengis.net/fes/2.0\"><fes:SortProperty>\
         <fes:ValueReference>lot</fes:ValueReference><fes:SortOrder>ASC</fes:SortOrder></fes:SortProperty></fes:SortBy></wfs:Query></wfs:GetFeature>"
    );
    let json: Value = serde_json::from_str(&post(&f, &body).await?)?;
    assert_eq!(json["numberMatched"], 5);
    assert_eq!(json["numberReturned"], 2);
    assert_eq!(json["features"][0]["properties"]["lot"], "0");
    assert_eq!(json["features"][1]["properties"]["lot"], "12");
    Ok(())
}

#[tokio::test]
async fn stored_queries_and_property_values() -> TestResult {
    let f = fixture(WfsLimits::default()).await?;
    seed(&f, 3).await?;
    let list = kvp(&f, "service=WFS&version=2.0.0&request=ListStoredQueries").await?;
    assert!(list.contains("urn:ogc:def:query:OGC-WFS::GetFeatureById"));
    let desc = kvp(&f, "service=WFS&version=2.0.0&request=DescribeStoredQueries").await?;
    well_formed(&desc);
    assert!(desc.contains("<wfs:Parameter name=\"ID\""));
    let page = f
        .features
        .list(&f.ctx.account, &ListQuery { collection: PARCELS.into(), limit: 1, ..ListQuery::default() })
        .await?;
    let id = page.features[0].id.clone();
    let one = kvp(
        &f,
        &format!("service=WFS&version=2.0.0&request=GetFeature&storedQuery_Id=urn:ogc:def:query:OGC-WFS::GetFeatureById&ID={id}"),
    )
    .await?;
    let root = well_formed(&one);
    assert_eq!((root.name.as_str(), root.attr("id")), ("parcels", Some(id.as_str())));
    let e = f
        .wfs
        .kvp(&f.ctx, "service=WFS&version=2.0.0&request=GetFeature&storedQuery_Id=urn:ogc:def:query:OGC-WFS::GetFeatureById&ID=parcel_nope")
        .await
        .err()
        .ok_or("missing feature")?;
    assert_eq!((e.code, Service::Wfs.status(e.code)), (ExceptionCode::NotFound, 404));
    let values =
        kvp(&f, "service=WFS&version=2.0.0&request=GetPropertyValue&typeNames=parcels&valueReference=lot&sortBy=lot")
            .await?;
    let root = well_formed(&values);
    assert_eq!(root.name, "ValueCollection");
    let lots: Vec<String> =
        root.children_named("member").filter_map(|m| m.child("lot").map(|l| l.text.clone())).collect();
    assert_eq!(lots, ["0", "1", "2"]);
    Ok(())
}

const T: &str = "xmlns:wfs=\"http://www.opengis.net/wfs/2.0\" xmlns:fes=\"http://www.opengis.net/fes/2.0\" \
    xmlns:gml=\"http://www.opengis.net/gml/3.2\" xmlns:features=\"urn:meridian:features\"";

#[tokio::test]
async fn transactions_go_through_the_write_path() -> TestResult {
    let f = fixture(WfsLimits::default()).await?;
    let insert = format!(
        "<wfs:Transaction service=\"WFS\" version=\"2.0.0\" {T}><wfs:Insert handle=\"new\"><features:parcels>\
         <features:geometry><gml:Polygon srsName=\"urn:ogc:def:crs:EPSG::4326\"><gml:exterior><gml:LinearRing><gml:posList>\
         -33.87 151.2 -33.87 151.201 -33.869 151.201 -33.869 151.2 -33.87 151.2</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></features:geometry>\
         <features:lot>7</features:lot><features:plan>DP9</features:plan><features:tenure>freehold</features:tenure></features:parcels></wfs:Insert></wfs:Transaction>"
    );
    // A read-only credential may not change features.
    let reader = Context { may_write: false, ..f.ctx.clone() };
    let e = f.wfs.xml(&reader, &insert).await.err().ok_or("a read-only transaction was accepted")?;
    assert_eq!((e.code, e.locator.as_deref()), (ExceptionCode::OperationProcessingFailed, Some("Transaction")));
    let answer = post(&f, &insert).await?;
    well_formed(&answer);
    assert!(answer.contains("<wfs:totalInserted>1</wfs:totalInserted>"), "{answer}");
    let id = attr(&answer, "rid").ok_or("no rid")?;
    let stored = f.features.feature(&f.ctx.account, PARCELS, &id).await?;
    assert_eq!(stored.properties["lot"], "7");
    // Stored longitude first, area computed by the server.
    assert_eq!(stored.geometry.as_ref().map(|g| g["coordinates"][0][0].clone()), Some(json!([151.2, -33.87])));
    assert!(stored.properties["area_m2"].as_f64().is_some_and(|a| a > 10_000.0));
    // The same (lot, plan) again: refused, nothing written.
    let e = f.wfs.xml(&f.ctx, &insert).await.err().ok_or("duplicate accepted")?;
    assert_eq!(e.code, ExceptionCode::OperationProcessingFailed);
    // All or nothing: a valid parcel (lot 8) beside the duplicate is not written either.
    let lot8 = insert
        .replace("<features:lot>7</features:lot>", "<features:lot>8</features:lot>")
        .replace("handle=\"new\"", "handle=\"fine\"");
    let both = format!(
        "{}{}",
        &lot8[..lot8.find("</wfs:Transaction>").ok_or("no end")?],
        &insert[insert.find("<wfs:Insert").ok_or("no insert")?..]
    );
    let e = f.wfs.xml(&f.ctx, &both).await.err().ok_or("a transaction with a duplicate was accepted")?;
    assert_eq!(e.code, ExceptionCode::OperationProcessingFailed);
    let mut page = f
        .features
        .list(&f.ctx.account, &ListQuery { collection: PARCELS.into(), limit: 100, ..ListQuery::default() })
        .await?;
    let features = page.take_features()?;
    let lots: Vec<&str> = features.iter().filter_map(|p| p.properties["lot"].as_str()).collect();
    assert_eq!(lots, ["7"], "an action of a failed transaction was kept");
    // An invalid feature: InvalidValue naming the action, nothing written.
    let invalid = insert.replace("<features:lot>7</features:lot>", "").replace("handle=\"new\"", "handle=\"broken\"");
    let e = f.wfs.xml(&f.ctx, &invalid).await.err().ok_or("invalid accepted")?;
    assert_eq!((e.code, e.locator.as_deref()), (ExceptionCode::InvalidValue, Some("broken/parcels[0]")));

    let update = format!(
        "<wfs:Transaction service=\"WFS\" version=\"2.0.0\" {T}><wfs:Update typeName=\"features:parcels\">\
         <wfs:Property><wfs:ValueReference>tenure</wfs:ValueReference><wfs:Value>leasehold</wfs:Value></wfs:Property>\
         <fes:Filter><fes:ResourceId rid=\"{id}\"/></fes:Filter></wfs:Update></wfs:Transaction>"
    );
    let answer = post(&f, &update).await?;
    assert!(answer.contains("<wfs:totalUpdated>1</wfs:totalUpdated>"), "{answer}");
    let stored = f.features.feature(&f.ctx.account, PARCELS, &id).await?;
    assert_eq!((stored.properties["tenure"].as_str(), stored.version), (Some("leasehold"), 2));

    let delete = format!(
        "<wfs:Transaction service=\"WFS\" version=\"2.0.0\" {T}><wfs:Delete typeName=\"features:parcels\"><fes:Filter>\
         <fes:PropertyIsEqualTo><fes:ValueReference>lot</fes:ValueReference><fes:Literal>7</fes:Literal></fes:PropertyIsEqualTo>\
         </fes:Filter></wfs:Delete></wfs:Transaction>"
    );
    let answer = post(&f, &delete).await?;
    assert!(answer.contains("<wfs:totalDeleted>1</wfs:totalDeleted>"), "{answer}");
    assert!(f.features.feature(&f.ctx.account, PARCELS, &id).await.is_err());
    let history = f.features.history(&f.ctx.account, PARCELS, &id).await?;
    let changes: Vec<&str> = history.iter().map(|v| v.change.as_str()).collect();
    assert_eq!(changes, ["registered", "updated", "retired"]);
    let (events, _) =
        f.store.outbox.list_events(&f.ctx.account, &Default::default(), Page::new(Some(10), None, 10, 100)?).await?;
    let mut kinds: Vec<&str> = events.iter().map(|e| e.event_type.as_str()).collect();
    kinds.reverse();
    assert_eq!(kinds, ["cadastre.parcel.registered", "cadastre.parcel.updated", "cadastre.parcel.retired"]);
    Ok(())
}

#[tokio::test]
async fn exception_codes() -> TestResult {
    let f = fixture(WfsLimits::default()).await?;
    let code = |q: &'static str| {
        let f = &f;
        async move { f.wfs.kvp(&f.ctx, q).await.err().map(|e| (e.code, e.locator, Service::Wfs.status(e.code))) }
    };
    assert_eq!(code("service=WFS").await, Some((ExceptionCode::MissingParameterValue, Some("request".into()), 400)));
    assert_eq!(
        code("request=GetCapabilities").await,
        Some((ExceptionCode::MissingParameterValue, Some("service".into()), 400))
    );
    assert_eq!(
        code("service=WFS&request=GetFeature&typeNames=parcels").await.map(|c| c.0),
        Some(ExceptionCode::MissingParameterValue)
    );
    assert_eq!(
        code("service=WFS&version=1.1.0&request=GetFeature&typeNames=parcels").await.map(|c| c.0),
        Some(ExceptionCode::InvalidParameterValue)
    );
    assert_eq!(
        code("service=WFS&version=2.0.0&request=GetFeature&typeNames=nothing").await.map(|c| c.0),
        Some(ExceptionCode::InvalidParameterValue)
    );
    assert_eq!(
        code("service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&count=-1").await.map(|c| c.0),
        Some(ExceptionCode::InvalidParameterValue)
    );
    assert_eq!(
        code("service=WFS&version=2.0.0&request=LockFeature").await.map(|c| (c.0, c.2)),
        Some((ExceptionCode::OperationNotSupported, 501))
    );
    assert_eq!(
        code("service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&filter=%3Cfes:Filter").await.map(|c| c.0),
        Some(ExceptionCode::OperationParsingFailed)
    );
    assert_eq!(
        code("service=WFS&request=GetCapabilities&acceptVersions=1.0.0").await.map(|c| c.0),
        Some(ExceptionCode::VersionNegotiationFailed)
    );
    // Keys in any case.
    assert!(f.wfs.kvp(&f.ctx, "SeRvIcE=WFS&ReQuEsT=GetCapabilities").await.is_ok());
    let e = f.wfs.xml(&f.ctx, "<wfs:GetFeature").await.err().ok_or("parsed")?;
    assert_eq!(e.code, ExceptionCode::OperationParsingFailed);
    let report = Service::Wfs.report(&e);
    well_formed(&report);
    assert!(report.contains("exceptionCode=\"OperationParsingFailed\""));
    // An internal failure is NoApplicableCode and says nothing about it.
    let internal = OgcError::internal_from("disk on fire");
    assert_eq!((internal.code, Service::Wfs.status(internal.code)), (ExceptionCode::NoApplicableCode, 500));
    assert!(!Service::Wfs.report(&internal).contains("disk"));
    Ok(())
}
