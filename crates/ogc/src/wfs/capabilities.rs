//! The service's self-description: the capabilities document (with the conformance constraints
//! clients such as GDAL drive their behaviour from), the XML Schema of feature types, and the
//! stored query documents.

use super::{
    Context, FeatureType, WfsService, DEFAULT_CRS, FES_NS, GET_FEATURE_BY_ID, GML32, GML_NS, JSON, NS, PREFIX, WFS_NS,
};
use crate::ows::{escape, OgcError, OgcResult, OWS_NS, XLINK_NS, XSD_NS, XSI_NS};
use crate::srs;
use std::fmt::Write;

/// The conformance constraints of the service (OGC 09-025r2 table 13), declared as implemented.
pub const SERVICE_CONSTRAINTS: &[(&str, bool)] = &[
    ("ImplementsBasicWFS", true),
    ("ImplementsTransactionalWFS", true),
    ("ImplementsLockingWFS", false),
    ("KVPEncoding", true),
    ("XMLEncoding", true),
    ("SOAPEncoding", false),
    ("ImplementsInheritance", false),
    ("ImplementsRemoteResolve", false),
    ("ImplementsResultPaging", true),
    ("ImplementsStandardJoins", false),
    ("ImplementsSpatialJoins", false),
    ("ImplementsTemporalJoins", false),
    ("ImplementsFeatureVersioning", false),
    ("ManageStoredQueries", false),
];

/// The filter conformance constraints (OGC 09-026r2 table 1).
pub const FILTER_CONSTRAINTS: &[(&str, bool)] = &[
    ("ImplementsQuery", true),
    ("ImplementsAdHocQuery", true),
    ("ImplementsFunctions", false),
    ("ImplementsResourceId", true),
    ("ImplementsMinStandardFilter", true),
    ("ImplementsStandardFilter", true),
    ("ImplementsMinSpatialFilter", true),
    ("ImplementsSpatialFilter", true),
    ("ImplementsMinTemporalFilter", false),
    ("ImplementsTemporalFilter", false),
    ("ImplementsVersionNav", false),
    ("ImplementsSorting", true),
    ("ImplementsExtendedOperators", false),
    ("ImplementsMinimumXPath", true),
    ("ImplementsSchemaElementFunc", false),
];

const COMPARISON: &[&str] = &[
    "PropertyIsEqualTo",
    "PropertyIsNotEqualTo",
    "PropertyIsLessThan",
    "PropertyIsGreaterThan",
    "PropertyIsLessThanOrEqualTo",
    "PropertyIsGreaterThanOrEqualTo",
    "PropertyIsLike",
    "PropertyIsNull",
    "PropertyIsNil",
    "PropertyIsBetween",
];

const SPATIAL: &[&str] = &[
    "BBOX",
    "Equals",
    "Disjoint",
    "Touches",
    "Within",
    "Overlaps",
    "Crosses",
    "Intersects",
    "Contains",
    "DWithin",
    "Beyond",
];

const GEOMETRY_OPERANDS: &[&str] = &[
    "gml:Envelope",
    "gml:Point",
    "gml:LineString",
    "gml:Curve",
    "gml:Polygon",
    "gml:Surface",
    "gml:MultiPoint",
    "gml:MultiCurve",
    "gml:MultiSurface",
    "gml:MultiGeometry",
];

/// A constraint with a default value: `ows:Constraint` in `ows:OperationsMetadata`,
/// `fes:Constraint` (also an `ows:DomainType`) in `fes:Conformance`, as the schemas require.
fn constraint(out: &mut String, element: &str, name: &str, value: &str) {
    let _ = write!(
        out,
        "<{element} name=\"{name}\"><ows:NoValues/><ows:DefaultValue>{value}</ows:DefaultValue></{element}>"
    );
}

fn allowed(out: &mut String, name: &str, values: &[&str]) {
    let _ = write!(out, "<ows:Parameter name=\"{name}\"><ows:AllowedValues>");
    for v in values {
        let _ = write!(out, "<ows:Value>{}</ows:Value>", escape(v));
    }
    out.push_str("</ows:AllowedValues></ows:Parameter>");
}

fn operation(out: &mut String, name: &str, url: &str, get: bool, params: &[(&str, &[&str])]) {
    let _ = write!(out, "<ows:Operation name=\"{name}\"><ows:DCP><ows:HTTP>");
    let href = escape(url);
    if get {
        let _ = write!(out, "<ows:Get xlink:href=\"{href}\"/>");
    }
    let _ = write!(out, "<ows:Post xlink:href=\"{href}\"/></ows:HTTP></ows:DCP>");
    for (p, values) in params {
        allowed(out, p, values);
    }
    out.push_str("</ows:Operation>\n");
}

fn wanted(sections: Option<&[String]>, name: &str) -> bool {
    match sections {
        None => true,
        Some(list) => list.iter().any(|s| s.eq_ignore_ascii_case(name) || s.eq_ignore_ascii_case("All")),
    }
}

/// The GetCapabilities document for an account's feature types.
pub async fn capabilities(
    svc: &WfsService,
    ctx: &Context,
    types: &[FeatureType],
    sections: Option<&[String]>,
) -> OgcResult<String> {
    let url = ctx.operation_url();
    let mut out = String::with_capacity(16 * 1024);
    let _ = write!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<wfs:WFS_Capabilities version=\"2.0.0\" xmlns:wfs=\"{WFS_NS}\" \
         xmlns:ows=\"{OWS_NS}\" xmlns:fes=\"{FES_NS}\" xmlns:gml=\"{GML_NS}\" xmlns:xlink=\"{XLINK_NS}\" \
         xmlns:xsi=\"{XSI_NS}\" xmlns:{PREFIX}=\"{NS}\" \
         xsi:schemaLocation=\"{WFS_NS} http://schemas.opengis.net/wfs/2.0/wfs.xsd\">\n"
    );
    if wanted(sections, "ServiceIdentification") {
        out.push_str(
            "<ows:ServiceIdentification><ows:Title>Meridian WFS</ows:Title>\
             <ows:Abstract>Cadastral parcels and the feature collections of this account</ows:Abstract>\
             <ows:ServiceType>WFS</ows:ServiceType><ows:ServiceTypeVersion>2.0.0</ows:ServiceTypeVersion>\
             <ows:Fees>NONE</ows:Fees><ows:AccessConstraints>NONE</ows:AccessConstraints>\
             </ows:ServiceIdentification>\n",
        );
    }
    if wanted(sections, "ServiceProvider") {
        out.push_str(
            "<ows:ServiceProvider><ows:ProviderName>Meridian</ows:ProviderName><ows:ServiceContact/></ows:ServiceProvider>\n",
        );
    }
    if wanted(sections, "OperationsMetadata") {
        let type_names: Vec<String> = types.iter().map(FeatureType::qname).collect();
        let type_refs: Vec<&str> = type_names.iter().map(String::as_str).collect();
        let formats: &[&str] = &[GML32, "text/xml; subtype=gml/3.2", JSON];
        out.push_str("<ows:OperationsMetadata>\n");
        operation(
            &mut out,
            "GetCapabilities",
            &url,
            true,
            &[("AcceptVersions", &["2.0.0"]), ("AcceptFormats", &["text/xml"])],
        );
        operation(&mut out, "DescribeFeatureType", &url, true, &[("outputFormat", &[GML32])]);
        operation(
            &mut out,
            "GetFeature",
            &url,
            true,
            &[("resultType", &["results", "hits"]), ("outputFormat", formats)],
        );
        operation(&mut out, "GetPropertyValue", &url, true, &[("resolve", &["none"]), ("outputFormat", &[GML32])]);
        operation(&mut out, "ListStoredQueries", &url, true, &[]);
        operation(&mut out, "DescribeStoredQueries", &url, true, &[]);
        operation(&mut out, "Transaction", &url, false, &[("inputFormat", &[GML32]), ("releaseAction", &["ALL"])]);
        allowed(&mut out, "version", &["2.0.0"]);
        let _ = type_refs;
        for (name, on) in SERVICE_CONSTRAINTS {
            constraint(&mut out, "ows:Constraint", name, if *on { "TRUE" } else { "FALSE" });
        }
        constraint(&mut out, "ows:Constraint", "CountDefault", &svc.limits().count_default.to_string());
        out.push_str(
            "<ows:Constraint name=\"QueryExpressions\"><ows:AllowedValues><ows:Value>wfs:Query</ows:Value>\
             <ows:Value>wfs:StoredQuery</ows:Value></ows:AllowedValues></ows:Constraint>\n</ows:OperationsMetadata>\n",
        );
    }
    if wanted(sections, "FeatureTypeList") {
        out.push_str("<wfs:FeatureTypeList>\n");
        for t in types {
            let _ = write!(
                out,
                "<wfs:FeatureType><wfs:Name>{}</wfs:Name><wfs:Title>{}</wfs:Title><wfs:Abstract>{}</wfs:Abstract>\
                 <wfs:DefaultCRS>{}</wfs:DefaultCRS>",
                escape(&t.qname()),
                escape(&t.collection.title),
                escape(&t.collection.description),
                srs::urn(DEFAULT_CRS)
            );
            for crs in meridian_core::crs::ADVERTISED.iter().filter(|c| **c != DEFAULT_CRS) {
                let _ = write!(out, "<wfs:OtherCRS>{}</wfs:OtherCRS>", srs::urn(*crs));
            }
            let _ = write!(
                out,
                "<wfs:OutputFormats><wfs:Format>{GML32}</wfs:Format><wfs:Format>{JSON}</wfs:Format></wfs:OutputFormats>"
            );
            let extent = svc
                .features()
                .extent(&ctx.account, &t.collection.id)
                .await
                .map_err(|e| OgcError::from_features(e, "GetCapabilities"))?;
            if let Some([x0, y0, x1, y1]) = extent.bbox {
                let _ = write!(
                    out,
                    "<ows:WGS84BoundingBox><ows:LowerCorner>{x0} {y0}</ows:LowerCorner>\
                     <ows:UpperCorner>{x1} {y1}</ows:UpperCorner></ows:WGS84BoundingBox>"
                );
            }
            out.push_str("</wfs:FeatureType>\n");
        }
        out.push_str("</wfs:FeatureTypeList>\n");
    }
    if wanted(sections, "Filter_Capabilities") {
        out.push_str("<fes:Filter_Capabilities><fes:Conformance>");
        for (name, on) in FILTER_CONSTRAINTS {
            constraint(&mut out, "fes:Constraint", name, if *on { "TRUE" } else { "FALSE" });
        }
        out.push_str("</fes:Conformance>\n<fes:Id_Capabilities><fes:ResourceIdentifier name=\"fes:ResourceId\"/></fes:Id_Capabilities>\n");
        out.push_str("<fes:Scalar_Capabilities><fes:LogicalOperators/><fes:ComparisonOperators>");
        for c in COMPARISON {
            let _ = write!(out, "<fes:ComparisonOperator name=\"{c}\"/>");
        }
        out.push_str(
            "</fes:ComparisonOperators></fes:Scalar_Capabilities>\n<fes:Spatial_Capabilities><fes:GeometryOperands>",
        );
        for g in GEOMETRY_OPERANDS {
            let _ = write!(out, "<fes:GeometryOperand name=\"{g}\"/>");
        }
        out.push_str("</fes:GeometryOperands><fes:SpatialOperators>");
        for s in SPATIAL {
            let _ = write!(out, "<fes:SpatialOperator name=\"{s}\"/>");
        }
        out.push_str("</fes:SpatialOperators></fes:Spatial_Capabilities>\n</fes:Filter_Capabilities>\n");
    }
    out.push_str("</wfs:WFS_Capabilities>\n");
    Ok(out)
}

fn xsd_type(kind: &str, name: &str) -> &'static str {
    match (kind, name) {
        (_, "updated_at") => "xsd:dateTime",
        ("number", _) => "xsd:double",
        ("boolean", _) => "xsd:boolean",
        _ => "xsd:string",
    }
}

/// The XML Schema of feature types (DescribeFeatureType): each type extends
/// `gml:AbstractFeatureType` with an optional `geometry` and its queryable properties.
pub fn schema(types: &[FeatureType]) -> String {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xsd:schema xmlns:xsd=\"{XSD_NS}\" xmlns:gml=\"{GML_NS}\" \
         xmlns:{PREFIX}=\"{NS}\" targetNamespace=\"{NS}\" elementFormDefault=\"qualified\" version=\"1.0\">\n\
         <xsd:import namespace=\"{GML_NS}\" schemaLocation=\"http://schemas.opengis.net/gml/3.2.1/gml.xsd\"/>\n"
    );
    for t in types {
        let geometry = if t.multi_surface() { "gml:MultiSurfacePropertyType" } else { "gml:GeometryPropertyType" };
        let _ = write!(
            out,
            "<xsd:complexType name=\"{n}Type\"><xsd:complexContent><xsd:extension base=\"gml:AbstractFeatureType\">\
             <xsd:sequence>\n<xsd:element name=\"geometry\" type=\"{geometry}\" minOccurs=\"0\" nillable=\"true\"/>\n",
            n = t.name
        );
        for (p, kind) in &t.properties {
            let _ = writeln!(
                out,
                "<xsd:element name=\"{p}\" type=\"{}\" minOccurs=\"0\" nillable=\"true\"/>",
                xsd_type(kind, p)
            );
        }
        let _ = write!(
            out,
            "</xsd:sequence></xsd:extension></xsd:complexContent></xsd:complexType>\n\
             <xsd:element name=\"{n}\" type=\"{PREFIX}:{n}Type\" substitutionGroup=\"gml:AbstractFeature\"/>\n",
            n = t.name
        );
    }
    out.push_str("</xsd:schema>\n");
    out
}

fn return_types(types: &[FeatureType]) -> String {
    types.iter().map(FeatureType::qname).collect::<Vec<_>>().join(" ")
}

/// ListStoredQueries.
pub fn list_stored_queries(types: &[FeatureType]) -> String {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<wfs:ListStoredQueriesResponse xmlns:wfs=\"{WFS_NS}\" \
         xmlns:{PREFIX}=\"{NS}\"><wfs:StoredQuery id=\"{GET_FEATURE_BY_ID}\"><wfs:Title>Get feature by identifier</wfs:Title>"
    );
    for t in types {
        let _ = write!(out, "<wfs:ReturnFeatureType>{}</wfs:ReturnFeatureType>", t.qname());
    }
    out.push_str("</wfs:StoredQuery></wfs:ListStoredQueriesResponse>\n");
    out
}

/// DescribeStoredQueries.
pub fn describe_stored_queries(types: &[FeatureType], ids: Option<&[String]>) -> OgcResult<String> {
    if let Some(ids) = ids {
        if let Some(bad) = ids.iter().find(|i| i.as_str() != GET_FEATURE_BY_ID) {
            return Err(OgcError::invalid("storedQuery_Id", format!("{bad} is not a stored query of this service")));
        }
    }
    Ok(format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<wfs:DescribeStoredQueriesResponse xmlns:wfs=\"{WFS_NS}\" \
         xmlns:xsd=\"{XSD_NS}\" xmlns:{PREFIX}=\"{NS}\"><wfs:StoredQueryDescription id=\"{GET_FEATURE_BY_ID}\">\
         <wfs:Title>Get feature by identifier</wfs:Title><wfs:Abstract>Returns the single feature whose identifier is ID</wfs:Abstract>\
         <wfs:Parameter name=\"ID\" type=\"xsd:string\"/>\
         <wfs:QueryExpressionText isPrivate=\"true\" language=\"urn:ogc:def:queryLanguage:OGC-WFS::WFSQueryExpression\" \
         returnFeatureTypes=\"{}\"/></wfs:StoredQueryDescription></wfs:DescribeStoredQueriesResponse>\n",
        return_types(types)
    ))
}
