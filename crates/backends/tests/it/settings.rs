use crate::common::{create_account, open, TestResult};

#[tokio::test]
async fn get_or_init_keeps_the_first_value_across_opens() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    assert_eq!(store.settings.get_or_init("token_secret", "first").await?, "first");
    assert_eq!(store.settings.get_or_init("token_secret", "second").await?, "first");
    assert_eq!(store.settings.get_or_init("other", "x").await?, "x");

    // A second node opening the same file while the first is running.
    let other_node = open(dir.path()).await?;
    assert_eq!(other_node.settings.get_or_init("token_secret", "third").await?, "first");
    drop(other_node);
    drop(store);

    // A restart.
    let restarted = open(dir.path()).await?;
    assert_eq!(restarted.settings.get_or_init("token_secret", "fourth").await?, "first");
    assert_eq!(restarted.settings.get_or_init("other", "y").await?, "x");
    Ok(())
}

#[tokio::test]
async fn reopening_reruns_migrations_as_a_no_op() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "ann@example.com").await?;
    drop(store);

    for _ in 0..2 {
        let store = open(dir.path()).await?;
        assert!(store.accounts.get_account(&account).await?.is_some());
        store.health.ping().await?;
    }
    Ok(())
}
