//! Live readings between nodes: the node that stores a batch sends it to the sockets of every
//! other node as [`Notice::Readings`], cut to the notice size.
//!
//! A line is `sensor \t ts \t value` (the value's stored JSON, which holds no raw tab or newline);
//! a reading too large for a notice goes as `sensor \t ts` alone and the nodes that have sockets
//! for its twin read it back from the store.

use meridian_store::notices::MAX_NOTICE_BYTES;
use meridian_store::twin::ReadingRow;
use meridian_store::Notice;

/// One reading heard from another node.
#[derive(Debug, PartialEq)]
pub(crate) struct Line<'a> {
    pub sensor: &'a str,
    pub ts: i64,
    /// The value's JSON; `None` when it has to be read from the store.
    pub value: Option<&'a str>,
}

/// The notices that carry `rows` (in time order) of `twin`, stored by node `origin`.
pub(crate) fn notices(origin: &str, twin: &str, rows: &[&ReadingRow]) -> Vec<Notice> {
    let room = MAX_NOTICE_BYTES.saturating_sub("readings ".len() + origin.len() + twin.len() + 2);
    let mut out = Vec::new();
    let mut lines = String::new();
    for r in rows {
        let head = format!("{}\t{}", r.sensor_id, r.ts);
        let whole = head.len() + 1 + r.value.len();
        let line_len = if whole <= room { whole } else { head.len() };
        if !lines.is_empty() && lines.len() + 1 + line_len > room {
            out.push(Notice::Readings {
                origin: origin.to_owned(),
                twin: twin.to_owned(),
                lines: std::mem::take(&mut lines),
            });
        }
        if !lines.is_empty() {
            lines.push('\n');
        }
        lines.push_str(&head);
        if whole <= room {
            lines.push('\t');
            lines.push_str(&r.value);
        }
    }
    if !lines.is_empty() {
        out.push(Notice::Readings { origin: origin.to_owned(), twin: twin.to_owned(), lines });
    }
    out
}

/// The readings of a notice's lines; malformed lines (from a node of another version) are
/// skipped.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = Line<'_>> {
    text.split('\n').filter_map(|l| {
        let mut parts = l.splitn(3, '\t');
        let sensor = parts.next().filter(|s| !s.is_empty())?;
        let ts = parts.next()?.parse().ok()?;
        Some(Line { sensor, ts, value: parts.next() })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(sensor: &str, ts: i64, value: &str) -> ReadingRow {
        ReadingRow { sensor_id: sensor.into(), ts, value: value.into() }
    }

    #[test]
    fn readings_cross_in_order_cut_to_the_notice_size() {
        let big = format!("\"{}\"", "x".repeat(MAX_NOTICE_BYTES));
        let rows: Vec<ReadingRow> = (0..500)
            .map(|i| row(&format!("s{}", i % 7), 1_700_000_000_000 + i, &format!("{{\"t\": \"a\\tb {i}\"}}")))
            .chain([row("s1", 1_800_000_000_000, &big)])
            .collect();
        let refs: Vec<&ReadingRow> = rows.iter().collect();
        let notices = notices("node_x", "twin_y", &refs);
        assert!(notices.len() > 2, "{} notices", notices.len());
        let mut back = Vec::new();
        for n in &notices {
            assert!(n.encode().len() <= MAX_NOTICE_BYTES);
            let Some(Notice::Readings { origin, twin, lines: text }) = Notice::decode(&n.encode()) else {
                panic!("not a readings notice: {n:?}")
            };
            assert_eq!((origin.as_str(), twin.as_str()), ("node_x", "twin_y"));
            back.extend(lines(&text).map(|l| (l.sensor.to_owned(), l.ts, l.value.map(str::to_owned))));
        }
        assert_eq!(back.len(), rows.len());
        for (r, (sensor, ts, value)) in rows.iter().zip(&back) {
            assert_eq!((&r.sensor_id, r.ts), (sensor, *ts));
            if r.value == big {
                assert_eq!(value, &None, "too large for a notice: read from the store");
            } else {
                assert_eq!(value.as_deref(), Some(r.value.as_str()));
            }
        }
        assert_eq!(lines("garbage\n\ts\t1\ns\tnot-a-number\ns\t12").count(), 1);
    }
}
