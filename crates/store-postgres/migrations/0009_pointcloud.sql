-- Point clouds: one row per uploaded LAS/LAZ file; what indexing and classification found lives
-- in `body` as JSON; `status` and `version` are columns because lists and conditional updates
-- read them.
CREATE TABLE pc_datasets (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    status TEXT NOT NULL,
    body TEXT NOT NULL,
    version BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, id)
);
CREATE INDEX pc_datasets_newest ON pc_datasets (account_id, created_at DESC, id DESC);
