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
    /// How `epsg` was found: `authority` (the declaration names it) or `definition` (a WKT
    /// without one, matched parameter by parameter against the EPSG definitions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsg_from: Option<EpsgFrom>,
    /// When a WKT names no EPSG code and matches no definition: the PROJ string made from it,
    /// with which coordinates are transformed (WGS84 bounds, longitude/latitude boxes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proj: Option<String>,
}

/// How a CRS's EPSG code was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EpsgFrom {
    /// The declaration's own authority (or the uploader's code).
    Authority,
    /// Matched against the EPSG definitions.
    Definition,
}

impl Crs {
    /// A CRS given as an EPSG code (an uploader's override).
    pub fn of_epsg(epsg: u16, source: CrsSource) -> Self {
        Self {
            epsg: Some(epsg),
            vertical_epsg: None,
            wkt: None,
            source,
            metres_per_unit: linear_unit_of_epsg(epsg),
            epsg_from: Some(EpsgFrom::Authority),
            proj: None,
        }
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
            let (epsg, epsg_from, proj) = match epsg_of_wkt(&wkt) {
                Some(code) => (Some(code), Some(EpsgFrom::Authority), None),
                None => match match_epsg(&wkt) {
                    Some(code) => (Some(code), Some(EpsgFrom::Definition), None),
                    None => (None, None, proj_of_wkt(&wkt).map(|p| p.proj)),
                },
            };
            let metres_per_unit = linear_unit_of_wkt(&wkt).or_else(|| epsg.and_then(linear_unit_of_epsg));
            return Some(Crs {
                epsg,
                vertical_epsg: None,
                wkt: Some(wkt),
                source: CrsSource::Wkt,
                metres_per_unit,
                epsg_from,
                proj,
            });
        }
    }
    let keys = projection(34735)?;
    let (epsg, vertical) = epsg_of_geokeys(&keys.data);
    let metres_per_unit = linear_unit_of_geokeys(&keys.data).or_else(|| epsg.and_then(linear_unit_of_epsg));
    Some(Crs {
        epsg,
        vertical_epsg: vertical,
        wkt: None,
        source: CrsSource::Geotiff,
        metres_per_unit,
        epsg_from: epsg.map(|_| EpsgFrom::Authority),
        proj: None,
    })
}

/// A projected CRS read from a WKT 1 `PROJCS` (OGC's or ESRI's spelling): a PROJ string and
/// the datum's name.
#[derive(Clone, Debug, PartialEq)]
pub struct ProjectedWkt {
    /// `+proj=... +x_0=... +a=... +rf=... +to_meter=...` (false easting and northing in metres).
    pub proj: String,
    /// PROJ parameters by name (`proj` excluded), numbers.
    pub params: Vec<(String, f64)>,
    /// The projection's PROJ name (`lcc`, `tmerc`, ...).
    pub method: &'static str,
    /// Semi-major axis and inverse flattening.
    pub ellipsoid: (f64, f64),
    /// Metres per unit.
    pub to_meter: f64,
    /// The datum's name, lower case and alphanumeric only, without ESRI's `D_`.
    pub datum: String,
}

fn normalised(name: &str) -> String {
    name.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase()
}

/// The first quoted name and the numbers after it in an object's body.
fn name_and_numbers(body: &str) -> Option<(String, Vec<f64>)> {
    let rest = body.trim_start().strip_prefix('"')?;
    let (name, rest) = rest.split_once('"')?;
    let end = rest.find([']', ')', '[']).unwrap_or(rest.len());
    let numbers = rest[..end].split(',').filter_map(|v| v.trim().parse::<f64>().ok()).collect();
    Some((name.to_owned(), numbers))
}

/// The PROJ form of a WKT 1 projected CRS with one of the common map projections (Lambert
/// conformal conic, transverse Mercator, Mercator, Albers, oblique and polar stereographic);
/// `None` for anything else.
pub fn proj_of_wkt(wkt: &str) -> Option<ProjectedWkt> {
    let head = wkt.trim_start().to_ascii_uppercase();
    if !head.starts_with("PROJCS") {
        return None;
    }
    let mut objects: Vec<(String, String, Vec<f64>)> = Vec::new();
    at_depth(wkt, 1, |word, body| {
        if let Some((name, numbers)) = name_and_numbers(body) {
            objects.push((word.to_owned(), name, numbers));
        }
        None::<()>
    });
    let method_name = objects.iter().find(|o| o.0 == "PROJECTION").map(|o| normalised(&o.1))?;
    let to_meter = objects.iter().find(|o| o.0 == "UNIT").and_then(|o| o.2.first().copied()).unwrap_or(1.0);
    let spheroid = at_depth(wkt, 3, |word, body| {
        (word == "SPHEROID" || word == "ELLIPSOID").then(|| name_and_numbers(body)).flatten()
    })?;
    let (a, rf) = (*spheroid.1.first()?, *spheroid.1.get(1)?);
    let datum = at_depth(wkt, 2, |word, body| (word == "DATUM").then(|| name_and_numbers(body)).flatten())
        .map(|d| normalised(d.0.strip_prefix("D_").unwrap_or(&d.0)))
        .unwrap_or_default();
    let method: &'static str = match method_name.as_str() {
        "lambertconformalconic" | "lambertconformalconic2sp" | "lambertconformalconic1sp" => "lcc",
        "transversemercator" | "gausskruger" => "tmerc",
        "mercator" | "mercator1sp" | "mercator2sp" => "merc",
        "albersconicequalarea" | "albers" => "aea",
        "obliquestereographic" | "doublestereographic" => "sterea",
        "polarstereographic" | "polarstereographicvarianta" | "polarstereographicvariantb" => "stere",
        _ => return None,
    };
    let mut params: Vec<(String, f64)> = Vec::new();
    for (word, name, numbers) in &objects {
        let Some(&v) = numbers.first().filter(|_| word == "PARAMETER") else { continue };
        let key = match (normalised(name).as_str(), method) {
            ("falseeasting", _) => "x_0",
            ("falsenorthing", _) => "y_0",
            ("centralmeridian" | "longitudeofcenter" | "longitudeoforigin", _) => "lon_0",
            ("scalefactor" | "scalefactoratnaturalorigin", _) => "k_0",
            ("standardparallel1", "merc") => "lat_ts",
            ("standardparallel1", "stere") => "lat_ts",
            ("standardparallel1", _) => "lat_1",
            ("standardparallel2", _) => "lat_2",
            ("latitudeoforigin" | "latitudeofcenter", _) => "lat_0",
            _ => continue,
        };
        let v = if key == "x_0" || key == "y_0" { v * to_meter } else { v };
        params.push((key.to_owned(), v));
    }
    // Lambert 1SP: its one standard parallel is its latitude of origin.
    if method == "lcc" && !params.iter().any(|p| p.0 == "lat_1") {
        let lat0 = params.iter().find(|p| p.0 == "lat_0").map(|p| p.1)?;
        params.push(("lat_1".to_owned(), lat0));
    }
    let mut proj = format!("+proj={method}");
    for (k, v) in &params {
        proj.push_str(&format!(" +{k}={v}"));
    }
    proj.push_str(&format!(" +a={a} +rf={rf} +to_meter={to_meter} +no_defs"));
    Some(ProjectedWkt { proj, params, method, ellipsoid: (a, rf), to_meter, datum })
}

/// The ellipsoid of a PROJ string (`+a`/`+rf`, `+ellps`, or a `+datum` that implies one).
fn ellipsoid_of_proj4(values: &std::collections::HashMap<&str, &str>) -> Option<(f64, f64)> {
    if let (Some(a), Some(rf)) = (values.get("a"), values.get("rf")) {
        return Some((a.parse().ok()?, rf.parse().ok()?));
    }
    let named = values.get("ellps").copied().or_else(|| match values.get("datum").copied() {
        Some("WGS84") => Some("WGS84"),
        Some("NAD83") => Some("GRS80"),
        Some("NAD27") => Some("clrk66"),
        Some("OSGB36") => Some("airy"),
        Some("potsdam") => Some("bessel"),
        _ => None,
    })?;
    Some(match named {
        "GRS80" => (6_378_137.0, 298.257_222_101),
        "WGS84" => (6_378_137.0, 298.257_223_563),
        "clrk66" => (6_378_206.4, 294.978_698_213_9),
        "intl" => (6_378_388.0, 297.0),
        "bessel" => (6_377_397.155, 299.152_812_8),
        "airy" => (6_377_563.396, 299.324_964_6),
        "krass" => (6_378_245.0, 298.3),
        _ => return None,
    })
}

/// The EPSG code of a WKT 1 projected CRS that names none, found by matching its projection,
/// parameters, ellipsoid and unit against every EPSG definition (latitudes and longitudes to
/// 10⁻⁷°, false easting and northing to a centimetre); when several match (one projection on
/// several realisations of a datum), the one whose datum has the WKT's datum name. `None` when
/// none matches, or several do and the datum does not choose.
pub fn match_epsg(wkt: &str) -> Option<u16> {
    let p = proj_of_wkt(wkt)?;
    let prefix = format!("+proj={} ", p.method);
    let mut candidates = Vec::new();
    for code in 1..=u16::MAX {
        let Some(def) = crs_definitions::from_code(code) else { continue };
        if !def.proj4.starts_with(&prefix) {
            continue;
        }
        let values: std::collections::HashMap<&str, &str> =
            def.proj4.split_whitespace().filter_map(|t| t.strip_prefix('+')?.split_once('=')).collect();
        let num = |k: &str| values.get(k).and_then(|v| v.parse::<f64>().ok());
        let to_meter = num("to_meter").unwrap_or(match values.get("units").copied() {
            Some("us-ft") => 1200.0 / 3937.0,
            Some("ft") => 0.3048,
            Some("km") => 1000.0,
            _ => 1.0,
        });
        if (to_meter - p.to_meter).abs() > 1e-9 * p.to_meter {
            continue;
        }
        let Some((a, rf)) = ellipsoid_of_proj4(&values) else { continue };
        if (a - p.ellipsoid.0).abs() > 0.5 || (rf - p.ellipsoid.1).abs() > 1e-4 {
            continue;
        }
        let get = |k: &str, default: f64| p.params.iter().find(|q| q.0 == k).map_or(default, |q| q.1);
        let same =
            |k: &str, default: f64, tolerance: f64| (num(k).unwrap_or(default) - get(k, default)).abs() <= tolerance;
        let parallels = {
            let (a1, a2) = (num("lat_1").unwrap_or(0.0), num("lat_2").unwrap_or(num("lat_1").unwrap_or(0.0)));
            let (b1, b2) = (get("lat_1", 0.0), get("lat_2", get("lat_1", 0.0)));
            let close = |x: f64, y: f64| (x - y).abs() <= 1e-7;
            (close(a1, b1) && close(a2, b2)) || (close(a1, b2) && close(a2, b1))
        };
        let k = num("k_0").or_else(|| num("k")).unwrap_or(1.0);
        if parallels
            && same("lat_0", 0.0, 1e-7)
            && same("lon_0", 0.0, 1e-7)
            && same("lat_ts", 0.0, 1e-7)
            && same("x_0", 0.0, 0.01)
            && same("y_0", 0.0, 0.01)
            && (k - get("k_0", 1.0)).abs() <= 1e-9
        {
            candidates.push(code);
        }
    }
    match candidates.as_slice() {
        [] => None,
        [one] => Some(*one),
        several => {
            let named: Vec<u16> = several
                .iter()
                .copied()
                .filter(|&c| {
                    crs_definitions::from_code(c)
                        .and_then(|d| proj_of_wkt(d.wkt))
                        .is_some_and(|d| !p.datum.is_empty() && d.datum == p.datum)
                })
                .collect();
            (named.len() == 1).then(|| named[0])
        }
    }
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

    /// ESRI's WKT of NAD83(2011) / Nebraska (ftUS), as a US producer's LAS file carries it (no
    /// authority for the projected CRS): matched to EPSG:6880 by its definition; the same
    /// projection moved off any EPSG definition matches none and is kept as a PROJ string that
    /// places the state's centre where it is.
    #[test]
    fn a_wkt_without_authority_is_matched_by_its_definition() {
        let nebraska = r#"PROJCS["NAD83_2011_Nebraska_ft",GEOGCS["GCS_NAD_1983_2011",DATUM["D_NAD83_NATIONAL_SPATIAL_REFERENCE_SYSTEM_2011",SPHEROID["GRS_1980",6378137,298.257222101]],PRIMEM["Greenwich",0],UNIT["Degree",0.017453292519943295]],PROJECTION["Lambert_Conformal_Conic"],PARAMETER["scale_factor",1],PARAMETER["standard_parallel_1",43],PARAMETER["standard_parallel_2",40],PARAMETER["latitude_of_origin",39.83333333333334],PARAMETER["central_meridian",-100],PARAMETER["false_easting",1640416.666666667],PARAMETER["false_northing",0],UNIT["Foot_US",0.30480060960121924]]"#;
        assert_eq!(epsg_of_wkt(nebraska), None);
        assert_eq!(match_epsg(nebraska), Some(6880));
        let moved = nebraska.replace(r#""central_meridian",-100"#, r#""central_meridian",-100.123"#);
        assert_eq!(match_epsg(&moved), None);
        let p = proj_of_wkt(&moved).unwrap();
        assert_eq!(p.method, "lcc");
        let t = meridian_core::crs::Transformer::from_proj_string(&p.proj, 4326).unwrap();
        // The false origin (1,640,416.67 ftUS east, 0 north) is at 39.8333° N on the meridian.
        let (lon, lat) = t.apply(1_640_416.666_666_667, 0.0).unwrap();
        assert!((lon + 100.123).abs() < 1e-6 && (lat - 39.833_333_333).abs() < 1e-6, "{lon} {lat}");
        // Not a projected WKT, or a projection this reads not: nothing.
        assert!(proj_of_wkt(r#"GEOGCS["WGS 84",DATUM["x",SPHEROID["y",6378137,298.257223563]]]"#).is_none());
        assert!(proj_of_wkt(
            r#"PROJCS["x",GEOGCS["y",DATUM["z",SPHEROID["s",6378137,298.25]]],PROJECTION["Cassini"]]"#
        )
        .is_none());
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
