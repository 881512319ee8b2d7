-- A collection being imported in batches is written with `importing = 1`: its rows and features
-- are there, but no read lists or finds it until the import flips it to 0 (or removes it all).
ALTER TABLE feature_collections ADD COLUMN importing INTEGER NOT NULL DEFAULT 0;
