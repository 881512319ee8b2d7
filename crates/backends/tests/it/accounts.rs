use crate::common::{conflict_code, create_account, is_not_found, new_account, new_key, open, page, TestResult};
use meridian_core::id::ApiKeyId;
use meridian_core::Timestamp;
use std::collections::HashSet;

#[tokio::test]
async fn account_and_first_key_are_created_together() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let (account, key) = new_account("ann@example.com");
    store.accounts.create_account(&account, &key).await?;

    assert_eq!(store.accounts.get_account(&account.id).await?, Some(account.clone()));
    assert_eq!(store.accounts.get_api_key(&account.id, &key.id).await?, Some(key.clone()));
    let (keys, total) = store.accounts.list_api_keys(&account.id, page(10, 0)).await?;
    assert_eq!((keys, total), (vec![key.clone()], 1));

    // A second account whose first key cannot be stored (its hash is taken) must not be created
    // either: the account and its key commit in one transaction.
    let (other, mut other_key) = new_account("bob@example.com");
    other_key.hash = key.hash.clone();
    assert!(store.accounts.create_account(&other, &other_key).await.is_err());
    assert_eq!(store.accounts.get_account(&other.id).await?, None);
    assert_eq!(store.accounts.get_api_key(&other.id, &other_key.id).await?, None);

    // Nothing was left half-done: the same account can be created with a good key.
    let other_key = new_key(&other.id, "first");
    store.accounts.create_account(&other, &other_key).await?;
    assert_eq!(store.accounts.get_account(&other.id).await?, Some(other));
    Ok(())
}

#[tokio::test]
async fn duplicate_email_is_a_conflict_whatever_its_case_and_leaves_no_key() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let (first, first_key) = new_account("Ann@Example.com");
    store.accounts.create_account(&first, &first_key).await?;

    let (second, second_key) = new_account("ann@EXAMPLE.COM");
    let err = store.accounts.create_account(&second, &second_key).await.err().ok_or("duplicate email was accepted")?;
    assert_eq!(conflict_code(&err), Some("email_taken"), "{err:?}");

    assert_eq!(store.accounts.get_account(&second.id).await?, None);
    assert_eq!(store.accounts.find_api_key_by_hash(&second_key.hash).await?, None);
    assert_eq!(store.accounts.list_api_keys(&second.id, page(10, 0)).await?.1, 0);
    assert_eq!(store.accounts.list_api_keys(&first.id, page(10, 0)).await?.1, 1);
    Ok(())
}

#[tokio::test]
async fn keys_are_found_by_hash() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let (account, first) = new_account("ann@example.com");
    store.accounts.create_account(&account, &first).await?;
    let mut second = new_key(&account.id, "second");
    second.expires_at = Some(Timestamp::now().plus(std::time::Duration::from_secs(3600)));
    store.accounts.create_api_key(&second).await?;

    assert_eq!(store.accounts.find_api_key_by_hash(&first.hash).await?, Some(first.clone()));
    assert_eq!(store.accounts.find_api_key_by_hash(&second.hash).await?, Some(second.clone()));
    assert_eq!(store.accounts.find_api_key_by_hash("no-such-hash").await?, None);
    Ok(())
}

#[tokio::test]
async fn keys_are_listed_newest_first_in_pages_with_a_total() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let (account, first) = new_account("ann@example.com");
    store.accounts.create_account(&account, &first).await?;
    let mut created = vec![first.id.clone()];
    for n in 0..11 {
        let key = new_key(&account.id, &format!("key {n}"));
        store.accounts.create_api_key(&key).await?;
        created.push(key.id);
    }
    // Another account's keys are not counted.
    create_account(&store, "bob@example.com").await?;

    let mut listed = Vec::new();
    for offset in (0..12).step_by(5) {
        let (keys, total) = store.accounts.list_api_keys(&account.id, page(5, offset)).await?;
        assert_eq!(total, 12);
        assert_eq!(keys.len(), if offset == 10 { 2 } else { 5 });
        assert!(keys.iter().all(|k| k.account_id == account.id));
        listed.extend(keys.into_iter().map(|k| k.id));
    }
    let newest_first: Vec<ApiKeyId> = created.iter().rev().cloned().collect();
    assert_eq!(listed, newest_first);
    assert_eq!(listed.iter().collect::<HashSet<_>>().len(), 12);

    let (beyond, total) = store.accounts.list_api_keys(&account.id, page(5, 100)).await?;
    assert!(beyond.is_empty());
    assert_eq!(total, 12);
    Ok(())
}

#[tokio::test]
async fn revoking_is_idempotent_and_scoped_to_the_account() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let (ann, ann_key) = new_account("ann@example.com");
    store.accounts.create_account(&ann, &ann_key).await?;
    let (bob, bob_key) = new_account("bob@example.com");
    store.accounts.create_account(&bob, &bob_key).await?;

    let first_time = Timestamp::from_millis(Timestamp::now().millis() - 1000);
    let revoked = store.accounts.revoke_api_key(&ann.id, &ann_key.id, first_time).await?;
    assert_eq!(revoked.revoked_at, Some(first_time));
    assert!(!revoked.is_usable(Timestamp::now()));

    let again = store.accounts.revoke_api_key(&ann.id, &ann_key.id, Timestamp::now()).await?;
    assert_eq!(again.revoked_at, Some(first_time), "a second revoke keeps the first time");
    assert_eq!(store.accounts.find_api_key_by_hash(&ann_key.hash).await?.and_then(|k| k.revoked_at), Some(first_time));

    // Bob cannot revoke (or learn about) Ann's key, nor a key that does not exist.
    let err = store.accounts.revoke_api_key(&bob.id, &ann_key.id, Timestamp::now()).await.err().ok_or("revoked")?;
    assert!(is_not_found(&err), "{err:?}");
    let err = store.accounts.revoke_api_key(&ann.id, &bob_key.id, Timestamp::now()).await.err().ok_or("revoked")?;
    assert!(is_not_found(&err), "{err:?}");
    assert_eq!(store.accounts.get_api_key(&bob.id, &bob_key.id).await?.and_then(|k| k.revoked_at), None);
    let err =
        store.accounts.revoke_api_key(&ann.id, &ApiKeyId::generate(), Timestamp::now()).await.err().ok_or("revoked")?;
    assert!(is_not_found(&err), "{err:?}");
    assert_eq!(store.accounts.get_api_key(&ann.id, &bob_key.id).await?, None);
    Ok(())
}
