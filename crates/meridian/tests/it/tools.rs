//! The external-tool rule shared by every test crate (`meridian_testing::tools`).

#[allow(unused_imports)]
pub(crate) use meridian_testing::tools::{
    chromium, have_python_module, have_tool, missing, npm_package, test_artefacts,
};
