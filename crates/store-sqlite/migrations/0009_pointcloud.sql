-- Point clouds: one row per uploaded LAS/LAZ file. The files (the original, the classified
-- version, cached conversions) are blobs under <account>/pointcloud/<id>/. What indexing and
-- classification found lives in `body` as JSON; `status` and `version` are columns because
-- lists and conditional updates read them.
CREATE TABLE pc_datasets (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    status TEXT NOT NULL,
    body TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, id)
);
CREATE INDEX pc_datasets_newest ON pc_datasets (account_id, created_at DESC, id DESC);
