use crate::error::db;
use crate::error::is_unique_violation;
use crate::{ts, PgDb};
use async_trait::async_trait;
use meridian_core::id::{AccountId, ApiKeyId};
use meridian_core::page::Page;
use meridian_core::scope::Scope;
use meridian_core::{DomainError, Timestamp};
use meridian_store::model::{Account, ApiKey};
use meridian_store::repo::AccountRepo;
use meridian_store::{Result, StoreError};
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};

const KEY_COLUMNS: &str = "id, account_id, name, prefix, hash, scopes, created_at, expires_at, revoked_at";

fn account_from_row(row: &PgRow) -> Result<Account> {
    Ok(Account {
        id: AccountId(row.try_get("id").map_err(db)?),
        name: row.try_get("name").map_err(db)?,
        email: row.try_get("email").map_err(db)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
    })
}

fn key_from_row(row: &PgRow) -> Result<ApiKey> {
    let scopes: Vec<String> = serde_json::from_str(&row.try_get::<String, _>("scopes").map_err(db)?)?;
    let scopes = scopes.iter().map(|s| s.parse::<Scope>().map_err(StoreError::Corrupt)).collect::<Result<Vec<_>>>()?;
    Ok(ApiKey {
        id: ApiKeyId(row.try_get("id").map_err(db)?),
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        name: row.try_get("name").map_err(db)?,
        prefix: row.try_get("prefix").map_err(db)?,
        hash: row.try_get("hash").map_err(db)?,
        scopes,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        expires_at: ts(row.try_get("expires_at").map_err(db)?),
        revoked_at: ts(row.try_get("revoked_at").map_err(db)?),
    })
}

async fn insert_key(conn: &mut PgConnection, key: &ApiKey) -> Result<()> {
    let scopes: Vec<String> = key.scopes.iter().map(ToString::to_string).collect();
    sqlx::query(
        "INSERT INTO api_keys (id, account_id, name, prefix, hash, scopes, created_at, expires_at, revoked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(key.id.as_str())
    .bind(key.account_id.as_str())
    .bind(&key.name)
    .bind(&key.prefix)
    .bind(&key.hash)
    .bind(serde_json::to_string(&scopes)?)
    .bind(key.created_at.millis())
    .bind(key.expires_at.map(|t| t.millis()))
    .bind(key.revoked_at.map(|t| t.millis()))
    .execute(conn)
    .await
    .map_err(db)?;
    Ok(())
}

#[async_trait]
impl AccountRepo for PgDb {
    async fn create_account(&self, account: &Account, first_key: &ApiKey) -> Result<()> {
        let mut tx = self.write().await?;
        let inserted = sqlx::query("INSERT INTO accounts (id, name, email, created_at) VALUES ($1, $2, $3, $4)")
            .bind(account.id.as_str())
            .bind(&account.name)
            .bind(&account.email)
            .bind(account.created_at.millis())
            .execute(&mut *tx)
            .await;
        match inserted {
            Err(e) if is_unique_violation(&e) => {
                return Err(DomainError::conflict("email_taken", "an account with this email already exists").into())
            }
            other => other.map_err(db)?,
        };
        insert_key(&mut tx, first_key).await?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn get_account(&self, id: &AccountId) -> Result<Option<Account>> {
        let row = sqlx::query("SELECT id, name, email, created_at FROM accounts WHERE id = $1")
            .bind(id.as_str())
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(account_from_row).transpose()
    }

    async fn create_api_key(&self, key: &ApiKey) -> Result<()> {
        let mut tx = self.write().await?;
        insert_key(&mut tx, key).await?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn list_api_keys(&self, account: &AccountId, page: Page) -> Result<(Vec<ApiKey>, u64)> {
        // Newest first by insertion order (`seq`): ids sort by time only to the millisecond, so
        // keys created within one millisecond would come back in random order.
        let anchor: Option<(i64,)> =
            self.anchor("SELECT seq FROM api_keys WHERE account_id = $1 AND id = $2", account.as_str(), &page).await?;
        let rows = sqlx::query(&format!(
            "SELECT {KEY_COLUMNS} FROM api_keys WHERE account_id = $1 AND ($4::bigint IS NULL OR seq < $4)
             ORDER BY seq DESC LIMIT $2 OFFSET $3"
        ))
        .bind(account.as_str())
        .bind(i64::from(page.limit))
        .bind(page.skip(anchor.is_some()))
        .bind(anchor.map(|a| a.0))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        let total: i64 = sqlx::query_scalar("SELECT count(*) FROM api_keys WHERE account_id = $1")
            .bind(account.as_str())
            .fetch_one(self.read())
            .await
            .map_err(db)?;
        Ok((rows.iter().map(key_from_row).collect::<Result<_>>()?, total as u64))
    }

    async fn get_api_key(&self, account: &AccountId, id: &ApiKeyId) -> Result<Option<ApiKey>> {
        let row = sqlx::query(&format!("SELECT {KEY_COLUMNS} FROM api_keys WHERE account_id = $1 AND id = $2"))
            .bind(account.as_str())
            .bind(id.as_str())
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(key_from_row).transpose()
    }

    async fn find_api_key_by_hash(&self, hash: &str) -> Result<Option<ApiKey>> {
        let row = sqlx::query(&format!("SELECT {KEY_COLUMNS} FROM api_keys WHERE hash = $1"))
            .bind(hash)
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(key_from_row).transpose()
    }

    async fn revoke_api_key(&self, account: &AccountId, id: &ApiKeyId, at: Timestamp) -> Result<ApiKey> {
        let mut tx = self.write().await?;
        sqlx::query("UPDATE api_keys SET revoked_at = $1 WHERE account_id = $2 AND id = $3 AND revoked_at IS NULL")
            .bind(at.millis())
            .bind(account.as_str())
            .bind(id.as_str())
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        let row = sqlx::query(&format!("SELECT {KEY_COLUMNS} FROM api_keys WHERE account_id = $1 AND id = $2"))
            .bind(account.as_str())
            .bind(id.as_str())
            .fetch_optional(&mut *tx)
            .await
            .map_err(db)?;
        let key = row
            .as_ref()
            .map(key_from_row)
            .transpose()?
            .ok_or_else(|| DomainError::not_found("api key", id.as_str()))?;
        tx.commit().await.map_err(db)?;
        Ok(key)
    }
}
