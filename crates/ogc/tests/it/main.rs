//! Integration tests of the OGC engines, driven without HTTP.

mod fuzz;
mod wfs;
