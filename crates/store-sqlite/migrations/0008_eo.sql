-- Earth observation: STAC collections and items (scenes) of an account. Bodies are kept as the
-- JSON documents they are (links are made when answering); the columns beside them are what
-- searches filter and sort on. Asset files live in the blob store under <account>/eo/.
CREATE TABLE eo_collections (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    body TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, id)
);

CREATE TABLE eo_items (
    seq INTEGER PRIMARY KEY,
    account_id TEXT NOT NULL,
    collection TEXT NOT NULL,
    id TEXT NOT NULL,
    -- The item's time as an interval in milliseconds: datetime, or start/end_datetime.
    start_at INTEGER NOT NULL,
    end_at INTEGER NOT NULL,
    min_x REAL NOT NULL,
    min_y REAL NOT NULL,
    max_x REAL NOT NULL,
    max_y REAL NOT NULL,
    body TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (account_id, collection, id),
    FOREIGN KEY (account_id, collection) REFERENCES eo_collections (account_id, id) ON DELETE CASCADE
);
-- The default order of searches (newest first, ties by id, then insertion).
CREATE INDEX eo_items_by_time ON eo_items (account_id, start_at DESC, id, seq);
CREATE INDEX eo_items_by_id ON eo_items (account_id, id);
-- Counts of time-filtered searches read this index alone.
CREATE INDEX eo_items_span ON eo_items (account_id, start_at, end_at, collection);

CREATE VIRTUAL TABLE eo_items_rtree USING rtree (seq, min_x, max_x, min_y, max_y);

CREATE TRIGGER eo_items_rtree_insert AFTER INSERT ON eo_items BEGIN
    INSERT INTO eo_items_rtree (seq, min_x, max_x, min_y, max_y)
    VALUES (new.seq, new.min_x, new.max_x, new.min_y, new.max_y);
END;
CREATE TRIGGER eo_items_rtree_update AFTER UPDATE OF min_x, min_y, max_x, max_y ON eo_items BEGIN
    UPDATE eo_items_rtree SET min_x = new.min_x, max_x = new.max_x, min_y = new.min_y, max_y = new.max_y
    WHERE seq = new.seq;
END;
CREATE TRIGGER eo_items_rtree_delete AFTER DELETE ON eo_items BEGIN
    DELETE FROM eo_items_rtree WHERE seq = old.seq;
END;
