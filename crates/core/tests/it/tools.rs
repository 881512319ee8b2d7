//! The external-tool rule shared by every test crate (`meridian_testing::tools`).

#[allow(unused_imports)]
pub(crate) use meridian_testing::tools::{have_python_module, have_tool, missing};
