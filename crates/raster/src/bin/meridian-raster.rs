//! A small command line over the raster engine, for scripts and benchmarks:
//!
//! ```text
//! meridian-raster info IN.tif
//! meridian-raster dem IN.tif OUT.tif '{"type":"hillshade","azimuth":315}' [--compress none|deflate] [--strips]
//! meridian-raster contour IN.tif OUT.geojson [INTERVAL [BASE]]
//! meridian-raster cog IN.tif OUT.tif
//! meridian-raster tile IN.tif Z X Y STYLE OUT.png [SIZE]
//! ```
#![allow(clippy::print_stdout)]

use meridian_raster::dem::{self, FileOutput, Operation};
use meridian_raster::tiff::{self, Compression, GeoTiff};
use meridian_raster::tile::{TileRenderer, TileStyle};
use std::process::ExitCode;

const USAGE: &str = "\
usage:
  meridian-raster info IN.tif
  meridian-raster dem IN.tif OUT.tif '{\"type\":\"hillshade\",\"azimuth\":315}' [--compress none|deflate] [--strips]
  meridian-raster contour IN.tif OUT.geojson [INTERVAL [BASE]]
  meridian-raster cog IN.tif OUT.tif
  meridian-raster tile IN.tif Z X Y STYLE OUT.png [SIZE]
  meridian-raster --help";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        eprintln!("{USAGE}");
        return ExitCode::FAILURE;
    }
    if matches!(args[0].as_str(), "-h" | "--help" | "help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let arg = |i: usize| args.get(i).map(String::as_str).ok_or("missing argument (see meridian-raster --help)");
    match arg(0)? {
        "info" => {
            let t = GeoTiff::open(arg(1)?)?;
            println!(
                "{}x{} bands={} type={:?} epsg={:?} nodata={:?} bigtiff={} overviews={}",
                t.width(),
                t.height(),
                t.bands(),
                t.data_type(),
                t.epsg(),
                t.nodata(),
                t.is_bigtiff(),
                t.images().len() - 1
            );
            println!("geotransform={:?}", t.geo_transform().0);
        }
        "dem" => {
            let src = GeoTiff::open(arg(1)?)?;
            let op: Operation = serde_json::from_str(arg(3)?)?;
            let mut out = FileOutput::default();
            let mut i = 4;
            while i < args.len() {
                match args[i].as_str() {
                    "--compress" => {
                        out.writer.compression = match arg(i + 1)? {
                            "none" => Compression::None,
                            "deflate" => Compression::Deflate,
                            other => return Err(format!("unknown compression {other}").into()),
                        };
                        i += 1;
                    }
                    "--strips" => out.writer.tile_size = None,
                    other => return Err(format!("unknown flag {other}").into()),
                }
                i += 1;
            }
            let stats = dem::run_to_file(&op, &src, arg(2)?, &out, &|_| true)?;
            println!("{}", serde_json::to_string(&stats)?);
        }
        "contour" => {
            let src = GeoTiff::open(arg(1)?)?;
            let mut o = dem::ContourOptions::default();
            if let Some(v) = args.get(3) {
                o.interval = v.parse()?;
            }
            if let Some(v) = args.get(4) {
                o.base = v.parse()?;
            }
            let lines = dem::contours(&src, &o)?;
            std::fs::write(arg(2)?, dem::to_geojson(&lines, &o.attribute).to_string())?;
            println!("{} lines", lines.len());
        }
        "cog" => {
            let src = GeoTiff::open(arg(1)?)?;
            tiff::write_cog(&src, arg(2)?, &tiff::CogOptions::default())?;
        }
        "tile" => {
            let src = GeoTiff::open(arg(1)?)?;
            let r = TileRenderer::new(&src)?;
            let style = TileStyle::by_name(arg(5)?).ok_or("unknown style")?;
            let size = args.get(7).map(|s| s.parse()).transpose()?.unwrap_or(256);
            match r.render_png(arg(2)?.parse()?, arg(3)?.parse()?, arg(4)?.parse()?, size, &style)? {
                Some(png) => std::fs::write(arg(6)?, png)?,
                None => return Err("the tile holds no data".into()),
            }
        }
        other => return Err(format!("unknown command {other}").into()),
    }
    Ok(())
}
