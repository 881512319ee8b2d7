//! TLS of outbound HTTP: rustls with ring (the one crypto library the program carries) and the
//! web PKI roots bundled with the binary, so a call verifies the same way on every host whatever
//! its CA store holds, plus the roots an operator adds.

use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;

/// A rustls client configuration trusting the web PKI roots and `extra_roots`.
pub fn client_config(extra_roots: &[CertificateDer<'static>]) -> Result<rustls::ClientConfig, rustls::Error> {
    let mut roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    for cert in extra_roots {
        roots.add(cert.clone())?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// A reqwest client builder whose TLS is [`client_config`]: every outbound client starts here.
pub fn client_builder(extra_roots: &[CertificateDer<'static>]) -> Result<reqwest::ClientBuilder, rustls::Error> {
    Ok(reqwest::Client::builder().tls_backend_preconfigured(client_config(extra_roots)?))
}

/// A client with the web PKI roots and reqwest's defaults otherwise (tests and tools).
pub fn default_client() -> reqwest::Client {
    client_builder(&[])
        .expect("the bundled roots make a TLS configuration")
        .build()
        .expect("a client with reqwest's defaults builds")
}

/// The certificates of a PEM bundle, in order; anything else in it is skipped.
pub fn pem_certificates(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, String> {
    CertificateDer::pem_slice_iter(pem).collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_client_builds_without_a_process_wide_provider() {
        let _ = default_client();
    }

    #[test]
    fn a_pem_bundle_gives_its_certificates_and_they_are_trusted() {
        let one = rcgen::generate_simple_self_signed(vec!["a.test".into()]).unwrap().cert.pem();
        let two = rcgen::generate_simple_self_signed(vec!["b.test".into()]).unwrap().cert.pem();
        let certs = pem_certificates(format!("{one}junk between blocks\n{two}").as_bytes()).unwrap();
        assert_eq!(certs.len(), 2);
        assert!(client_config(&certs).is_ok());
        assert!(pem_certificates(b"no pem here").unwrap().is_empty());
        assert!(pem_certificates(b"-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n").is_err());
    }
}
