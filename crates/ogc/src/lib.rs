//! OGC classic web services over the feature service, without HTTP: WFS 2.0 (capabilities,
//! XML Schema of feature types, GML 3.2 and GeoJSON feature output, FES 2.0 filters translated to
//! CQL2, stored queries and transactions through the cadastre's write path).

pub mod wfs;
