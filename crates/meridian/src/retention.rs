//! The retention sweep: finished jobs (and a DEM job's output files), dispatched events and
//! finished webhook deliveries older than their configured retention are removed, hourly, in
//! batches small enough that other writes never wait long behind one.

use meridian_core::config::Config;
use meridian_core::Timestamp;
use meridian_store::Store;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Rows removed per statement.
const BATCH: u32 = 1000;

/// Removes what is past its retention every hour until `stop`, on the node that leads the
/// sweep that hour.
pub(crate) async fn run(store: Store, config: std::sync::Arc<Config>, stop: CancellationToken) {
    let every = crate::duties::every(store.clone(), "retention", Duration::from_secs(3600), stop.clone(), || {
        let (store, config, stop) = (store.clone(), config.clone(), stop.clone());
        async move {
            if let Err(e) = sweep(&store, &config, &stop).await {
                tracing::warn!(error = %e, "the retention sweep failed; trying again in an hour");
            }
        }
    });
    every.await
}

/// What one sweep removed.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Swept {
    pub(crate) jobs: u64,
    pub(crate) events: u64,
    pub(crate) deliveries: u64,
}

fn cutoff(keep: Duration) -> Option<Timestamp> {
    (!keep.is_zero()).then(|| Timestamp::from_millis(Timestamp::now().millis() - keep.as_millis() as i64))
}

/// One pass over every kind of record.
pub(crate) async fn sweep(store: &Store, config: &Config, stop: &CancellationToken) -> anyhow::Result<Swept> {
    let mut swept = Swept::default();
    if let Some(before) = cutoff(config.jobs.retention) {
        while !stop.is_cancelled() {
            let jobs = store.jobs.purge_finished(before, BATCH).await?;
            for job in jobs.iter().filter(|j| j.kind == meridian_dem::JOB_KIND) {
                let folder = meridian_dem::blobs::keys::job_outputs(&job.account_id, &job.id);
                if let Err(e) = store.blobs.delete_prefix(&folder).await {
                    tracing::warn!(error = %e, job = %job.id, "removing an expired job's outputs failed");
                }
            }
            swept.jobs += jobs.len() as u64;
            if jobs.len() < BATCH as usize {
                break;
            }
        }
    }
    if let Some(before) = cutoff(config.events.retention) {
        while !stop.is_cancelled() {
            let n = store.outbox.purge_dispatched(before, BATCH).await?;
            swept.events += n;
            if n < u64::from(BATCH) {
                break;
            }
        }
    }
    if let Some(before) = cutoff(config.webhooks.retention) {
        while !stop.is_cancelled() {
            let n = store.webhooks.purge_completed(before, BATCH).await?;
            swept.deliveries += n;
            if n < u64::from(BATCH) {
                break;
            }
        }
    }
    if swept != Swept::default() {
        tracing::info!(
            jobs = swept.jobs,
            events = swept.events,
            deliveries = swept.deliveries,
            "records past their retention removed"
        );
    }
    Ok(swept)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use meridian_backends::StoreOptions;
    use meridian_core::event::NewEvent;
    use meridian_core::id::{AccountId, ApiKeyId};
    use meridian_store::model::{Account, ApiKey, NewJob};

    /// Finished jobs and dispatched events older than their retention go; a running job, a queued
    /// event and anything within the retention stay; a retention of 0 keeps everything.
    #[tokio::test]
    async fn the_sweep_removes_only_what_is_past_its_retention() {
        let dir = tempfile::tempdir().unwrap();
        let store = meridian_backends::open(&StoreOptions {
            database_url: format!("sqlite://{}/m.db", dir.path().display()),
            blob_url: format!("file://{}/blobs", dir.path().display()),
            readers: 2,
            busy_timeout: Duration::from_secs(5),
            postgres: Default::default(),
        })
        .await
        .unwrap();
        let account = AccountId::generate();
        let key = ApiKeyId::generate();
        let now = Timestamp::now();
        store
            .accounts
            .create_account(
                &Account { id: account.clone(), name: "t".into(), email: "t@example.com".into(), created_at: now },
                &ApiKey {
                    hash: format!("hash-{key}"),
                    prefix: "key_".into(),
                    id: key,
                    account_id: account.clone(),
                    name: "k".into(),
                    scopes: Vec::new(),
                    created_at: now,
                    expires_at: None,
                    revoked_at: None,
                },
            )
            .await
            .unwrap();
        let submit =
            || NewJob { account_id: account.clone(), kind: "k".into(), params: serde_json::json!({}), max_attempts: 1 };
        let done = store.jobs.submit(submit()).await.unwrap();
        let running = store.jobs.submit(submit()).await.unwrap();
        let lease = Duration::from_secs(60);
        let a = store.jobs.claim(&["k".to_owned()], "w", lease).await.unwrap().unwrap();
        let b = store.jobs.claim(&["k".to_owned()], "w", lease).await.unwrap().unwrap();
        assert_eq!((a.id.clone(), b.id.clone()), (done.id.clone(), running.id.clone()));
        store.jobs.succeed(&done.id, "w", serde_json::json!({}), None).await.unwrap();
        store.outbox.append(&[NewEvent::new(account.clone(), "a.b", Default::default())]).await.unwrap();
        let pending = store.outbox.pending(10).await.unwrap();
        store.outbox.mark_dispatched(&[pending[0].seq], Timestamp::now()).await.unwrap();
        store.outbox.append(&[NewEvent::new(account.clone(), "a.c", Default::default())]).await.unwrap();

        let stop = CancellationToken::new();
        let mut config = Config::default();
        // Within the retention: nothing goes.
        assert_eq!(sweep(&store, &config, &stop).await.unwrap(), Swept::default());
        tokio::time::sleep(Duration::from_millis(20)).await;
        config.jobs.retention = Duration::ZERO;
        config.events.retention = Duration::ZERO;
        assert_eq!(sweep(&store, &config, &stop).await.unwrap(), Swept::default());
        config.jobs.retention = Duration::from_millis(5);
        config.events.retention = Duration::from_millis(5);
        let swept = sweep(&store, &config, &stop).await.unwrap();
        assert_eq!(swept, Swept { jobs: 1, events: 1, deliveries: 0 });
        assert!(store.jobs.get_job(&account, &done.id).await.unwrap().is_none());
        assert!(store.jobs.get_job(&account, &running.id).await.unwrap().is_some());
        assert_eq!(store.outbox.pending(10).await.unwrap().len(), 1, "a queued event is never removed");
    }
}
