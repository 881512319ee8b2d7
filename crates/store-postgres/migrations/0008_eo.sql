-- Earth observation: STAC collections and items (scenes) of an account. Bodies are kept as the
-- JSON documents they are (links are made when answering); the columns beside them are what
-- searches filter and sort on. Asset files live in the blob store under <account>/eo/.
--
-- Ids and collection names sort byte by byte (COLLATE "C"), as the SQLite backend sorts them, so
-- that both backends answer a search in the same order.
CREATE EXTENSION IF NOT EXISTS postgis;

CREATE TABLE eo_collections (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    version BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, id)
);

CREATE TABLE eo_items (
    -- Insertion order: the last tie-breaker of every search order.
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id TEXT NOT NULL,
    collection TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    -- The item's time as an interval in milliseconds: datetime, or start/end_datetime.
    start_at BIGINT NOT NULL,
    end_at BIGINT NOT NULL,
    -- The item's WGS84 box as given.
    min_x DOUBLE PRECISION NOT NULL,
    min_y DOUBLE PRECISION NOT NULL,
    max_x DOUBLE PRECISION NOT NULL,
    max_y DOUBLE PRECISION NOT NULL,
    -- The same box as an R*Tree keeps it (32-bit floats, minima rounded down and maxima up, as
    -- SQLite's R*Tree rounds them): box searches decide on these, so that they find exactly what
    -- the SQLite backend finds.
    box_min_x REAL NOT NULL,
    box_min_y REAL NOT NULL,
    box_max_x REAL NOT NULL,
    box_max_y REAL NOT NULL,
    -- That box as a footprint, for the GiST index box searches narrow with (`&&`).
    footprint geometry(Geometry, 4326) GENERATED ALWAYS AS
        (ST_MakeEnvelope(box_min_x, box_min_y, box_max_x, box_max_y, 4326)) STORED,
    body TEXT NOT NULL,
    version BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (account_id, collection, id),
    FOREIGN KEY (account_id, collection) REFERENCES eo_collections (account_id, id) ON DELETE CASCADE
);
-- The default order of searches (newest first, ties by id, then insertion).
CREATE INDEX eo_items_by_time ON eo_items (account_id, start_at DESC, id, seq);
CREATE INDEX eo_items_by_id ON eo_items (account_id, id);
-- Counts of time-filtered searches read this index alone.
CREATE INDEX eo_items_span ON eo_items (account_id, start_at, end_at, collection);
CREATE INDEX eo_items_footprint ON eo_items USING gist (footprint);
