//! Outbound HTTP shared by the areas that call other servers (webhook deliveries, remote EO
//! assets): the SSRF guard that checks URLs and every address a name resolves to, at creation
//! and again at connect time; and the TLS every outbound client uses.

pub mod guard;
pub mod tls;

pub use guard::{GuardedResolver, Policy, Refusal};
