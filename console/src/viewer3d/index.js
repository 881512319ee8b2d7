// The console's 3D part, a bundle of its own (viewer3d.js) that the pages import only when a
// 3D view is opened: three.js, 3d-tiles-renderer, copc.js and laz-perf.

export { cloudView } from "./points.js";
export { twinGlobe } from "./globe.js";
