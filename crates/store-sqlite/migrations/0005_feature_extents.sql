-- The extent of each collection's live features (CRS84 bbox and the span of updated_at), kept
-- as JSON and computed when first asked for after a change; every write to a collection clears it.

ALTER TABLE feature_collections ADD COLUMN extent TEXT;
