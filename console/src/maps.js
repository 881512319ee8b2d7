// What the map pages share: MapLibre loaded once from this server, and a map with no basemap
// (a plain background and a graticule at a step that suits the view); and the 3D bundle, loaded
// once when a page first opens a 3D view.

import { h } from "./ui.js";

let loading = null;
let loading3d = null;

/** The 3D viewers (viewer3d.js, a bundle of its own), loaded once. */
export function viewer3d() {
  if (!loading3d) loading3d = import("./viewer3d.js");
  return loading3d;
}

/** Loads MapLibre once (its CSP build, script, worker and styles from this server). */
export function maplibre() {
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      document.head.append(h("link", { rel: "stylesheet", href: "maplibre-gl.css" }));
      const script = h("script", { src: "maplibre-gl.js" });
      script.addEventListener("load", () => {
        window.maplibregl.setWorkerUrl(new URL("maplibre-gl-worker.js", window.location.href).href);
        resolve(window.maplibregl);
      });
      script.addEventListener("error", () => reject(new Error("the map library could not be loaded")));
      document.head.append(script);
    });
  }
  return loading;
}

/** Meridian and parallel lines over `bounds`, at least four across. */
export function graticule(bounds) {
  const span = Math.max(bounds.getEast() - bounds.getWest(), bounds.getNorth() - bounds.getSouth());
  const step = [30, 10, 5, 1, 0.5, 0.1, 0.05, 0.01, 0.005, 0.001, 0.0005, 0.0001].find((s) => span / s >= 4) || 0.00005;
  const features = [];
  const [w, e] = [Math.floor(bounds.getWest() / step) * step, Math.ceil(bounds.getEast() / step) * step];
  const [s, n] = [
    Math.max(-85, Math.floor(bounds.getSouth() / step) * step),
    Math.min(85, Math.ceil(bounds.getNorth() / step) * step),
  ];
  for (let x = w; x <= e + step / 2; x += step) {
    features.push({ type: "Feature", properties: {}, geometry: { type: "LineString", coordinates: [[x, s], [x, n]] } });
  }
  for (let y = s; y <= n + step / 2; y += step) {
    features.push({ type: "Feature", properties: {}, geometry: { type: "LineString", coordinates: [[w, y], [e, y]] } });
  }
  return { type: "FeatureCollection", features };
}

/** A map in `container` with the plain background and the graticule, once loaded. */
export async function plainMap(container) {
  const maplib = await maplibre();
  const map = new maplib.Map({
    container,
    style: {
      version: 8,
      sources: { graticule: { type: "geojson", data: { type: "FeatureCollection", features: [] } } },
      layers: [
        { id: "background", type: "background", paint: { "background-color": "#eef1f4" } },
        { id: "graticule", type: "line", source: "graticule", paint: { "line-color": "#b8c2cc", "line-width": 1 } },
      ],
    },
    center: [0, 0],
    zoom: 1,
    attributionControl: false,
    canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  map.addControl(new maplib.NavigationControl({ showCompass: true }));
  await new Promise((resolve) => map.on("load", resolve));
  const redraw = () => map.getSource("graticule").setData(graticule(map.getBounds()));
  map.on("moveend", redraw);
  redraw();
  return { map, maplib };
}
