//! WFS 2.0 (OGC 09-025r2) over the feature service: the Simple, Basic and Transactional
//! conformance classes, in KVP (GET) and XML (POST) encodings, without HTTP.
//!
//! [`WfsService`] reads a request ([`WfsService::kvp`] or [`WfsService::xml`]) for one account
//! and answers with a [`Response`]: a document, or a [`FeatureStream`] that writes GML 3.2 or
//! GeoJSON one page of features at a time. Every collection of the account (the cadastre's
//! parcels and every uploaded collection) is a feature type; filters (FES 2.0) become the CQL2
//! tree the feature service evaluates; transactions go through the feature service's write path
//! (validation, history, events, versions). Requests are read with the shared KVP parser
//! ([`crate::kvp`]) and CRS names ([`crate::srs`]); errors are [`OgcError`]s, answered with
//! [`crate::ows::Service::Wfs`]'s statuses and OWS 1.1 exception reports.

pub mod capabilities;
pub mod fes;
pub mod getfeature;
pub mod gml;
pub mod request;
pub mod transaction;
pub mod xml;

use crate::kvp::KvpLimits;
use crate::ows::{OgcError, OgcResult};
use meridian_collections::FeatureService;
use meridian_core::crs::Crs;
use meridian_core::id::AccountId;
use meridian_store::features::FeatureCollection;
use std::sync::Arc;

pub use getfeature::FeatureStream;
pub use request::Operation;

/// WFS 2.0 namespace.
pub const WFS_NS: &str = "http://www.opengis.net/wfs/2.0";
/// FES 2.0 namespace.
pub const FES_NS: &str = "http://www.opengis.net/fes/2.0";
/// GML 3.2 namespace.
pub const GML_NS: &str = "http://www.opengis.net/gml/3.2";

/// The CRS of answers when a request names none, as WFS 2.0 servers commonly default to.
pub const DEFAULT_CRS: Crs = Crs::Epsg(4326);

/// The namespace of feature types, and its prefix in documents.
pub const NS: &str = "urn:meridian:features";
pub const PREFIX: &str = "features";

/// Media types.
pub const GML32: &str = "application/gml+xml; version=3.2";
pub const XML: &str = "application/xml";
pub const JSON: &str = "application/json";

/// The stored query every WFS 2.0 server offers.
pub const GET_FEATURE_BY_ID: &str = "urn:ogc:def:query:OGC-WFS::GetFeatureById";

/// Bounds of the service.
#[derive(Clone, Copy, Debug)]
pub struct WfsLimits {
    /// KVP requests (GET, or form-encoded POST). A FES filter travels in one value, so values
    /// may be as long as a request body.
    pub kvp: KvpLimits,
    pub xml: xml::XmlLimits,
    /// Features in an answer when the request sets no COUNT (advertised as `CountDefault`).
    pub count_default: u32,
    /// Most features in one answer, whatever COUNT says.
    pub count_max: u32,
    /// Features read from the store per page of a streamed answer.
    pub page: u32,
    /// Most features one transaction action may change.
    pub max_changes: u32,
}

impl Default for WfsLimits {
    fn default() -> Self {
        Self {
            kvp: KvpLimits { max_bytes: 2 << 20, max_pairs: 64, max_value_bytes: 2 << 20 },
            xml: xml::XmlLimits::default(),
            count_default: 1_000,
            count_max: 10_000,
            page: 500,
            max_changes: 10_000,
        }
    }
}

/// Who asks and how they reached the service.
#[derive(Clone, Debug)]
pub struct Context {
    pub account: AccountId,
    /// The service's absolute URL without a query (`http://host/api/v1/ogc/wfs`).
    pub service_url: String,
    /// Query parameters every URL written in answers must carry (an `access_token`).
    pub carry: Vec<(String, String)>,
    /// Whether the caller may change features (a Transaction); queries need only reading.
    pub may_write: bool,
}

impl Context {
    /// A GET URL of the service with `params` and the carried parameters.
    pub fn url(&self, params: &[(&str, &str)]) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        for (k, v) in params {
            q.append_pair(k, v);
        }
        for (k, v) in &self.carry {
            q.append_pair(k, v);
        }
        format!("{}?{}", self.service_url, q.finish())
    }

    /// The base URL for OperationsMetadata (`...?` plus the carried parameters).
    pub fn operation_url(&self) -> String {
        if self.carry.is_empty() {
            return format!("{}?", self.service_url);
        }
        let mut q = form_urlencoded::Serializer::new(String::new());
        for (k, v) in &self.carry {
            q.append_pair(k, v);
        }
        format!("{}?{}&", self.service_url, q.finish())
    }
}

/// An answer's body.
pub enum Body {
    Text(String),
    Features(Box<FeatureStream>),
}

/// An answer.
pub struct Response {
    pub content_type: &'static str,
    pub body: Body,
}

impl Response {
    fn text(content_type: &'static str, body: String) -> Self {
        Self { content_type, body: Body::Text(body) }
    }

    /// The whole body as a string (tests, small answers): a stream is read to its end.
    pub async fn into_string(self) -> OgcResult<String> {
        match self.body {
            Body::Text(s) => Ok(s),
            Body::Features(mut s) => {
                let mut out = String::new();
                while let Some(chunk) = s.next_chunk().await? {
                    out.push_str(&chunk);
                }
                Ok(out)
            }
        }
    }
}

/// A feature type: a collection of the account under its XML name, with the properties its
/// schema declares (scalar queryables whose names are XML names) and their JSON types.
#[derive(Clone, Debug)]
pub struct FeatureType {
    pub collection: FeatureCollection,
    pub name: String,
    pub properties: Vec<(String, &'static str)>,
    pub queryables: Vec<(String, &'static str)>,
}

impl FeatureType {
    /// Whether every geometry of the type is a (multi)polygon, declared and written as
    /// `gml:MultiSurface` so that clients (GDAL, QGIS) know the layer's geometry type: the
    /// cadastre's parcels. Other collections may mix kinds and declare `gml:Geometry`.
    pub fn multi_surface(&self) -> bool {
        self.collection.id == meridian_collections::PARCELS
    }

    /// The qualified name (`features:parcels`).
    pub fn qname(&self) -> String {
        format!("{PREFIX}:{}", self.name)
    }
}

/// The XML name of a collection: its id, with `_` in front when the id cannot start a name.
pub fn type_name(collection: &str) -> String {
    if xml::is_ncname(collection) {
        collection.to_owned()
    } else {
        format!("_{collection}")
    }
}

/// The WFS service of one platform.
#[derive(Clone)]
pub struct WfsService {
    features: Arc<FeatureService>,
    limits: WfsLimits,
}

impl WfsService {
    pub fn new(features: Arc<FeatureService>, limits: WfsLimits) -> Self {
        Self { features, limits }
    }

    pub fn features(&self) -> &FeatureService {
        &self.features
    }

    pub fn limits(&self) -> &WfsLimits {
        &self.limits
    }

    /// Answers a KVP (GET) request given as its raw query string.
    pub async fn kvp(&self, ctx: &Context, raw_query: &str) -> OgcResult<Response> {
        let op = request::from_kvp(raw_query, &self.limits)?;
        self.execute(ctx, op).await
    }

    /// Answers an XML (POST) request.
    pub async fn xml(&self, ctx: &Context, body: &str) -> OgcResult<Response> {
        let op = request::from_xml(body, &self.limits)?;
        self.execute(ctx, op).await
    }

    /// Whether a request changes data (the caller needs write access for it).
    pub fn is_write(op: &Operation) -> bool {
        matches!(op, Operation::Transaction(_))
    }

    /// Answers a parsed request.
    pub async fn execute(&self, ctx: &Context, op: Operation) -> OgcResult<Response> {
        match op {
            Operation::GetCapabilities { sections } => {
                let types = self.feature_types(&ctx.account).await?;
                let doc = capabilities::capabilities(self, ctx, &types, sections.as_deref()).await?;
                Ok(Response::text(XML, doc))
            }
            Operation::DescribeFeatureType { type_names } => {
                let all = self.feature_types(&ctx.account).await?;
                let chosen = match type_names {
                    None => all,
                    Some(names) => {
                        names.iter().map(|n| find_type(&all, n, "typeNames").cloned()).collect::<OgcResult<Vec<_>>>()?
                    }
                };
                Ok(Response::text(XML, capabilities::schema(&chosen)))
            }
            Operation::ListStoredQueries => {
                let types = self.feature_types(&ctx.account).await?;
                Ok(Response::text(XML, capabilities::list_stored_queries(&types)))
            }
            Operation::DescribeStoredQueries { ids } => {
                let types = self.feature_types(&ctx.account).await?;
                Ok(Response::text(XML, capabilities::describe_stored_queries(&types, ids.as_deref())?))
            }
            Operation::GetFeature(req) => getfeature::get_feature(self, ctx, req, None).await,
            Operation::GetPropertyValue { request, value_reference } => {
                getfeature::get_feature(self, ctx, request, Some(value_reference)).await
            }
            Operation::Transaction(t) => transaction::execute(self, ctx, t).await,
        }
    }

    /// Every feature type of an account, in collection order (parcels first).
    pub async fn feature_types(&self, account: &AccountId) -> OgcResult<Vec<FeatureType>> {
        let collections =
            self.features.collections(account).await.map_err(|e| OgcError::from_features(e, "typeNames"))?;
        let mut out = Vec::with_capacity(collections.len());
        for c in collections {
            out.push(self.feature_type_of(account, c).await?);
        }
        Ok(out)
    }

    async fn feature_type_of(&self, account: &AccountId, c: FeatureCollection) -> OgcResult<FeatureType> {
        let queryables =
            self.features.queryables(account, &c.id).await.map_err(|e| OgcError::from_features(e, "typeNames"))?;
        let mut properties: Vec<(String, &'static str)> = Vec::new();
        for (name, kind) in &queryables {
            if name == "geometry" || name == "id" || !xml::is_ncname(name) || properties.iter().any(|(n, _)| n == name)
            {
                continue;
            }
            properties.push((name.clone(), kind));
        }
        // `updated_at` is kept by the server for every feature: last, as in the cadastre's list.
        if let Some(i) = properties.iter().position(|(n, _)| n == "updated_at") {
            let p = properties.remove(i);
            properties.push(p);
        }
        Ok(FeatureType { name: type_name(&c.id), collection: c, properties, queryables })
    }

    /// One feature type by the name a request gave (`features:parcels`, `parcels`, `{ns}parcels`).
    pub async fn feature_type(&self, account: &AccountId, name: &str, locator: &str) -> OgcResult<FeatureType> {
        let all = self.feature_types(account).await?;
        find_type(&all, name, locator).cloned()
    }
}

/// The local part of a qualified type name.
pub fn local_name(name: &str) -> &str {
    let n = name.trim();
    let n = n.rsplit('}').next().unwrap_or(n);
    n.rsplit(':').next().unwrap_or(n)
}

/// Finds a type by a request's name; another tenant's types are as unknown as missing ones.
pub fn find_type<'a>(all: &'a [FeatureType], name: &str, locator: &str) -> OgcResult<&'a FeatureType> {
    let local = local_name(name);
    all.iter()
        .find(|t| t.name == local || t.collection.id == local)
        .ok_or_else(|| OgcError::invalid(locator, format!("`{name}` is not a feature type of this service")))
}
