use crate::common::{event, open, page, TestResult};
use meridian_core::id::AccountId;
use meridian_core::Timestamp;

#[tokio::test]
async fn pending_events_come_oldest_first_until_marked_dispatched() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let ann = AccountId::generate();
    let bob = AccountId::generate();
    let appended = vec![
        event(&ann, "dns.zone.created", 0),
        event(&bob, "dns.zone.created", 1),
        event(&ann, "dns.record.created", 2),
    ];
    store.outbox.append(&appended[..2]).await?;
    store.outbox.append(&appended[2..]).await?;
    store.outbox.append(&[]).await?;

    let pending = store.outbox.pending(10).await?;
    assert_eq!(pending.len(), 3);
    assert!(pending.windows(2).all(|w| w[0].seq < w[1].seq), "oldest first: {pending:?}");
    for (stored, new) in pending.iter().zip(&appended) {
        assert_eq!(stored.id, new.id);
        assert_eq!(stored.account_id, new.account_id);
        assert_eq!(stored.event_type, new.event_type);
        assert_eq!(stored.timestamp, new.timestamp);
        assert_eq!(stored.payload, new.payload);
    }
    assert_eq!(store.outbox.pending(2).await?, pending[..2]);

    store.outbox.mark_dispatched(&[pending[0].seq, pending[1].seq], Timestamp::now()).await?;
    assert_eq!(store.outbox.pending(10).await?, pending[2..]);
    store.outbox.mark_dispatched(&[pending[2].seq], Timestamp::now()).await?;
    assert!(store.outbox.pending(10).await?.is_empty());

    // Dispatched events stay listed.
    assert_eq!(store.outbox.list_events(&ann, page(10, 0)).await?.1, 2);
    Ok(())
}

#[tokio::test]
async fn events_are_listed_per_account_newest_first() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let ann = AccountId::generate();
    let bob = AccountId::generate();
    let mut ann_events = Vec::new();
    for n in 0..5 {
        let e = event(&ann, "dns.record.created", n);
        store.outbox.append(&[e.clone(), event(&bob, "dns.record.created", n)]).await?;
        ann_events.push(e.id);
    }

    let (first, total) = store.outbox.list_events(&ann, page(3, 0)).await?;
    assert_eq!(total, 5);
    let (rest, total) = store.outbox.list_events(&ann, page(3, 3)).await?;
    assert_eq!(total, 5);
    let listed: Vec<_> = first.iter().chain(&rest).collect();
    assert!(listed.iter().all(|e| e.account_id == ann));
    assert!(listed.windows(2).all(|w| w[0].seq > w[1].seq), "newest first");
    let ids: Vec<_> = listed.iter().map(|e| e.id.clone()).collect();
    ann_events.reverse();
    assert_eq!(ids, ann_events);

    assert_eq!(store.outbox.list_events(&bob, page(100, 0)).await?.0.len(), 5);
    let (none, total) = store.outbox.list_events(&AccountId::generate(), page(10, 0)).await?;
    assert!(none.is_empty());
    assert_eq!(total, 0);
    Ok(())
}
