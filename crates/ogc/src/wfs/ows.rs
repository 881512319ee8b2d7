//! OWS 1.1 common parts used by WFS 2.0: exception codes with their HTTP statuses (OGC 06-121r3
//! and OGC 09-025r2 table 3), the `ows:ExceptionReport` document, and namespaces.

use super::xml::escape;
use meridian_cadastre::Error as FeatureError;
use meridian_core::DomainError;

pub const NS_OWS: &str = "http://www.opengis.net/ows/1.1";
pub const NS_WFS: &str = "http://www.opengis.net/wfs/2.0";
pub const NS_FES: &str = "http://www.opengis.net/fes/2.0";
pub const NS_GML: &str = "http://www.opengis.net/gml/3.2";
pub const NS_XLINK: &str = "http://www.w3.org/1999/xlink";
pub const NS_XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";
pub const NS_XSD: &str = "http://www.w3.org/2001/XMLSchema";

/// The exception codes this service answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExceptionCode {
    MissingParameterValue,
    InvalidParameterValue,
    VersionNegotiationFailed,
    OperationNotSupported,
    OptionNotSupported,
    OperationParsingFailed,
    OperationProcessingFailed,
    InvalidValue,
    NotFound,
    NoApplicableCode,
}

impl ExceptionCode {
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::MissingParameterValue => "MissingParameterValue",
            Self::InvalidParameterValue => "InvalidParameterValue",
            Self::VersionNegotiationFailed => "VersionNegotiationFailed",
            Self::OperationNotSupported => "OperationNotSupported",
            Self::OptionNotSupported => "OptionNotSupported",
            Self::OperationParsingFailed => "OperationParsingFailed",
            Self::OperationProcessingFailed => "OperationProcessingFailed",
            Self::InvalidValue => "InvalidValue",
            Self::NotFound => "NotFound",
            Self::NoApplicableCode => "NoApplicableCode",
        }
    }

    /// The HTTP status OWS 1.1 and WFS 2.0 give the code.
    pub fn status(&self) -> u16 {
        match self {
            Self::OperationNotSupported | Self::OptionNotSupported => 501,
            Self::OperationProcessingFailed => 403,
            Self::NotFound => 404,
            Self::NoApplicableCode => 500,
            _ => 400,
        }
    }
}

/// One exception of a report.
#[derive(Clone, Debug, PartialEq)]
pub struct OwsException {
    pub code: ExceptionCode,
    /// The parameter or element at fault, when there is one.
    pub locator: Option<String>,
    pub text: String,
    /// The HTTP status (the code's, unless a client mistake is reported as NoApplicableCode).
    pub status: u16,
}

pub type OwsResult<T> = Result<T, OwsException>;

impl OwsException {
    pub fn new(code: ExceptionCode, locator: Option<&str>, text: impl Into<String>) -> Self {
        Self { code, locator: locator.map(str::to_owned), text: text.into(), status: code.status() }
    }

    pub fn missing(param: &str) -> Self {
        Self::new(ExceptionCode::MissingParameterValue, Some(param), format!("the parameter {param} is required"))
    }

    pub fn invalid(param: &str, text: impl Into<String>) -> Self {
        Self::new(ExceptionCode::InvalidParameterValue, Some(param), text)
    }

    pub fn parsing(locator: &str, text: impl Into<String>) -> Self {
        Self::new(ExceptionCode::OperationParsingFailed, Some(locator), text)
    }

    pub fn not_supported(op: &str, text: impl Into<String>) -> Self {
        Self::new(ExceptionCode::OperationNotSupported, Some(op), text)
    }

    /// An internal failure: logged in full, answered generically.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "WFS internal error");
        Self::new(ExceptionCode::NoApplicableCode, None, "the request could not be completed; try again later")
    }

    /// The `ows:ExceptionReport` document.
    pub fn report(&self) -> String {
        let locator = match &self.locator {
            Some(l) => format!(" locator=\"{}\"", escape(l)),
            None => String::new(),
        };
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ows:ExceptionReport xmlns:ows=\"{NS_OWS}\" \
             xmlns:xsi=\"{NS_XSI}\" version=\"2.0.0\" xml:lang=\"en\" \
             xsi:schemaLocation=\"{NS_OWS} http://schemas.opengis.net/ows/1.1.0/owsExceptionReport.xsd\">\n  \
             <ows:Exception exceptionCode=\"{}\"{locator}>\n    <ows:ExceptionText>{}</ows:ExceptionText>\n  \
             </ows:Exception>\n</ows:ExceptionReport>\n",
            self.code.as_str(),
            escape(&self.text)
        )
    }

    /// A feature-service error met while answering `locator` (a transaction action's handle, a
    /// parameter): client mistakes keep their meaning, internal failures say nothing.
    pub fn from_features(e: FeatureError, locator: &str) -> Self {
        match e {
            FeatureError::Domain(d) | FeatureError::Store(meridian_store::StoreError::Domain(d)) => {
                Self::from_domain(d, locator)
            }
            other => Self::internal(other),
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
                Self::new(ExceptionCode::InvalidValue, Some(locator), text)
            }
            DomainError::NotFound { .. } => Self::new(ExceptionCode::NotFound, Some(locator), d.to_string()),
            other => Self::new(ExceptionCode::OperationProcessingFailed, Some(locator), other.to_string()),
        }
    }
}

impl std::fmt::Display for OwsException {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.text)
    }
}

impl std::error::Error for OwsException {}
