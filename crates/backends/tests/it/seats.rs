use crate::common::{open, TestResult};
use std::time::{Duration, Instant};

#[tokio::test]
async fn a_cap_counts_the_seats_of_every_node_and_a_dropped_seat_frees_one() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    // Another node on the same database (only PostgreSQL is shared by several processes).
    let node = match std::env::var("MERIDIAN_TEST_POSTGRES") {
        Ok(_) => open(dir.path()).await?,
        Err(_) => store.clone(),
    };
    let first = store.seats.take("ws", "acct_1", 3).await?.expect("a free seat");
    let second = node.seats.take("ws", "acct_1", 3).await?.expect("a free seat");
    let third = store.seats.take("ws", "acct_1", 3).await?.expect("a free seat");
    assert!(node.seats.take("ws", "acct_1", 3).await?.is_none(), "three are held, on both nodes together");
    assert!(store.seats.take("ws", "acct_1", 3).await?.is_none());
    assert!(node.seats.take("ws", "acct_2", 3).await?.is_some(), "another account has its own");
    assert!(node.seats.take("other", "acct_1", 3).await?.is_some(), "and another kind");

    // A seat given back on one node is free on the other soon after.
    drop(first);
    let start = Instant::now();
    let again = loop {
        if let Some(seat) = node.seats.take("ws", "acct_1", 3).await? {
            break seat;
        }
        assert!(start.elapsed() < Duration::from_secs(5), "the seat given back was never freed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(store.seats.take("ws", "acct_1", 3).await?.is_none(), "the freed seat was taken again");
    drop((second, third, again));
    Ok(())
}

#[tokio::test]
async fn seats_taken_at_once_on_two_nodes_never_pass_the_cap() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let node = match std::env::var("MERIDIAN_TEST_POSTGRES") {
        Ok(_) => open(dir.path()).await?,
        Err(_) => store.clone(),
    };
    let mut tries = Vec::new();
    for i in 0..40 {
        let s = if i % 2 == 0 { store.clone() } else { node.clone() };
        tries.push(tokio::spawn(async move { s.seats.take("ws", "acct_race", 7).await }));
    }
    let mut held = Vec::new();
    for t in tries {
        if let Some(seat) = t.await?? {
            held.push(seat);
        }
    }
    assert_eq!(held.len(), 7, "exactly the cap was given");
    Ok(())
}
