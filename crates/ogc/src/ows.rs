//! OGC Web Services Common (OWS 1.1) pieces shared by WMS, WMTS and WFS: exception codes, the
//! error type every request parser returns, the `ows:ExceptionReport` document, XML escaping
//! and a small writer for capabilities documents, and the `ows:ServiceIdentification`,
//! `ows:ServiceProvider` and `ows:OperationsMetadata` sections.

use std::fmt::Write as _;

/// OWS 1.1 namespace.
pub const OWS_NS: &str = "http://www.opengis.net/ows/1.1";
/// XLink namespace.
pub const XLINK_NS: &str = "http://www.w3.org/1999/xlink";
/// XML Schema instance namespace.
pub const XSI_NS: &str = "http://www.w3.org/2001/XMLSchema-instance";

/// The exception codes of WMS 1.3.0 (Annex A.3) and OWS Common 1.1 (Table 25), plus WMTS's
/// `TileOutOfRange`.
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
            Self::TileOutOfRange => "TileOutOfRange",
            Self::NoApplicableCode => "NoApplicableCode",
        }
    }

    /// The HTTP status an exception report is sent with. Every client mistake is a 400 (OWS
    /// Common Table 28 gives 501 for `OperationNotSupported`, but a 5xx reads as a server fault
    /// to monitors and to clients that retry); only `NoApplicableCode`, which this service uses
    /// for its own failures, is a 500.
    pub fn http_status(self) -> u16 {
        match self {
            Self::NoApplicableCode => 500,
            Self::CurrentUpdateSequence => 304,
            _ => 400,
        }
    }

    /// The WMTS code for a WMS one (WMTS reports only OWS codes and `TileOutOfRange`).
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

/// A request that cannot be answered, with its OGC exception code and the parameter at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct OgcError {
    pub code: ExceptionCode,
    /// The parameter at fault (`locator` in reports).
    pub locator: Option<String>,
    pub message: String,
}

impl OgcError {
    /// An error with a code, an optional locator and a message for people.
    pub fn new(code: ExceptionCode, locator: Option<String>, message: impl Into<String>) -> Self {
        Self { code, locator, message: message.into() }
    }

    /// `InvalidParameterValue` at `param`.
    pub fn invalid(param: &str, message: impl Into<String>) -> Self {
        Self::new(ExceptionCode::InvalidParameterValue, Some(param.to_owned()), message)
    }

    /// Our own failure: logged in full by the caller, reported without detail.
    pub fn internal() -> Self {
        Self::new(ExceptionCode::NoApplicableCode, None, "the service could not complete the request")
    }
}

/// Escapes text for XML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 cannot carry at all are dropped.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
    out
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

/// An OWS 1.1 `ExceptionReport` (WMTS 1.0.0, WFS 2.0).
pub fn exception_report(err: &OgcError, lang: &str) -> String {
    let mut x = Xml::new();
    x.open(
        "ExceptionReport",
        &[
            ("xmlns", OWS_NS),
            ("xmlns:xsi", XSI_NS),
            (
                "xsi:schemaLocation",
                "http://www.opengis.net/ows/1.1 http://schemas.opengis.net/ows/1.1.0/owsExceptionReport.xsd",
            ),
            ("version", "1.1.0"),
            ("xml:lang", lang),
        ],
    );
    let code = err.code.as_str();
    match &err.locator {
        Some(l) => x.open("Exception", &[("exceptionCode", code), ("locator", l)]),
        None => x.open("Exception", &[("exceptionCode", code)]),
    };
    x.text("ExceptionText", &[], &err.message);
    x.finish()
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
        let doc = exception_report(&OgcError::invalid("TILEMATRIX", "no <such> matrix"), "en");
        assert!(doc.contains(r#"exceptionCode="InvalidParameterValue" locator="TILEMATRIX""#));
        assert!(doc.contains("no &lt;such&gt; matrix"));
    }
}
