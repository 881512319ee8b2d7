// Earth observation: scenes searched by the map's extent and a date range (STAC Item Search),
// their footprints on the map, a scene's bands and an index layer (NDVI or NDWI tiles computed
// from the scene), and an index computed with parcel zones: its histogram and zonal table.

import { bearer, call, Problem, root } from "./api.js";
import { banner, field, h, mount, showProblem, table } from "./ui.js";
import { plainMap } from "./maps.js";

const RAMP = "linear-gradient(to right, #a50026, #f46d43, #fee08b, #d9ef8b, #66bd63, #006837)";

async function finished(response) {
  // A computation too large to answer at once is a job: followed to its end.
  if (response.status !== 202) return response.body;
  const job = response.body.job || response.headers.get("location")?.split("/").pop();
  for (;;) {
    const j = (await call("GET", `/api/v1/jobs/${job}`)).body;
    if (j.status === "succeeded") return j.output;
    if (["failed", "cancelled"].includes(j.status)) throw new Problem(j.error?.status || 500, j.error || { title: `The job ${j.status}` });
    await new Promise((r) => setTimeout(r, 500));
  }
}

function histogram(stats) {
  const counts = stats.histogram?.counts || stats.histogram || [];
  const top = Math.max(1, ...counts);
  return h(
    "figure",
    { class: "histogram" },
    h(
      "div",
      { class: "bars", role: "img", "aria-label": `Histogram of ${counts.length} bins from ${stats.min} to ${stats.max}` },
      counts.map((c) => h("span", { style: `height: ${Math.round((100 * c) / top)}%`, title: String(c) })),
    ),
    h("figcaption", {}, `min ${stats.min?.toFixed?.(3)} · mean ${stats.mean?.toFixed?.(3)} · max ${stats.max?.toFixed?.(3)} · ${stats.count} pixels`),
  );
}

export async function eoPage(main) {
  const errors = banner();
  const from = field("From", { name: "from", type: "date" });
  const to = field("To", { name: "to", type: "date" });
  const search = h("form", { class: "inline", "aria-label": "Search scenes" }, from, to, h("button", { type: "submit" }, "Search the map extent"));
  const status = h("p", { class: "muted", "aria-live": "polite", "data-testid": "eo-status" });
  const mapEl = h("div", { class: "map", role: "region", "aria-label": "Map", "data-testid": "map" });
  const rows = h("tbody");
  const scenePanel = h("section", { "aria-live": "polite" });
  mount(
    main,
    h("h1", {}, "Earth observation"),
    errors,
    search,
    status,
    mapEl,
    table("Scenes", ["Scene", "Date", "Cloud cover"], rows),
    scenePanel,
  );
  let map;
  try {
    ({ map } = await plainMap(mapEl));
  } catch (e) {
    showProblem(e, errors);
    return;
  }
  map.addSource("footprints", { type: "geojson", data: { type: "FeatureCollection", features: [] } });
  map.addLayer({ id: "footprints", type: "line", source: "footprints", paint: { "line-color": "#0b5cad", "line-width": 2 } });

  async function run(useExtent) {
    const q = new URLSearchParams({ limit: "50" });
    if (useExtent) {
      const b = map.getBounds();
      q.set("bbox", [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map((v) => Math.max(-180, Math.min(180, v)).toFixed(5)).join(","));
    }
    if (from.input.value || to.input.value) {
      const start = from.input.value ? `${from.input.value}T00:00:00Z` : "..";
      const end = to.input.value ? `${to.input.value}T23:59:59Z` : "..";
      q.set("datetime", `${start}/${end}`);
    }
    try {
      const r = (await call("GET", `/api/v1/eo/search?${q}`)).body;
      showProblem(null, errors);
      map.getSource("footprints").setData({ type: "FeatureCollection", features: r.features });
      status.textContent = `${r.numberReturned ?? r.features.length} scenes${r.numberMatched != null ? ` of ${r.numberMatched}` : ""}.`;
      mount(
        rows,
        r.features.map((f) =>
          h(
            "tr",
            {},
            h("td", {}, h("button", { type: "button", class: "link-dark", onclick: () => openScene(f) }, `${f.collection}/${f.id}`)),
            h("td", {}, f.properties?.datetime || ""),
            h("td", {}, f.properties?.["eo:cloud_cover"] ?? ""),
          ),
        ),
      );
      if (!useExtent && r.features.length) {
        const bb = r.features.reduce((a, f) => [Math.min(a[0], f.bbox[0]), Math.min(a[1], f.bbox[1]), Math.max(a[2], f.bbox[2]), Math.max(a[3], f.bbox[3])], [180, 90, -180, -90]);
        map.fitBounds([[bb[0], bb[1]], [bb[2], bb[3]]], { padding: 30, animate: false });
      }
    } catch (p) {
      showProblem(p, errors);
    }
  }
  search.addEventListener("submit", (e) => {
    e.preventDefault();
    run(true);
  });

  async function openScene(f) {
    const scene = `${f.collection}/${f.id}`;
    map.fitBounds([[f.bbox[0], f.bbox[1]], [f.bbox[2], f.bbox[3]]], { padding: 30, animate: false });
    const bands = Object.entries(f.assets || {})
      .filter(([, a]) => a["eo:bands"])
      .map(([k, a]) => `${k} (${a["eo:bands"].map((b) => b.common_name || b.name).join(", ")})`);
    const index = field("Index", { name: "index" }, "select", ["ndvi", "ndwi"]);
    const zonesFilter = field("Parcels (CQL2, optional)", { name: "filter", placeholder: "tenure = 'freehold'" });
    const computeErrors = banner();
    const result = h("div", { "aria-live": "polite", "data-testid": "eo-result" });
    const legend = h("div", { class: "legend" }, h("span", { class: "ramp", style: `background: ${RAMP}` }), h("span", {}, " index from −1 (red) to 1 (green)"));
    const token = encodeURIComponent(await bearer());
    const showLayer = () => {
      if (map.getLayer("index")) map.removeLayer("index");
      if (map.getSource("index")) map.removeSource("index");
      const tiles = `${window.location.origin}${root()}/api/v1/eo/scenes/${encodeURIComponent(scene)}/tiles/{z}/{x}/{y}.png?index=${index.input.value}&colormap=rdylgn&rescale=-1,1&access_token=${token}`;
      map.addSource("index", { type: "raster", tiles: [tiles], tileSize: 256, bounds: f.bbox });
      map.addLayer({ id: "index", type: "raster", source: "index" }, "footprints");
      result.dataset.layer = index.input.value;
    };
    index.input.addEventListener("change", showLayer);
    const compute = h(
      "form",
      {
        class: "inline",
        "aria-label": "Compute an index",
        onsubmit: async (e) => {
          e.preventDefault();
          const body = { scene, zones: { collection: "parcels" } };
          if (zonesFilter.input.value.trim()) body.zones.filter = zonesFilter.input.value.trim();
          mount(result, h("p", {}, "Computing…"));
          try {
            const done = await finished(await call("POST", `/api/v1/eo/compute/${index.input.value}`, { body }));
            showProblem(null, computeErrors);
            const zones = done.zones?.features || [];
            mount(
              result,
              h("h3", {}, `${index.input.value.toUpperCase()} of ${scene}`),
              histogram(done.statistics),
              table(
                `Parcel zones (${zones.length})`,
                ["Parcel", "Lot", "Plan", "Pixels", "Mean", "Min", "Max"],
                h(
                  "tbody",
                  {},
                  zones.map((z) =>
                    h(
                      "tr",
                      {},
                      h("td", {}, String(z.id)),
                      h("td", {}, z.properties.lot ?? ""),
                      h("td", {}, z.properties.plan ?? ""),
                      h("td", {}, String(z.properties.count)),
                      h("td", {}, z.properties.mean == null ? "" : z.properties.mean.toFixed(3)),
                      h("td", {}, z.properties.min == null ? "" : z.properties.min.toFixed(3)),
                      h("td", {}, z.properties.max == null ? "" : z.properties.max.toFixed(3)),
                    ),
                  ),
                ),
                { "data-testid": "zones" },
              ),
            );
          } catch (p) {
            mount(result);
            showProblem(p, computeErrors);
          }
        },
      },
      index,
      zonesFilter,
      h("button", { type: "submit" }, "Compute with parcel zones"),
    );
    mount(
      scenePanel,
      h("h2", {}, scene),
      h("p", {}, `Bands: ${bands.join("; ") || "none named"}`),
      legend,
      computeErrors,
      compute,
      result,
    );
    showLayer();
  }
  await run(false);
}
