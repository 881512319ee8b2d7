//! Extra-bytes descriptors (LAS 1.4 R15, the LASF_Spec 4 VLR): where a confidence byte goes.

use super::raw::{padded, put, Vlr, EXTRA_BYTES_RECORD};
use super::{Result, WriteError};

/// Bytes of one extra-bytes descriptor.
const DESCRIPTOR: usize = 192;

/// How the extra bytes are laid out once a confidence byte is added.
pub(crate) struct ExtraBytesPlan {
    /// Extra bytes per output record.
    pub(crate) extra: usize,
    /// Where the confidence byte lies among the extra bytes.
    pub(crate) confidence_at: Option<usize>,
    /// The one extra-bytes VLR to write in place of the input's (`None`: keep them as they are).
    pub(crate) vlr: Option<Vec<u8>>,
}

/// Bytes a descriptor's attribute takes (LAS 1.4 R15, table 24), `None` for an unknown type.
fn attribute_size(d: &[u8]) -> Option<usize> {
    let one = |t: u8| match t {
        1 | 2 => Some(1),
        3 | 4 => Some(2),
        5 | 6 | 9 => Some(4),
        7 | 8 | 10 => Some(8),
        _ => None,
    };
    match d[2] {
        0 => Some(usize::from(d[3])),
        t @ 1..=10 => one(t),
        t @ 11..=20 => one(t - 10).map(|s| 2 * s),
        t @ 21..=30 => one(t - 20).map(|s| 3 * s),
        _ => None,
    }
}

fn descriptor(name: &str, data_type: u8, options: u8, description: &str) -> [u8; DESCRIPTOR] {
    let mut d = [0u8; DESCRIPTOR];
    d[2] = data_type;
    d[3] = options;
    put(&mut d, 4, &padded::<32>(name));
    put(&mut d, 160, &padded::<32>(description));
    d
}

/// Plans the extra bytes: the input's descriptors (from every extra-bytes VLR, in order, as
/// files written by several tools hold more than one) plus, when asked, a `confidence` byte.
pub(crate) fn plan_extra_bytes(vlrs: &[Vlr], extra: usize, confidence: bool) -> Result<ExtraBytesPlan> {
    if !confidence {
        return Ok(ExtraBytesPlan { extra, confidence_at: None, vlr: None });
    }
    let mut descriptors: Vec<u8> = Vec::new();
    for v in vlrs.iter().filter(|v| v.is("LASF_Spec", EXTRA_BYTES_RECORD)) {
        let whole = v.data.len() / DESCRIPTOR * DESCRIPTOR;
        descriptors.extend_from_slice(&v.data[..whole]);
    }
    let mut described = 0usize;
    for d in descriptors.chunks_exact(DESCRIPTOR) {
        let name = &d[4..36];
        let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(32)];
        if name == b"confidence" && d[2] == 1 && described < extra {
            return Ok(ExtraBytesPlan { extra, confidence_at: Some(described), vlr: Some(descriptors) });
        }
        described += attribute_size(d)
            .ok_or_else(|| WriteError::Unsupported(format!("an extra-bytes descriptor of data type {}", d[2])))?;
    }
    if described > extra {
        return Err(WriteError::Unsupported(format!(
            "the extra-bytes descriptors describe {described} bytes, the records hold {extra}"
        )));
    }
    // Bytes no descriptor names are kept, described as undocumented, so that the new byte
    // lands where its descriptor says.
    let mut rest = extra - described;
    while rest > 0 {
        let n = rest.min(255);
        descriptors.extend_from_slice(&descriptor("undocumented", 0, n as u8, "Undocumented extra bytes"));
        rest -= n;
    }
    descriptors.extend_from_slice(&descriptor("confidence", 1, 0, "Classification confidence"));
    Ok(ExtraBytesPlan { extra: extra + 1, confidence_at: Some(extra), vlr: Some(descriptors) })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_confidence_byte_follows_the_described_extra_bytes() {
        let deviation = descriptor("Deviation", 3, 0, "");
        let vlrs = [Vlr::new("LASF_Spec", 4, "", deviation.to_vec())];
        let plan = plan_extra_bytes(&vlrs, 3, true).unwrap();
        assert_eq!((plan.extra, plan.confidence_at), (4, Some(3)));
        let data = plan.vlr.unwrap();
        assert_eq!(data.len(), 3 * DESCRIPTOR);
        assert_eq!((data[DESCRIPTOR + 2], data[DESCRIPTOR + 3]), (0, 1), "the undescribed byte is kept");
        assert_eq!(&data[2 * DESCRIPTOR + 4..2 * DESCRIPTOR + 14], b"confidence");
    }

    #[test]
    fn an_existing_confidence_byte_is_reused() {
        let vlrs = [
            Vlr::new("LASF_Spec", 4, "", descriptor("Deviation", 3, 0, "").to_vec()),
            Vlr::new("LASF_Spec", 4, "", descriptor("confidence", 1, 0, "").to_vec()),
        ];
        let plan = plan_extra_bytes(&vlrs, 3, true).unwrap();
        assert_eq!((plan.extra, plan.confidence_at), (3, Some(2)));
        assert_eq!(plan.vlr.unwrap().len(), 2 * DESCRIPTOR, "the two VLRs merged into one");
    }

    #[test]
    fn descriptors_longer_than_the_records_are_refused() {
        let vlrs = [Vlr::new("LASF_Spec", 4, "", descriptor("big", 10, 0, "").to_vec())];
        assert!(matches!(plan_extra_bytes(&vlrs, 2, true), Err(WriteError::Unsupported(_))));
        assert!(plan_extra_bytes(&vlrs, 2, false).unwrap().vlr.is_none());
    }
}
