-- DEM datasets as rows: listing, paging and the OGC layer catalogue read these rather than
-- listing the blob store. The files stay in the blob store under <account>/dem/datasets/<id>/.
CREATE TABLE dem_datasets (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    filename TEXT,
    size INTEGER NOT NULL,
    -- What the raster engine found (width, height, bands, CRS, bounds, zooms), as JSON.
    info TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, id)
);
CREATE INDEX dem_datasets_newest ON dem_datasets (account_id, created_at DESC, id DESC);
