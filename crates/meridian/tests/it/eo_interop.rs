//! STAC clients against the real server (see the tests below).
