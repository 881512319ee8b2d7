use super::SqliteDb;
use crate::repo::SettingsRepo;
use crate::Result;
use async_trait::async_trait;

#[async_trait]
impl SettingsRepo for SqliteDb {
    async fn get_or_init(&self, key: &str, init: &str) -> Result<String> {
        let mut tx = self.write().await?;
        sqlx::query("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING")
            .bind(key)
            .bind(init)
            .execute(&mut *tx)
            .await?;
        let value: String =
            sqlx::query_scalar("SELECT value FROM settings WHERE key = ?").bind(key).fetch_one(&mut *tx).await?;
        tx.commit().await?;
        Ok(value)
    }
}
