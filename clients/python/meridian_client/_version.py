"""The package's version: the server version it is made for (crates/meridian/Cargo.toml)."""

__version__ = "0.1.0"
