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
    assert_eq!(store.outbox.list_events(&ann, &Default::default(), page(10, 0)).await?.1, 2);
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

    let (first, total) = store.outbox.list_events(&ann, &Default::default(), page(3, 0)).await?;
    assert_eq!(total, 5);
    let (rest, total) = store.outbox.list_events(&ann, &Default::default(), page(3, 3)).await?;
    assert_eq!(total, 5);
    let listed: Vec<_> = first.iter().chain(&rest).collect();
    assert!(listed.iter().all(|e| e.account_id == ann));
    assert!(listed.windows(2).all(|w| w[0].seq > w[1].seq), "newest first");
    let ids: Vec<_> = listed.iter().map(|e| e.id.clone()).collect();
    ann_events.reverse();
    assert_eq!(ids, ann_events);

    assert_eq!(store.outbox.list_events(&bob, &Default::default(), page(100, 0)).await?.0.len(), 5);
    let (none, total) = store.outbox.list_events(&AccountId::generate(), &Default::default(), page(10, 0)).await?;
    assert!(none.is_empty());
    assert_eq!(total, 0);
    Ok(())
}

#[tokio::test]
async fn events_are_filtered_by_type_and_payload_member_and_paged_by_cursor() -> TestResult {
    use meridian_core::event::NewEvent;
    use meridian_core::page::Page;
    use meridian_store::repo::EventFilter;
    use serde_json::{Map, Value};

    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let ann = AccountId::generate();
    let bob = AccountId::generate();
    let about = |account: &AccountId, kind: &str, zone: &str| {
        let mut fields = Map::new();
        fields.insert("zone_id".into(), Value::from(zone));
        NewEvent::new(account.clone(), kind, fields)
    };
    let mut zone_a = Vec::new();
    for n in 0..7 {
        let mine = about(&ann, if n % 2 == 0 { "dns.record.created" } else { "dns.record.deleted" }, "zone_a");
        zone_a.push(mine.id.clone());
        store
            .outbox
            .append(&[
                mine,
                about(&ann, "dns.record.created", "zone_b"),
                about(&ann, "cadastre.parcel.created", "zone_a"),
                about(&bob, "dns.record.created", "zone_a"),
            ])
            .await?;
    }
    zone_a.reverse();
    let filter = EventFilter { type_prefix: Some("dns.".into()), field: Some(("zone_id".into(), "zone_a".into())) };

    // Offset pages and cursor pages give the same events, newest first, with the same total.
    let (first, total) = store.outbox.list_events(&ann, &filter, page(3, 0)).await?;
    assert_eq!(total, 7);
    let ids = |events: &[meridian_core::event::Event]| events.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&first), zone_a[..3]);
    let cursor = page(3, 0).cursor(first[2].id.as_str());
    let next = Page::with_cursor(Some(3), None, Some(&cursor), 3, 100)?;
    let (second, total) = store.outbox.list_events(&ann, &filter, next).await?;
    assert_eq!((ids(&second), total), (zone_a[3..6].to_vec(), 7));
    assert_eq!(ids(&store.outbox.list_events(&ann, &filter, page(3, 3)).await?.0), zone_a[3..6]);

    // The type prefix alone, the member alone, a member name that is not a plain name.
    let dns = EventFilter { type_prefix: Some("dns.".into()), field: None };
    assert_eq!(store.outbox.list_events(&ann, &dns, page(100, 0)).await?.1, 14);
    let zone = EventFilter { type_prefix: None, field: Some(("zone_id".into(), "zone_a".into())) };
    assert_eq!(store.outbox.list_events(&ann, &zone, page(100, 0)).await?.1, 14);
    let odd = EventFilter { type_prefix: None, field: Some(("zone_id') OR 1=1 --".into(), "x".into())) };
    assert_eq!(store.outbox.list_events(&ann, &odd, page(100, 0)).await?, (Vec::new(), 0));
    // Another account's events are never there.
    assert_eq!(store.outbox.list_events(&bob, &filter, page(100, 0)).await?.1, 7);
    Ok(())
}
