//! Identifiers: a type prefix and an opaque, time-sortable suffix (`acct_01j...`).

use std::fmt;
use std::sync::Mutex;

/// Makes a new identifier with the given prefix.
///
/// ```
/// let id = meridian_core::id::new_id("zone");
/// assert!(id.starts_with("zone_"));
/// assert_eq!(id.len(), "zone_".len() + 26);
/// ```
pub fn new_id(prefix: &str) -> String {
    static GENERATOR: Mutex<Option<ulid::Generator>> = Mutex::new(None);
    // Monotonic within the process: ids made in the same millisecond still sort in creation order.
    let ulid = {
        let mut guard = GENERATOR.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        guard.get_or_insert_with(ulid::Generator::new).generate().unwrap_or_else(|_| ulid::Ulid::new())
    };
    format!("{prefix}_{}", ulid.to_string().to_ascii_lowercase())
}

/// Whether `id` has the shape of an identifier with `prefix` (prefix, underscore, 26 base-32 digits).
pub fn has_shape(id: &str, prefix: &str) -> bool {
    id.strip_prefix(prefix)
        .and_then(|rest| rest.strip_prefix('_'))
        .is_some_and(|suffix| suffix.len() == 26 && suffix.bytes().all(|b| b.is_ascii_alphanumeric()))
}

macro_rules! define_id {
    ($(#[$meta:meta])* $name:ident, $prefix:literal) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            /// The prefix every identifier of this kind starts with.
            pub const PREFIX: &'static str = $prefix;

            /// A new, unique identifier.
            pub fn generate() -> Self {
                Self(new_id($prefix))
            }

            /// The identifier as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                Self(s)
            }
        }
    };
}

define_id!(
    /// An account, which is a tenant.
    AccountId,
    "acct"
);
define_id!(
    /// An API key.
    ApiKeyId,
    "key"
);
define_id!(
    /// A durable job.
    JobId,
    "job"
);
define_id!(
    /// A platform event.
    EventId,
    "evt"
);
define_id!(
    /// A DNS zone.
    ZoneId,
    "zone"
);
define_id!(
    /// A DNS record.
    RecordId,
    "rec"
);
define_id!(
    /// A DNSSEC signing key of a zone.
    DnsKeyId,
    "dnskey"
);
define_id!(
    /// A webhook subscription.
    SubscriptionId,
    "whsub"
);
define_id!(
    /// One event's delivery to one webhook subscription.
    DeliveryId,
    "dlv"
);
define_id!(
    /// A DEM uploaded for processing (a GeoTIFF in the blob store).
    DatasetId,
    "dataset"
);
define_id!(
    /// A point cloud uploaded as LAS or LAZ (its files in the blob store).
    PointCloudId,
    "pc"
);
define_id!(
    /// A digital twin: an area of a feature collection, its 3D Tiles, clock and sensors.
    TwinId,
    "twin"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_sort_by_creation_time() {
        let ids: Vec<String> = (0..1000).map(|_| new_id("job")).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids made in a row sort in creation order");
    }

    #[test]
    fn shape_checks_prefix_and_suffix() {
        let id = AccountId::generate();
        assert!(has_shape(id.as_str(), "acct"));
        assert!(!has_shape(id.as_str(), "zone"));
        assert!(!has_shape("acct_short", "acct"));
    }
}
