//! TIFF tag numbers and field types used by the reader and writer.

pub(crate) const NEW_SUBFILE_TYPE: u16 = 254;
pub(crate) const IMAGE_WIDTH: u16 = 256;
pub(crate) const IMAGE_LENGTH: u16 = 257;
pub(crate) const BITS_PER_SAMPLE: u16 = 258;
pub(crate) const COMPRESSION: u16 = 259;
pub(crate) const PHOTOMETRIC: u16 = 262;
pub(crate) const STRIP_OFFSETS: u16 = 273;
pub(crate) const SAMPLES_PER_PIXEL: u16 = 277;
pub(crate) const ROWS_PER_STRIP: u16 = 278;
pub(crate) const STRIP_BYTE_COUNTS: u16 = 279;
pub(crate) const PLANAR_CONFIG: u16 = 284;
pub(crate) const PREDICTOR: u16 = 317;
pub(crate) const TILE_WIDTH: u16 = 322;
pub(crate) const TILE_LENGTH: u16 = 323;
pub(crate) const TILE_OFFSETS: u16 = 324;
pub(crate) const TILE_BYTE_COUNTS: u16 = 325;
pub(crate) const EXTRA_SAMPLES: u16 = 338;
pub(crate) const SAMPLE_FORMAT: u16 = 339;
pub(crate) const MODEL_PIXEL_SCALE: u16 = 33550;
pub(crate) const MODEL_TIEPOINT: u16 = 33922;
pub(crate) const MODEL_TRANSFORMATION: u16 = 34264;
pub(crate) const GEO_KEY_DIRECTORY: u16 = 34735;
pub(crate) const GEO_DOUBLE_PARAMS: u16 = 34736;
pub(crate) const GEO_ASCII_PARAMS: u16 = 34737;
pub(crate) const GDAL_NODATA: u16 = 42113;

// GeoKeys.
pub(crate) const GT_MODEL_TYPE: u16 = 1024;
pub(crate) const GT_RASTER_TYPE: u16 = 1025;
pub(crate) const GEOGRAPHIC_TYPE: u16 = 2048;
pub(crate) const PROJECTED_CS_TYPE: u16 = 3072;

// Field types.
pub(crate) const BYTE: u16 = 1;
pub(crate) const ASCII: u16 = 2;
pub(crate) const SHORT: u16 = 3;
pub(crate) const LONG: u16 = 4;
pub(crate) const RATIONAL: u16 = 5;
pub(crate) const SBYTE: u16 = 6;
pub(crate) const UNDEFINED: u16 = 7;
pub(crate) const SSHORT: u16 = 8;
pub(crate) const SLONG: u16 = 9;
pub(crate) const SRATIONAL: u16 = 10;
pub(crate) const FLOAT: u16 = 11;
pub(crate) const DOUBLE: u16 = 12;
pub(crate) const IFD: u16 = 13;
pub(crate) const LONG8: u16 = 16;
pub(crate) const SLONG8: u16 = 17;
pub(crate) const IFD8: u16 = 18;

/// Size in bytes of one value of a field type; `None` for unknown types.
pub(crate) fn type_size(t: u16) -> Option<usize> {
    Some(match t {
        BYTE | ASCII | SBYTE | UNDEFINED => 1,
        SHORT | SSHORT => 2,
        LONG | SLONG | FLOAT | IFD => 4,
        RATIONAL | SRATIONAL | DOUBLE | LONG8 | SLONG8 | IFD8 => 8,
        _ => return None,
    })
}
