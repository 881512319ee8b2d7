//! Writes a height-normalised copy of a labelled file, as lidR's `normalize_height` or PDAL's
//! `filters.hag_nn` followed by `z = HeightAboveGround` make one: every point's z replaced by its
//! height over the surface of the file's own ground points (class 2), classes and every other
//! attribute kept. The evaluation file `labelled/fr_ign_forest_0906_6665_normalised.laz` is made
//! so from `labelled/fr_ign_forest_0906_6665_decimated.laz`:
//!
//! ```sh
//! cargo run --release -p meridian-pointcloud --example normalise -- IN.laz OUT.laz
//! ```
#![allow(clippy::print_stdout)]

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        return Err("usage: normalise IN.laz OUT.laz".into());
    };
    let mut reader = las::Reader::from_path(input)?;
    let data = reader.read_all()?;
    let points: Vec<las::Point> = data.points().collect::<Result<_, _>>()?;
    let x: Vec<f64> = points.iter().map(|p| p.x).collect();
    let y: Vec<f64> = points.iter().map(|p| p.y).collect();
    let z: Vec<f64> = points.iter().map(|p| p.z).collect();
    let ground: Vec<bool> = points.iter().map(|p| u8::from(p.classification) == 2).collect();
    let hag = meridian_pointcloud::hag::height_above_ground(&x, &y, &z, &ground, 1.0)?;
    let mut header = las::Builder::from(reader.header().clone());
    header.transforms.z = las::Transform { scale: 0.01, offset: 0.0 };
    let mut writer = las::Writer::from_path(output, header.into_header()?)?;
    for (mut p, h) in points.into_iter().zip(hag) {
        p.z = f64::from(h);
        writer.write_point(p)?;
    }
    writer.close()?;
    println!("wrote {output}: {} points, z now height above the file's ground", x.len());
    Ok(())
}
