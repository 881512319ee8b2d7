//! OGC Web Services Common (OWS 1.1) pieces shared by WMS, WMTS and WFS: exception codes, the
//! error type every request parser returns, how each service answers an error (its HTTP status
//! policy and its exception report document), XML escaping and a small writer for capabilities
//! documents, and the `ows:ServiceIdentification`, `ows:ServiceProvider` and
//! `ows:OperationsMetadata` sections.

use meridian_collections::Error as FeatureError;
use meridian_core::DomainError;
use std::borrow::Cow;
use std::fmt::Write as _;

/// OWS 1.1 namespace.
pub const OWS_NS: &str = "http://www.opengis.net/ows/1.1";
/// XLink namespace.
pub const XLINK_NS: &str = "http://www.w3.org/1999/xlink";
/// XML Schema instance namespace.
pub const XSI_NS: &str = "http://www.w3.org/2001/XMLSchema-instance";
/// XML Schema namespace.
pub const XSD_NS: &str = "http://www.w3.org/2001/XMLSchema";

/// The exception codes of WMS 1.3.0 (Annex A.3), OWS Common 1.1 (Table 25) and WFS 2.0
/// (OGC 09-025r2 Table 3), plus WMTS's `TileOutOfRange`. Which HTTP status a code is sent with
/// depends on the service: see [`Service::status`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExceptionCode {
    InvalidFormat,
    InvalidCRS,
    LayerNotDefined,
    StyleNotDefined,
    LayerNotQueryable,
    InvalidPoint,
    CurrentUpdateSequence,
    InvalidUpdateSequence,
    MissingDimensionValue,
    InvalidDimensionValue,
    OperationNotSupported,
    MissingParameterValue,
    InvalidParameterValue,
    VersionNegotiationFailed,
    OptionNotSupported,
    OperationParsingFailed,
    OperationProcessingFailed,
    InvalidValue,
    NotFound,
    TileOutOfRange,
    NoApplicableCode,
}

impl ExceptionCode {
    /// The code as written in exception reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidFormat => "InvalidFormat",
            Self::InvalidCRS => "InvalidCRS",
            Self::LayerNotDefined => "LayerNotDefined",
            Self::StyleNotDefined => "StyleNotDefined",
            Self::LayerNotQueryable => "LayerNotQueryable",
            Self::InvalidPoint => "InvalidPoint",
            Self::CurrentUpdateSequence => "CurrentUpdateSequence",
            Self::InvalidUpdateSequence => "InvalidUpdateSequence",
            Self::MissingDimensionValue => "MissingDimensionValue",
            Self::InvalidDimensionValue => "InvalidDimensionValue",
            Self::OperationNotSupported => "OperationNotSupported",
            Self::MissingParameterValue => "MissingParameterValue",
            Self::InvalidParameterValue => "InvalidParameterValue",
            Self::VersionNegotiationFailed => "VersionNegotiationFailed",
            Self::OptionNotSupported => "OptionNotSupported",
            Self::OperationParsingFailed => "OperationParsingFailed",
            Self::OperationProcessingFailed => "OperationProcessingFailed",
            Self::InvalidValue => "InvalidValue",
            Self::NotFound => "NotFound",
            Self::TileOutOfRange => "TileOutOfRange",
            Self::NoApplicableCode => "NoApplicableCode",
        }
    }

    /// The OWS code for a WMS one (WMTS reports only OWS codes and `TileOutOfRange`).
    pub fn as_ows(self) -> Self {
        match self {
            Self::InvalidFormat
            | Self::InvalidCRS
            | Self::LayerNotDefined
            | Self::StyleNotDefined
            | Self::LayerNotQueryable
            | Self::InvalidPoint
            | Self::InvalidDimensionValue => Self::InvalidParameterValue,
            Self::MissingDimensionValue => Self::MissingParameterValue,
            other => other,
        }
    }
}

/// A request that cannot be answered, with its OGC exception code and the parameter (or
/// element, or transaction action) at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct OgcError {
    pub code: ExceptionCode,
    /// The parameter at fault (`locator` in reports).
    pub locator: Option<String>,
    pub message: String,
}

/// The result of every OGC request parser and operation.
pub type OgcResult<T> = Result<T, OgcError>;

impl OgcError {
    /// An error with a code, an optional locator and a message for people.
    pub fn new(code: ExceptionCode, locator: Option<String>, message: impl Into<String>) -> Self {
        Self { code, locator, message: message.into() }
    }

    /// An error with a code at `locator`.
    pub fn at(code: ExceptionCode, locator: &str, message: impl Into<String>) -> Self {
        Self::new(code, Some(locator.to_owned()), message)
    }

    /// `InvalidParameterValue` at `param`.
    pub fn invalid(param: &str, message: impl Into<String>) -> Self {
        Self::at(ExceptionCode::InvalidParameterValue, param, message)
    }

    /// `MissingParameterValue`: `param` is required.
    pub fn missing(param: &str) -> Self {
        Self::at(ExceptionCode::MissingParameterValue, param, format!("the {param} parameter is required"))
    }

    /// `OperationParsingFailed` at `locator`: a request document that cannot be read.
    pub fn parsing(locator: &str, message: impl Into<String>) -> Self {
        Self::at(ExceptionCode::OperationParsingFailed, locator, message)
    }

    /// `OperationNotSupported`: `op` is not offered.
    pub fn not_supported(op: &str, message: impl Into<String>) -> Self {
        Self::at(ExceptionCode::OperationNotSupported, op, message)
    }

    /// Our own failure: logged in full by the caller, reported without detail.
    pub fn internal() -> Self {
        Self::new(ExceptionCode::NoApplicableCode, None, "the service could not complete the request")
    }

    /// Our own failure, `cause` logged here in full and reported without detail.
    pub fn internal_from(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "OGC service internal error");
        Self::internal()
    }

    /// A feature-service error met while answering `locator` (a transaction action's handle, a
    /// parameter): client mistakes keep their meaning, internal failures say nothing.
    pub fn from_features(e: FeatureError, locator: &str) -> Self {
        match e {
            FeatureError::Domain(d) | FeatureError::Store(meridian_store::StoreError::Domain(d)) => {
                Self::from_domain(d, locator)
            }
            other => Self::internal_from(other),
        }
    }

    fn from_domain(d: DomainError, locator: &str) -> Self {
        match d {
            DomainError::Invalid(errors) => {
                let text = errors
                    .iter()
                    .map(|e| format!("{} ({}): {}", e.pointer, e.code, e.detail))
                    .collect::<Vec<_>>()
                    .join("; ");
                Self::at(ExceptionCode::InvalidValue, locator, text)
            }
            DomainError::NotFound { .. } => Self::at(ExceptionCode::NotFound, locator, d.to_string()),
            other => Self::at(ExceptionCode::OperationProcessingFailed, locator, other.to_string()),
        }
    }
}

/// The service an error is answered by: each has its HTTP status policy and its exception
/// report document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Service {
    /// WMS 1.3.0: a `ServiceExceptionReport`.
    Wms,
    /// WMTS 1.0.0: an OWS 1.1 `ExceptionReport` (version 1.1.0) of OWS codes.
    Wmts,
    /// WFS 2.0: an OWS 1.1 `ows:ExceptionReport` (version 2.0.0).
    Wfs,
}

impl Service {
    /// The HTTP status an exception report with `code` is sent with.
    ///
    /// WMS and WMTS: every client mistake is a 400 (OWS Common Table 28 gives 501 for
    /// `OperationNotSupported`, but a 5xx reads as a server fault to monitors and to clients
    /// that retry); only `NoApplicableCode`, which these services use for their own failures, is
    /// a 500. WFS 2.0 follows OGC 09-025r2 Table 3: `OperationNotSupported` and
    /// `OptionNotSupported` 501, `OperationProcessingFailed` 403, `NotFound` 404.
    pub fn status(self, code: ExceptionCode) -> u16 {
        use ExceptionCode as C;
        match (self, code) {
            (_, C::NoApplicableCode) => 500,
            (Self::Wms | Self::Wmts, C::CurrentUpdateSequence) => 304,
            (Self::Wms | Self::Wmts, _) => 400,
            (Self::Wfs, C::OperationNotSupported | C::OptionNotSupported) => 501,
            (Self::Wfs, C::OperationProcessingFailed) => 403,
            (Self::Wfs, C::NotFound) => 404,
            (Self::Wfs, _) => 400,
        }
    }

    /// The code as this service reports it (WMTS: OWS codes only).
    pub fn code(self, code: ExceptionCode) -> ExceptionCode {
        match self {
            Self::Wmts => code.as_ows(),
            Self::Wms | Self::Wfs => code,
        }
    }

    /// The exception report document of `err`.
    pub fn report(self, err: &OgcError) -> String {
        let code = self.code(err.code).as_str();
        match self {
            Self::Wms => service_exception_report(err, code),
            Self::Wmts => ows_exception_report(err, code, "", "1.1.0"),
            // The `ows:` prefix is kept: some WFS clients look for `<ows:ExceptionReport` as text.
            Self::Wfs => ows_exception_report(err, code, "ows:", "2.0.0"),
        }
    }
}

/// A WMS 1.3.0 `ServiceExceptionReport`.
fn service_exception_report(err: &OgcError, code: &str) -> String {
    let mut x = Xml::new();
    x.open(
        "ServiceExceptionReport",
        &[
            ("version", "1.3.0"),
            ("xmlns", "http://www.opengis.net/ogc"),
            ("xmlns:xsi", XSI_NS),
            (
                "xsi:schemaLocation",
                "http://www.opengis.net/ogc http://schemas.opengis.net/wms/1.3.0/exceptions_1_3_0.xsd",
            ),
        ],
    );
    match &err.locator {
        Some(l) => x.text("ServiceException", &[("code", code), ("locator", l)], &err.message),
        None => x.text("ServiceException", &[("code", code)], &err.message),
    };
    x.finish()
}

/// An OWS 1.1 `ExceptionReport` with `version`, its elements named with `prefix` (`""` puts
/// them in the default namespace, `"ows:"` binds the prefix).
fn ows_exception_report(err: &OgcError, code: &str, prefix: &str, version: &str) -> String {
    let ns_attr =
        if prefix.is_empty() { "xmlns".to_owned() } else { format!("xmlns:{}", prefix.trim_end_matches(':')) };
    let mut x = Xml::new();
    x.open(
        &format!("{prefix}ExceptionReport"),
        &[
            (&ns_attr, OWS_NS),
            ("xmlns:xsi", XSI_NS),
            (
                "xsi:schemaLocation",
                "http://www.opengis.net/ows/1.1 http://schemas.opengis.net/ows/1.1.0/owsExceptionReport.xsd",
            ),
            ("version", version),
            ("xml:lang", "en"),
        ],
    );
    let exception = format!("{prefix}Exception");
    match &err.locator {
        Some(l) => x.open(&exception, &[("exceptionCode", code), ("locator", l)]),
        None => x.open(&exception, &[("exceptionCode", code)]),
    };
    x.text(&format!("{prefix}ExceptionText"), &[], &err.message);
    x.finish()
}

/// Escapes text for XML content and attribute values, dropping characters XML 1.0 cannot carry
/// at all (control characters other than tab, newline and carriage return, U+FFFE, U+FFFF).
pub fn escape(text: &str) -> Cow<'_, str> {
    let needs = text.chars().any(|c| matches!(c, '<' | '>' | '&' | '"' | '\'') || !xml_char(c));
    if !needs {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if !xml_char(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && !matches!(c, '\u{FFFE}' | '\u{FFFF}'))
}

/// A minimal XML writer: elements are opened and closed in order, text and attributes escaped.
#[derive(Default)]
pub struct Xml {
    out: String,
    open: Vec<String>,
}

impl Xml {
    /// A document with the XML declaration.
    pub fn new() -> Self {
        Self { out: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n".into(), open: Vec::new() }
    }

    fn indent(&mut self) {
        for _ in 0..self.open.len() {
            self.out.push_str("  ");
        }
    }

    fn start_tag(&mut self, name: &str, attrs: &[(&str, &str)]) {
        self.indent();
        let _ = write!(self.out, "<{name}");
        for (k, v) in attrs {
            let _ = write!(self.out, " {k}=\"{}\"", escape(v));
        }
    }

    /// Opens an element.
    pub fn open(&mut self, name: &str, attrs: &[(&str, &str)]) -> &mut Self {
        self.start_tag(name, attrs);
        self.out.push_str(">\n");
        self.open.push(name.to_owned());
        self
    }

    /// Closes the innermost open element.
    pub fn close(&mut self) -> &mut Self {
        if let Some(name) = self.open.pop() {
            self.indent();
            let _ = writeln!(self.out, "</{name}>");
        }
        self
    }

    /// An element holding text.
    pub fn text(&mut self, name: &str, attrs: &[(&str, &str)], text: &str) -> &mut Self {
        self.start_tag(name, attrs);
        let _ = writeln!(self.out, ">{}</{name}>", escape(text));
        self
    }

    /// An empty element.
    pub fn empty(&mut self, name: &str, attrs: &[(&str, &str)]) -> &mut Self {
        self.start_tag(name, attrs);
        self.out.push_str("/>\n");
        self
    }

    /// The document, every element closed.
    pub fn finish(mut self) -> String {
        while !self.open.is_empty() {
            self.close();
        }
        self.out
    }
}

/// The `ows:ServiceIdentification` and `ows:ServiceProvider` sections.
pub fn service_sections(x: &mut Xml, service_type: &str, version: &str, title: &str, abstract_: &str) {
    x.open("ows:ServiceIdentification", &[]);
    x.text("ows:Title", &[], title);
    x.text("ows:Abstract", &[], abstract_);
    x.text("ows:ServiceType", &[], service_type);
    x.text("ows:ServiceTypeVersion", &[], version);
    x.text("ows:Fees", &[], "none");
    x.text("ows:AccessConstraints", &[], "none");
    x.close();
    x.open("ows:ServiceProvider", &[]);
    x.text("ows:ProviderName", &[], "Meridian");
    x.open("ows:ServiceContact", &[]);
    x.close();
    x.close();
}

/// One operation of `ows:OperationsMetadata`: its name and the GET endpoints with their
/// encodings (`KVP`, `REST`), written as `ows:Constraint name="GetEncoding"`.
pub struct Operation<'a> {
    pub name: &'a str,
    pub gets: Vec<(String, &'a str)>,
}

/// The `ows:OperationsMetadata` section.
pub fn operations_metadata(x: &mut Xml, ops: &[Operation<'_>]) {
    x.open("ows:OperationsMetadata", &[]);
    for op in ops {
        x.open("ows:Operation", &[("name", op.name)]);
        x.open("ows:DCP", &[]);
        x.open("ows:HTTP", &[]);
        for (href, encoding) in &op.gets {
            x.open("ows:Get", &[("xlink:href", href)]);
            x.open("ows:Constraint", &[("name", "GetEncoding")]);
            x.open("ows:AllowedValues", &[]);
            x.text("ows:Value", &[], encoding);
            x.close();
            x.close();
            x.close();
        }
        x.close();
        x.close();
        x.close();
    }
    x.close();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_drops_control_characters() {
        assert_eq!(escape("a<b & \"c\" 'd'\u{1}"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;");
    }

    #[test]
    fn report_names_code_and_locator() {
        let err = OgcError::invalid("TILEMATRIX", "no <such> matrix");
        for service in [Service::Wms, Service::Wmts, Service::Wfs] {
            let doc = service.report(&err);
            let code = if service == Service::Wms { "code" } else { "exceptionCode" };
            assert!(doc.contains(&format!(r#"{code}="InvalidParameterValue" locator="TILEMATRIX""#)), "{doc}");
            assert!(doc.contains("no &lt;such&gt; matrix"));
        }
        assert!(Service::Wmts.report(&err).contains("<ExceptionReport xmlns=\"http://www.opengis.net/ows/1.1\""));
        assert!(Service::Wfs
            .report(&err)
            .contains("<ows:ExceptionReport xmlns:ows=\"http://www.opengis.net/ows/1.1\""));
    }

    #[test]
    fn statuses_follow_each_service() {
        use ExceptionCode as C;
        for code in [C::OperationNotSupported, C::OptionNotSupported, C::NotFound, C::OperationProcessingFailed] {
            assert_eq!(Service::Wms.status(code), 400);
            assert_eq!(Service::Wmts.status(code), 400);
        }
        assert_eq!(Service::Wfs.status(C::OperationNotSupported), 501);
        assert_eq!(Service::Wfs.status(C::OptionNotSupported), 501);
        assert_eq!(Service::Wfs.status(C::OperationProcessingFailed), 403);
        assert_eq!(Service::Wfs.status(C::NotFound), 404);
        assert_eq!(Service::Wfs.status(C::InvalidValue), 400);
        for service in [Service::Wms, Service::Wmts, Service::Wfs] {
            assert_eq!(service.status(C::NoApplicableCode), 500);
        }
        assert_eq!(Service::Wms.status(C::CurrentUpdateSequence), 304);
        assert_eq!(Service::Wmts.code(C::LayerNotDefined), C::InvalidParameterValue);
    }
}
