//! Uploaded DEMs: a GeoTIFF checked by opening it with the engine (header, georeferencing, and
//! every block decoded), its file stored in the blob store under the account and its record
//! as a row (`meridian_store::DemRepo`).

use crate::blobs::keys;
use crate::{DemService, Error, Result};
use meridian_core::id::{AccountId, DatasetId};
use meridian_core::page::Page;
use meridian_core::{DomainError, FieldError, Timestamp};
use meridian_raster::tiff::{GeoTiff, Limits};
use meridian_raster::tile::TileRenderer;
use meridian_store::dem::DemDataset;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What the engine found in a raster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RasterInfo {
    pub width: usize,
    pub height: usize,
    pub bands: usize,
    /// The sample type, e.g. `Float32`.
    pub data_type: String,
    /// EPSG code of the CRS, when the file names one.
    pub epsg: Option<u16>,
    pub nodata: Option<f64>,
    /// GDAL-order geotransform.
    pub geo_transform: [f64; 6],
    /// Reduced-resolution copies in the file.
    pub overviews: usize,
    /// Longitude/latitude bounds (min lon, min lat, max lon, max lat), when the CRS is known.
    pub bounds: Option<[f64; 4]>,
    /// Zoom levels tiles are served at (256-px tiles), when the CRS is known.
    pub minzoom: Option<u8>,
    pub maxzoom: Option<u8>,
}

impl RasterInfo {
    /// Reads what an open GeoTIFF says about itself.
    pub fn of(t: &GeoTiff) -> Self {
        let mut info = Self {
            width: t.width(),
            height: t.height(),
            bands: t.bands(),
            data_type: format!("{:?}", t.data_type()),
            epsg: t.epsg(),
            nodata: t.nodata(),
            geo_transform: t.geo_transform().0,
            overviews: t.images().len().saturating_sub(1),
            bounds: None,
            minzoom: None,
            maxzoom: None,
        };
        if let Ok(r) = TileRenderer::new(t) {
            info.bounds = r.bounds_wgs84().ok().filter(|b| b.iter().all(|v| v.is_finite()));
            if let Ok((lo, hi)) = r.zoom_range(256) {
                info.minzoom = Some(lo);
                info.maxzoom = Some(hi);
            }
        }
        info
    }
}

/// An uploaded DEM.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    pub id: DatasetId,
    pub account_id: AccountId,
    /// The file name the client sent, if any.
    pub filename: Option<String>,
    /// Bytes as uploaded.
    pub size: u64,
    pub info: RasterInfo,
    pub created_at: Timestamp,
}

/// Opens a file with the engine under `limits` and decodes every block: the check an upload
/// must pass. Blocking. The error is a field error at `pointer`: `raster_too_large` when the file
/// declares more than the limits allow, `invalid_raster` when its data cannot be decoded,
/// `not_a_geotiff` otherwise.
pub fn inspect(path: &Path, pointer: &str, limits: Limits) -> std::result::Result<RasterInfo, FieldError> {
    let not_tiff = |e: meridian_raster::Error| match e {
        meridian_raster::Error::TooLarge(m) => FieldError::new(
            pointer,
            "raster_too_large",
            format!("{m} (see the dem.max_pixels, dem.max_chunk_bytes and dem.max_chunks limits)"),
        ),
        meridian_raster::Error::Decode { .. } => {
            FieldError::new(pointer, "invalid_raster", format!("the GeoTIFF's data cannot be decoded: {e}"))
        }
        e => FieldError::new(pointer, "not_a_geotiff", format!("the file is not a GeoTIFF that can be processed: {e}")),
    };
    let t = GeoTiff::open_with(path, limits).map_err(not_tiff)?;
    if t.width() == 0 || t.height() == 0 || t.bands() == 0 {
        return Err(FieldError::new(pointer, "not_a_geotiff", "the GeoTIFF holds no pixels"));
    }
    // The header can be fine while the data cannot be decoded: a compression the engine lacks, or
    // one chunk among many that is damaged or inflates past `dem.max_chunk_bytes` (a bomb). Every
    // chunk of every level is decoded once here, one at a time per thread, so that a dataset that
    // is stored can be drawn and processed.
    for (level, im) in t.images().iter().enumerate() {
        let chunks = im.chunks_across() * im.chunks_down() * if im.planar { im.samples_per_pixel } else { 1 };
        (0..chunks).into_par_iter().try_for_each(|i| t.read_chunk(level, i).map(drop)).map_err(not_tiff)?;
    }
    Ok(RasterInfo::of(&t))
}

impl Dataset {
    /// The dataset as the store keeps it.
    fn to_row(&self) -> Result<DemDataset> {
        Ok(DemDataset {
            id: self.id.as_str().to_owned(),
            account_id: self.account_id.clone(),
            filename: self.filename.clone(),
            size: self.size,
            info: serde_json::to_value(&self.info).map_err(|e| Error::Internal(e.to_string()))?,
            created_at: self.created_at,
        })
    }

    /// A stored row as a dataset.
    fn of_row(row: DemDataset) -> Result<Self> {
        let info = serde_json::from_value(row.info)
            .map_err(|e| Error::Internal(format!("dataset {} has an unreadable record: {e}", row.id)))?;
        Ok(Self {
            id: DatasetId(row.id),
            account_id: row.account_id,
            filename: row.filename,
            size: row.size,
            info,
            created_at: row.created_at,
        })
    }
}

impl DemService {
    /// Stores a checked upload (a local file) as a new dataset of `account`: the file goes to the
    /// blob store first, then the row; a failure leaves neither.
    pub async fn create_dataset(
        &self,
        account: &AccountId,
        file: &Path,
        filename: Option<String>,
        info: RasterInfo,
    ) -> Result<Dataset> {
        let id = DatasetId::generate();
        let stored = async {
            let size = self.blobs().upload_file(&keys::dataset_source(account, &id), file).await?;
            let dataset = Dataset {
                id: id.clone(),
                account_id: account.clone(),
                filename,
                size,
                info,
                created_at: Timestamp::now(),
            };
            self.store.dem.insert_dataset(&dataset.to_row()?).await?;
            Ok::<_, Error>(dataset)
        }
        .await;
        if stored.is_err() {
            if let Err(e) = self.blobs().delete_prefix(&keys::dataset(account, &id)).await {
                tracing::warn!(error = %e, dataset = %id, "cleaning up a failed upload failed");
            }
        }
        stored
    }

    /// One dataset of `account`; another account's is not found.
    pub async fn get_dataset(&self, account: &AccountId, id: &str) -> Result<Dataset> {
        let not_found = || Error::Domain(DomainError::not_found("dataset", id));
        if !meridian_core::id::has_shape(id, DatasetId::PREFIX) {
            return Err(not_found());
        }
        Dataset::of_row(self.store.dem.get_dataset(account, id).await?.ok_or_else(not_found)?)
    }

    /// The account's datasets, newest first, and how many there are.
    pub async fn list_datasets(&self, account: &AccountId, page: Page) -> Result<(Vec<Dataset>, u64)> {
        let (rows, total) = self.store.dem.list_datasets(account, page).await?;
        Ok((rows.into_iter().map(Dataset::of_row).collect::<Result<_>>()?, total))
    }

    /// Records, as rows, datasets stored before datasets were rows (a `dataset.json` beside the
    /// file in the blob store); returns how many were adopted. Run at start; idempotent.
    pub async fn adopt_blob_records(&self) -> Result<u64> {
        // Only the datasets' folders are read (`<account>/dem/datasets/<id>/`), never the
        // whole store with its tile caches and outputs.
        let mut records = Vec::new();
        for account in self.blobs().folders("").await? {
            for dataset in self.blobs().folders(&format!("{account}/dem/datasets")).await? {
                records.push(format!("{dataset}/dataset.json"));
            }
        }
        let mut adopted = 0u64;
        for key in records {
            let Some(d) = self.blobs().get_json::<Dataset>(&key).await? else { continue };
            if self.store.dem.get_dataset(&d.account_id, d.id.as_str()).await?.is_none() {
                self.store.dem.insert_dataset(&d.to_row()?).await?;
                adopted += 1;
            }
            self.blobs().delete(&key).await?;
        }
        Ok(adopted)
    }

    /// Deletes a dataset and its files; refused (409) while a queued or running job reads it.
    /// Finished jobs keep their outputs; tiles of their source then answer 404.
    pub async fn remove_dataset(&self, account: &AccountId, id: &str) -> Result<()> {
        let d = self.get_dataset(account, id).await?;
        let mut offset = 0u64;
        loop {
            let page = Page::at(500, offset);
            let (jobs, total) = self.store.jobs.list_jobs(account, Some(crate::JOB_KIND), page).await?;
            let busy = jobs
                .iter()
                .find(|j| !j.status.is_terminal() && j.params["source"]["dataset_id"].as_str() == Some(d.id.as_str()));
            if let Some(j) = busy {
                return Err(Error::Domain(DomainError::conflict(
                    "dataset_in_use",
                    format!("job {} reads this dataset; cancel it or wait for it to finish", j.id),
                )));
            }
            offset += jobs.len() as u64;
            if jobs.is_empty() || offset >= total {
                break;
            }
        }
        self.delete_dataset(account, &d.id).await
    }

    /// Deletes a dataset: the row first (it disappears for readers), then its blobs.
    pub async fn delete_dataset(&self, account: &AccountId, id: &DatasetId) -> Result<()> {
        self.store.dem.delete_dataset(account, id.as_str()).await?;
        Ok(self.blobs().delete_prefix(&keys::dataset(account, id)).await?)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn inspect_reads_the_dem_and_refuses_other_files() {
        let dem = Path::new(env!("CARGO_MANIFEST_DIR")).join("../raster/tests/data/swissalti3d-2573-1085.tif");
        let info = inspect(&dem, "/file", Limits::default()).unwrap();
        assert_eq!((info.width, info.height, info.bands), (400, 400, 1));
        assert_eq!(info.epsg, Some(2056));
        assert_eq!(info.nodata, Some(-9999.0));
        let b = info.bounds.unwrap();
        assert!(b[0] > 7.0 && b[2] < 7.2 && b[1] > 45.9 && b[3] < 46.0, "{b:?}");
        assert!(info.minzoom.unwrap() < info.maxzoom.unwrap());

        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("notes.txt");
        std::fs::write(&text, "elevation,1600\n").unwrap();
        let e = inspect(&text, "/file", Limits::default()).unwrap_err();
        assert_eq!((e.pointer.as_str(), e.code.as_str()), ("/file", "not_a_geotiff"));
        // A TIFF header with nothing behind it.
        let stub = dir.path().join("stub.tif");
        std::fs::write(&stub, b"II*\0\x08\0\0\0\0\0").unwrap();
        assert_eq!(inspect(&stub, "/file", Limits::default()).unwrap_err().code, "not_a_geotiff");
    }

    #[test]
    fn inspect_names_files_past_the_limits_and_undecodable_ones() {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/tiff");
        let code = |name: &str, limits: Limits| inspect(&corpus.join(name), "/file", limits).unwrap_err().code;
        assert_eq!(code("hostile-200000-squared.tif", Limits::default()), "raster_too_large");
        assert_eq!(code("hostile-deflate-bomb.tif", Limits::default()), "invalid_raster");
        // The limits come from the caller (dem.max_pixels and friends).
        let dem = Path::new(env!("CARGO_MANIFEST_DIR")).join("../raster/tests/data/swissalti3d-2573-1085.tif");
        let small = Limits { max_pixels: 400 * 399, ..Limits::default() };
        let e = inspect(&dem, "/file", small).unwrap_err();
        assert_eq!((e.code.as_str(), e.pointer.as_str()), ("raster_too_large", "/file"));
        assert!(e.detail.contains("dem.max_pixels"), "{}", e.detail);
    }

    /// A file whose first block is fine and whose last is damaged used to be stored (only the
    /// first block was decoded) and then failed every map drawn from it; every block is decoded
    /// at upload now.
    #[test]
    fn inspect_decodes_every_block_not_only_the_first() {
        let dem = Path::new(env!("CARGO_MANIFEST_DIR")).join("../raster/tests/data/swissalti3d-2573-1085.tif");
        let t = GeoTiff::open_with(&dem, Limits::default()).unwrap();
        let raster = t.read_band::<f32>(0).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let cog = dir.path().join("cog.tif");
        let opts = meridian_raster::tiff::CogOptions { tile_size: 128, ..Default::default() };
        meridian_raster::tiff::write_raster_cog(&raster, &cog, &opts).unwrap();
        assert!(inspect(&cog, "/file", Limits::default()).is_ok());
        // The full-resolution tiles come last in a COG: damage the end of the last one.
        let mut bytes = std::fs::read(&cog).unwrap();
        let n = bytes.len();
        for b in &mut bytes[n - 64..] {
            *b = 0xA5;
        }
        std::fs::write(&cog, &bytes).unwrap();
        let reopened = GeoTiff::open_with(&cog, Limits::default()).unwrap();
        assert!(reopened.read_chunk(0, 0).is_ok(), "the first block is still fine");
        assert_eq!(inspect(&cog, "/file", Limits::default()).unwrap_err().code, "invalid_raster");
    }
}
