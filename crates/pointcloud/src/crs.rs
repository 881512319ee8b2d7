//! The coordinate reference system a LAS file declares: an OGC WKT VLR (`LASF_Projection`,
//! record 2112) or GeoTIFF keys (`LASF_Projection`, record 34735), reduced to an EPSG code when
//! the declaration names one.

use serde::{Deserialize, Serialize};

/// Where a CRS came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CrsSource {
    /// The OGC WKT VLR.
    Wkt,
    /// The GeoTIFF key directory VLR.
    Geotiff,
    /// Given by the uploader (the file's own declaration, if any, is overridden).
    Override,
}

/// A CRS as found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Crs {
    /// The EPSG code of the horizontal CRS, when the declaration names one.
    pub epsg: Option<u16>,
    /// The EPSG code of the vertical CRS, when declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vertical_epsg: Option<u16>,
    /// The WKT as stored in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wkt: Option<String>,
    pub source: CrsSource,
    /// Metres in one unit of the coordinates (0.3048 for feet, 0.3048006096 for US survey
    /// feet), when the CRS is projected and says; absent for a geographic CRS or none known.
    /// Classification works in metres: coordinates are scaled by it first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metres_per_unit: Option<f64>,
}

impl Crs {
    /// A CRS given as an EPSG code (an uploader's override).
    pub fn of_epsg(epsg: u16, source: CrsSource) -> Self {
        Self { epsg: Some(epsg), vertical_epsg: None, wkt: None, source, metres_per_unit: linear_unit_of_epsg(epsg) }
    }
}

/// The CRS of a header's VLRs and EVLRs: the WKT when there is one (LAS 1.4 says WKT wins), else
/// the GeoTIFF keys; `None` when the file declares neither.
pub fn of_header(header: &las::Header) -> Option<Crs> {
    let all = || header.vlrs().iter().chain(header.evlrs().iter());
    let projection =
        |id: u16| all().find(|v| v.user_id.trim_end_matches('\0') == "LASF_Projection" && v.record_id == id);
    if let Some(v) = projection(2112) {
        let wkt = String::from_utf8_lossy(&v.data).trim_end_matches('\0').trim().to_owned();
        if !wkt.is_empty() {
            let epsg = epsg_of_wkt(&wkt);
            let metres_per_unit = linear_unit_of_wkt(&wkt).or_else(|| epsg.and_then(linear_unit_of_epsg));
            return Some(Crs { epsg, vertical_epsg: None, wkt: Some(wkt), source: CrsSource::Wkt, metres_per_unit });
        }
    }
    let keys = projection(34735)?;
    let (epsg, vertical) = epsg_of_geokeys(&keys.data);
    let metres_per_unit = linear_unit_of_geokeys(&keys.data).or_else(|| epsg.and_then(linear_unit_of_epsg));
    Some(Crs { epsg, vertical_epsg: vertical, wkt: None, source: CrsSource::Geotiff, metres_per_unit })
}

/// The EPSG codes of a GeoTIFF key directory (horizontal: `ProjectedCSTypeGeoKey` 3072, else
/// `GeographicTypeGeoKey` 2048; vertical: `VerticalCSTypeGeoKey` 4096). Values that are not EPSG
/// codes (0, user-defined 32767) are none.
pub fn epsg_of_geokeys(data: &[u8]) -> (Option<u16>, Option<u16>) {
    let words: Vec<u16> = data.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    let Some(&count) = words.get(3) else { return (None, None) };
    let mut found = std::collections::HashMap::new();
    for k in 0..usize::from(count) {
        let Some(key) = words.get(4 + k * 4..8 + k * 4) else { break };
        // Location 0: the value is the key's own value.
        if key[1] == 0 {
            found.insert(key[0], key[3]);
        }
    }
    let code = |id: u16| found.get(&id).copied().filter(|&c| c != 0 && c != 32767);
    (code(3072).or_else(|| code(2048)), code(4096))
}

/// Metres per unit of an EPSG unit of length: metre, foot, US survey foot.
fn unit_code_metres(code: u16) -> Option<f64> {
    match code {
        9001 => Some(1.0),
        9002 => Some(0.3048),
        9003 => Some(1200.0 / 3937.0),
        9036 => Some(1000.0),
        _ => None,
    }
}

/// Metres per unit of the projected CRS of a GeoTIFF key directory (`ProjLinearUnitsGeoKey`,
/// 3076), when it says.
pub fn linear_unit_of_geokeys(data: &[u8]) -> Option<f64> {
    let words: Vec<u16> = data.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    let count = usize::from(*words.get(3)?);
    (0..count)
        .filter_map(|k| words.get(4 + k * 4..8 + k * 4))
        .find(|key| key[0] == 3076 && key[1] == 0)
        .and_then(|key| unit_code_metres(key[3]))
}

/// Metres per unit of an EPSG CRS, from its definition (`+units=`, `+to_meter=`); none for a
/// geographic CRS or an unknown code.
pub fn linear_unit_of_epsg(epsg: u16) -> Option<f64> {
    let proj4 = crs_definitions::from_code(epsg)?.proj4;
    if proj4.contains("+proj=longlat") {
        return None;
    }
    let value = |key: &str| proj4.split_whitespace().find_map(|p| p.strip_prefix(key));
    if let Some(m) = value("+to_meter=").and_then(|v| v.parse::<f64>().ok()) {
        return Some(m);
    }
    match value("+units=") {
        Some("us-ft") => Some(1200.0 / 3937.0),
        Some("ft") => Some(0.3048),
        Some("km") => Some(1000.0),
        _ => Some(1.0),
    }
}

/// Metres per unit of a WKT's projected CRS: the `UNIT` (WKT 1) or `LENGTHUNIT` (WKT 2) of the
/// projected CRS itself (the first part of a compound one); none for a geographic CRS.
pub fn linear_unit_of_wkt(wkt: &str) -> Option<f64> {
    let head = wkt.trim_start().to_ascii_uppercase();
    let projected = |h: &str| h.starts_with("PROJCS") || h.starts_with("PROJCRS") || h.starts_with("PROJECTEDCRS");
    let depth = if is_compound(wkt) {
        // The first part, after the compound's name.
        let inner = head.split_once('[').map(|(_, r)| r).unwrap_or("");
        let first = inner.split_once(',').map(|(_, r)| r.trim_start()).unwrap_or("");
        if !projected(first) {
            return None;
        }
        2
    } else if projected(&head) {
        1
    } else {
        return None;
    };
    unit_at_depth(wkt, depth).or_else(|| {
        // WKT 2 may give the unit on each axis instead (the ellipsoid's LENGTHUNIT, earlier in
        // the text, is not the coordinates' unit).
        let axis = head.find("AXIS[")?;
        let at = axis + head[axis..].find("LENGTHUNIT[")?;
        unit_value(&wkt[at + "LENGTHUNIT[".len()..])
    })
}

/// Walks the objects of a WKT (outside quoted names) and gives `found` each keyword directly
/// inside an object at `depth` with the text after its opening bracket; the first `Some` it
/// returns is the answer.
fn at_depth<T>(wkt: &str, depth: usize, mut found: impl FnMut(&str, &str) -> Option<T>) -> Option<T> {
    let (mut level, mut in_string) = (0usize, false);
    for (i, &c) in wkt.as_bytes().iter().enumerate() {
        if c == b'"' {
            in_string = !in_string;
        } else if !in_string {
            match c {
                b'[' | b'(' => {
                    // The keyword before this bracket.
                    let start =
                        wkt[..i].rfind(|ch: char| !ch.is_ascii_alphanumeric() && ch != '_').map_or(0, |p| p + 1);
                    if level == depth {
                        if let Some(v) = found(&wkt[start..i].to_ascii_uppercase(), &wkt[i + 1..]) {
                            return Some(v);
                        }
                    }
                    level += 1;
                }
                b']' | b')' => level = level.saturating_sub(1),
                _ => {}
            }
        }
    }
    None
}

/// The conversion factor of the first `UNIT[...]` or `LENGTHUNIT[...]` directly inside an
/// object at `depth`.
fn unit_at_depth(wkt: &str, depth: usize) -> Option<f64> {
    at_depth(wkt, depth, |word, body| matches!(word, "UNIT" | "LENGTHUNIT").then(|| unit_value(body)).flatten())
}

/// The factor of a unit's body (`"US survey foot",0.304800609601219,...`).
fn unit_value(body: &str) -> Option<f64> {
    let after_name = body.trim_start().strip_prefix('"').and_then(|r| r.split_once('"')).map(|(_, r)| r)?;
    let v = after_name.trim_start().strip_prefix(',')?.trim_start();
    let end = v.find([',', ']', ')']).unwrap_or(v.len());
    v[..end].trim().parse::<f64>().ok().filter(|f| f.is_finite() && *f > 0.0)
}

/// The EPSG code of a WKT (1 or 2) CRS: the authority of the top-level CRS, or, for a compound
/// CRS, of its first (horizontal) part.
///
/// A WKT without a top-level authority (ESRI's, common in US files) has none: the authorities
/// nested in it name its unit, datum or base CRS (`UNIT["Foot_US",...,AUTHORITY["EPSG","9003"]]`,
/// `GEOGCS[...,AUTHORITY["EPSG","4269"]]`), never the projected CRS itself.
pub fn epsg_of_wkt(wkt: &str) -> Option<u16> {
    if is_compound(wkt) {
        // A compound CRS: the first part's authority sits at depth 2.
        return authority_at_depth(wkt, 2);
    }
    authority_at_depth(wkt, 1)
}

fn is_compound(wkt: &str) -> bool {
    let head = wkt.trim_start().to_ascii_uppercase();
    head.starts_with("COMPD_CS") || head.starts_with("COMPOUNDCRS")
}

/// The first `AUTHORITY["EPSG","n"]` or `ID["EPSG",n]` directly inside an object at `depth`.
fn authority_at_depth(wkt: &str, depth: usize) -> Option<u16> {
    at_depth(wkt, depth, |word, body| {
        if word != "AUTHORITY" && word != "ID" {
            return None;
        }
        let inner = &body[..body.find([']', ')'])?];
        let mut parts = inner.split(',').map(|p| p.trim().trim_matches('"'));
        parts.next().filter(|a| a.eq_ignore_ascii_case("EPSG"))?;
        parts.next().and_then(|c| c.parse().ok())
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn wkt_authorities_are_read_at_the_top_level() {
        let lambert = r#"PROJCS["RGF93 v1 / Lambert-93",GEOGCS["RGF93 v1",DATUM["Reseau_Geodesique_Francais_1993_v1",SPHEROID["GRS 1980",6378137,298.257222101,AUTHORITY["EPSG","7019"]],AUTHORITY["EPSG","6171"]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433],AUTHORITY["EPSG","4171"]],PROJECTION["Lambert_Conformal_Conic_2SP"],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AUTHORITY["EPSG","2154"]]"#;
        assert_eq!(epsg_of_wkt(lambert), Some(2154));
        let compound = format!(
            r#"COMPD_CS["Lambert-93 + NGF-IGN69",{lambert},VERT_CS["NGF-IGN69 height",VERT_DATUM["x",2005],AUTHORITY["EPSG","5720"]]]"#
        );
        assert_eq!(epsg_of_wkt(&compound), Some(2154));
        let wkt2 = r#"PROJCRS["WGS 84 / UTM zone 32N",BASEGEOGCRS["WGS 84",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,298.257223563]],ID["EPSG",4326]],CONVERSION["UTM zone 32N",METHOD["Transverse Mercator"]],CS[Cartesian,2],ID["EPSG",32632]]"#;
        assert_eq!(epsg_of_wkt(wkt2), Some(32632));
        assert_eq!(epsg_of_wkt(r#"LOCAL_CS["site grid"]"#), None);
        // ESRI's WKT names no authority for the projected CRS: neither the foot unit's code nor
        // the base CRS's is taken for it.
        let esri = r#"PROJCS["NAD_1983_StatePlane_Washington_North_FIPS_4601_Feet",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433],AUTHORITY["EPSG","4269"]],PROJECTION["Lambert_Conformal_Conic"],PARAMETER["False_Easting",1640416.666666667],UNIT["Foot_US",0.3048006096012192,AUTHORITY["EPSG","9003"]]]"#;
        assert_eq!(epsg_of_wkt(esri), None);
        // Its unit is the projected CRS's own UNIT, not the base CRS's degrees.
        assert!((linear_unit_of_wkt(esri).unwrap() - 0.3048006096012192).abs() < 1e-12);
        assert_eq!(linear_unit_of_wkt(lambert), Some(1.0));
        assert_eq!(linear_unit_of_wkt(&compound), Some(1.0));
        let wkt2_feet = r#"PROJCRS["NAD83 / Washington North (ftUS)",BASEGEOGCRS["NAD83",DATUM["North American Datum 1983",ELLIPSOID["GRS 1980",6378137,298.257222101,LENGTHUNIT["metre",1]]],ANGLEUNIT["degree",0.0174532925199433]],CONVERSION["x",METHOD["Lambert Conic Conformal (2SP)"]],CS[Cartesian,2],AXIS["easting (X)",east,LENGTHUNIT["US survey foot",0.304800609601219]],AXIS["northing (Y)",north,LENGTHUNIT["US survey foot",0.304800609601219]],ID["EPSG",2285]]"#;
        assert!((linear_unit_of_wkt(wkt2_feet).unwrap() - 0.304800609601219).abs() < 1e-12);
        assert_eq!(
            linear_unit_of_wkt(
                r#"GEOGCS["WGS 84",DATUM["x",SPHEROID["y",6378137,298.257223563]],UNIT["degree",0.0174532925199433]]"#
            ),
            None
        );
        // From an EPSG definition: Washington North in US survey feet, UTM in metres, lon/lat none.
        assert!((linear_unit_of_epsg(2285).unwrap() - 1200.0 / 3937.0).abs() < 1e-12);
        assert_eq!(linear_unit_of_epsg(32632), Some(1.0));
        assert_eq!(linear_unit_of_epsg(4326), None);
        assert_eq!(epsg_of_wkt("not wkt at all [[[["), None);
    }

    #[test]
    fn geotiff_keys_name_projected_geographic_and_vertical_codes() {
        let words: [u16; 16] = [1, 1, 0, 3, 1024, 0, 1, 1, 3072, 0, 1, 32632, 4096, 0, 1, 5703];
        let data: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(epsg_of_geokeys(&data), (Some(32632), Some(5703)));
        let geographic: [u16; 8] = [1, 1, 0, 1, 2048, 0, 1, 4326];
        let data: Vec<u8> = geographic.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(epsg_of_geokeys(&data), (Some(4326), None));
        // A directory that claims more keys than it holds, or user-defined codes.
        let lying: [u16; 8] = [1, 1, 0, 60, 3072, 0, 1, 32767];
        let data: Vec<u8> = lying.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(epsg_of_geokeys(&data), (None, None));
        assert_eq!(epsg_of_geokeys(&[1, 0]), (None, None));
    }
}
