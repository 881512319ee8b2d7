//! The external-tool rule shared by every test crate (`meridian_fuzzing::tools`).

#[allow(unused_imports)]
pub(crate) use meridian_fuzzing::tools::{have_python_module, have_tool, missing};
