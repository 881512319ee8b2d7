-- Feature collections (the cadastre's parcels and user collections), their features with an
-- R*Tree index on bounding boxes, and every version of every feature.

CREATE TABLE feature_collections (
    account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id           TEXT NOT NULL,
    title        TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (account_id, id)
);

CREATE TABLE features (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    collection   TEXT NOT NULL,
    geometry     TEXT,
    properties   TEXT NOT NULL,
    lot          TEXT,
    plan         TEXT,
    tenure       TEXT,
    version      INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    retired_at   INTEGER
);
CREATE INDEX features_listing ON features (account_id, collection, retired_at, seq);
CREATE INDEX features_updated ON features (account_id, collection, updated_at);
CREATE UNIQUE INDEX features_lot_plan ON features (account_id, collection, lot, plan)
    WHERE retired_at IS NULL AND lot IS NOT NULL AND plan IS NOT NULL;

CREATE VIRTUAL TABLE features_rtree USING rtree (seq, min_x, max_x, min_y, max_y);

CREATE TABLE feature_versions (
    feature_id   TEXT NOT NULL,
    version      INTEGER NOT NULL,
    change       TEXT NOT NULL,
    geometry     TEXT,
    properties   TEXT NOT NULL,
    recorded_at  INTEGER NOT NULL,
    PRIMARY KEY (feature_id, version)
);
