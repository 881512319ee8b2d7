CREATE EXTENSION IF NOT EXISTS postgis;

-- Feature collections (the cadastre's parcels and user collections), their features with a GiST
-- index on bounding boxes, the values of their properties, and every version of every feature.
-- This is the whole schema of the feature store: 0005, 0006 and 0011 (the steps the SQLite
-- schema took to get here) have nothing left to do.
--
-- Text that is compared or sorted (ids, property values) is in the "C" collation: byte order of
-- UTF-8, as SQLite compares text, whatever the database's default collation is.

-- `extent` is the kept extent of the live features (JSON, NULL when it must be computed again:
-- every write to the collection clears it); `feature_count` the number of live features, kept by
-- every insert and retirement; `importing` hides a collection being imported in batches from
-- every read until the import is finished.
CREATE TABLE feature_collections (
    account_id     TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id             TEXT COLLATE "C" NOT NULL,
    title          TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    extent         TEXT,
    feature_count  BIGINT NOT NULL DEFAULT 0,
    importing      BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (account_id, id)
);

-- `seq` is the insertion order (the keyset of unsorted scans). The box (`min_x`..`max_y`, CRS84)
-- is the feature's own, kept for live features only (a retirement clears it); `bbox` is the same
-- box as a polygon for the GiST index, whose float4 boxes hold the exact ones (rounded outward),
-- so that an index test narrows to candidates and the exact comparisons on the columns decide.
CREATE TABLE features (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           TEXT COLLATE "C" NOT NULL UNIQUE,
    account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    collection   TEXT COLLATE "C" NOT NULL,
    geometry     TEXT,
    properties   TEXT NOT NULL,
    lot          TEXT,
    plan         TEXT,
    tenure       TEXT,
    version      BIGINT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    retired_at   BIGINT,
    min_x        DOUBLE PRECISION,
    min_y        DOUBLE PRECISION,
    max_x        DOUBLE PRECISION,
    max_y        DOUBLE PRECISION,
    bbox         geometry(Geometry, 4326)
                 GENERATED ALWAYS AS (ST_MakeEnvelope(min_x, min_y, max_x, max_y, 4326)) STORED,
    CONSTRAINT features_box CHECK (
        (min_x IS NULL AND min_y IS NULL AND max_x IS NULL AND max_y IS NULL)
        OR (min_x <= max_x AND min_y <= max_y)
    )
);
CREATE INDEX features_listing ON features (account_id, collection, retired_at, seq);
CREATE INDEX features_updated ON features (account_id, collection, updated_at);
CREATE INDEX features_bbox ON features USING gist (bbox) WHERE retired_at IS NULL;
-- (lot, plan) identity is a rule of the cadastre's parcels only: other collections may repeat them.
CREATE UNIQUE INDEX features_lot_plan ON features (account_id, lot, plan)
    WHERE collection = 'parcels' AND retired_at IS NULL AND lot IS NOT NULL AND plan IS NOT NULL;

-- Property values of live features, one row per top-level property (strings, and arrays/objects
-- as their JSON text, in `text`; numbers in `num`; booleans in `flag`), so that equality and range
-- filters on any queryable use an index instead of reading every feature, and a comparison only
-- meets values of its own type.
CREATE TABLE feature_values (
    seq          BIGINT NOT NULL,
    account_id   TEXT NOT NULL,
    collection   TEXT COLLATE "C" NOT NULL,
    key          TEXT COLLATE "C" NOT NULL,
    text         TEXT COLLATE "C",
    num          DOUBLE PRECISION,
    flag         BOOLEAN
);
CREATE INDEX feature_values_text ON feature_values (account_id, collection, key, text, seq) WHERE text IS NOT NULL;
CREATE INDEX feature_values_num ON feature_values (account_id, collection, key, num, seq) WHERE num IS NOT NULL;
CREATE INDEX feature_values_flag ON feature_values (account_id, collection, key, flag, seq) WHERE flag IS NOT NULL;
CREATE INDEX feature_values_seq ON feature_values (seq);

CREATE TABLE feature_versions (
    feature_id   TEXT COLLATE "C" NOT NULL,
    version      BIGINT NOT NULL,
    change       TEXT NOT NULL,
    geometry     TEXT,
    properties   TEXT NOT NULL,
    recorded_at  BIGINT NOT NULL,
    PRIMARY KEY (feature_id, version)
);

-- Features and value rows are looked up by account and collection together (and by key), which
-- are far from independent: without these the planner multiplies their selectivities and
-- expects a handful of rows where a collection has thousands.
CREATE STATISTICS features_scope (ndistinct, dependencies) ON account_id, collection FROM features;
CREATE STATISTICS feature_values_scope (ndistinct, dependencies) ON account_id, collection, key FROM feature_values;
