use crate::common::{open, TestResult};
use std::time::{Duration, Instant};

/// Asks for `duty` until it is given (a lead let go is freed soon after it is dropped).
async fn lead_within(store: &meridian_store::Store, duty: &str) -> TestResult<meridian_store::duties::Lead> {
    let start = Instant::now();
    loop {
        if let Some(lead) = store.duties.try_lead(duty).await? {
            return Ok(lead);
        }
        assert!(start.elapsed() < Duration::from_secs(5), "the lead of {duty} was never freed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_duty_has_one_leader_at_a_time_and_a_dropped_lead_is_taken_over() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let first = store.duties.try_lead("retention").await?.expect("a free duty is given");
    assert!(store.duties.try_lead("retention").await?.is_none(), "a held duty is not given twice");
    let other = store.duties.try_lead("twin_retention").await?;
    assert!(other.is_some(), "each duty is its own");

    // Another node on the same database (only PostgreSQL is shared by several processes).
    let node = match std::env::var("MERIDIAN_TEST_POSTGRES") {
        Ok(_) => Some(open(dir.path()).await?),
        Err(_) => None,
    };
    if let Some(node) = &node {
        assert!(node.duties.try_lead("retention").await?.is_none(), "another node waits for the lead");
    }
    drop(first);
    match &node {
        Some(node) => drop(lead_within(node, "retention").await?),
        None => drop(lead_within(&store, "retention").await?),
    }
    drop(lead_within(&store, "retention").await?);
    Ok(())
}
