use crate::error::db;
use crate::PgDb;
use async_trait::async_trait;
use meridian_store::repo::SettingsRepo;
use meridian_store::Result;

#[async_trait]
impl SettingsRepo for PgDb {
    async fn get_or_init(&self, key: &str, init: &str) -> Result<String> {
        let mut tx = self.write().await?;
        sqlx::query("INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
            .bind(key)
            .bind(init)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        let value: String = sqlx::query_scalar("SELECT value FROM settings WHERE key = $1")
            .bind(key)
            .fetch_one(&mut *tx)
            .await
            .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(value)
    }
}
