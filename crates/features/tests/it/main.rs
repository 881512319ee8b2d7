//! Integration tests of the feature engine.

#![allow(clippy::unwrap_used)]

mod fuzz;
