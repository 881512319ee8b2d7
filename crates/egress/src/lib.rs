//! Outbound HTTP shared by the areas that call other servers (webhook deliveries, remote EO
//! assets): the SSRF guard that checks URLs and every address a name resolves to, at creation
//! and again at connect time.

pub mod guard;

pub use guard::{GuardedResolver, Policy, Refusal};
