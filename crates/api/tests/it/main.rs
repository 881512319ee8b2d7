//! The OpenAPI drift check. The router's own tests run in `crates/meridian/tests/it/router`,
//! where the program's services are built over a real store.

#![allow(clippy::unwrap_used)]

mod openapi;
