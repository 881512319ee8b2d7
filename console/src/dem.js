// DEM: upload a GeoTIFF with the operations to run (a progress bar while it uploads), the
// datasets already uploaded (processed again without a new upload), the jobs with their progress
// while they run, and a job's results as tile layers on the map (hillshade,
// slope, colour relief, with a legend), with the terrain in 3D from its Terrain-RGB tiles.

import { bearer, call, Problem, root, upload } from "./api.js";
import { banner, h, mount, showProblem, table } from "./ui.js";
import { plainMap } from "./maps.js";

const OPERATIONS = {
  hillshade: { type: "hillshade", multidirectional: true },
  slope: { type: "slope" },
  "color-relief": { type: "color-relief", ramp: "terrain", alpha: true },
};
const LEGENDS = {
  hillshade: ["linear-gradient(to right, #000, #fff)", "shade 0–255 (lit from the north-west)"],
  slope: ["linear-gradient(to right, #fff, #000)", "slope in degrees: flat (white) to steep (black)"],
  "color-relief": ["linear-gradient(to right, #0a6b2e, #8fbf4f, #e8d68a, #a0703c, #fff)", "elevation, low to high"],
};

export async function demPage(main, jobId) {
  const errors = banner();
  const file = h("input", { type: "file", id: "dem-file", name: "file", accept: ".tif,.tiff,image/tiff", required: true });
  const ops = Object.keys(OPERATIONS).map((op) =>
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "op", value: op, checked: op !== "slope" }), ` ${op}`),
  );
  const bar = h("progress", { max: 100, value: 0, "aria-label": "Upload progress" });
  const form = h(
    "form",
    { class: "inline", "aria-label": "New DEM job" },
    h("div", { class: "field" }, h("label", { for: "dem-file" }, "GeoTIFF DEM"), file),
    h("fieldset", {}, h("legend", {}, "Operations"), ops),
    h("button", { type: "submit" }, "Upload and process"),
    bar,
  );
  const jobsBody = h("tbody");
  const jobs = table("Jobs", ["Job", "Status", "Progress", "Created"], jobsBody);
  const datasetsBody = h("tbody");
  const datasets = table("Datasets", ["File", "Size", "CRS", "Uploaded", ""], datasetsBody, { "data-testid": "datasets" });
  const mapEl = h("div", { class: "map", role: "region", "aria-label": "Map", "data-testid": "map" });
  const layers = h("fieldset", { class: "layers" }, h("legend", {}, "Layer"));
  const legend = h("div", { class: "legend", "aria-live": "polite" });
  const terrain = h("input", { type: "checkbox", id: "terrain3d" });
  const jobStatus = h("p", { class: "muted", "aria-live": "polite", "data-testid": "job-status" });

  mount(
    main,
    h("h1", {}, "DEM"),
    errors,
    form,
    datasets,
    jobs,
    h("h2", {}, "Results"),
    jobStatus,
    h("div", { class: "inline" }, layers, h("label", { class: "check", for: "terrain3d" }, terrain, " 3D terrain")),
    legend,
    mapEl,
  );

  async function listJobs() {
    try {
      const r = await call("GET", "/api/v1/dem/jobs?limit=20");
      mount(
        jobsBody,
        r.body.jobs.map((j) =>
          h(
            "tr",
            {},
            h("td", {}, h("a", { href: `#/dem/${j.id}` }, j.id)),
            h("td", {}, j.status),
            h("td", {}, h("progress", { max: 100, value: j.progress ?? 0, "aria-label": `Progress of ${j.id}` })),
            h("td", {}, j.created_at),
          ),
        ),
      );
    } catch (p) {
      showProblem(p, errors);
    }
  }

  const chosenOperations = () => [...form.querySelectorAll("input[name=op]:checked")].map((c) => OPERATIONS[c.value]);

  /** The uploads kept as datasets: each can run the checked operations again, with no upload. */
  async function listDatasets() {
    try {
      const r = await call("GET", "/api/v1/dem/datasets?limit=20");
      mount(
        datasetsBody,
        r.body.datasets.map((d) =>
          h(
            "tr",
            { "data-dataset": d.id },
            h("td", {}, d.filename || d.id),
            h("td", {}, `${d.width} × ${d.height} ${d.data_type}`),
            h("td", {}, d.epsg ? `EPSG:${d.epsg}` : "—"),
            h("td", {}, d.created_at),
            h(
              "td",
              {},
              h(
                "button",
                {
                  type: "button",
                  "aria-label": `Process again: ${d.filename || d.id}, with the checked operations`,
                  onclick: async () => {
                    try {
                      const job = (await call("POST", "/api/v1/dem/process", { body: { source: { dataset_id: d.id }, params: { operations: chosenOperations() } } })).body;
                      showProblem(null, errors);
                      window.location.hash = `#/dem/${job.id}`;
                    } catch (p) {
                      showProblem(p, errors);
                    }
                  },
                },
                "Process again",
              ),
            ),
          ),
        ),
      );
    } catch (p) {
      showProblem(p, errors);
    }
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const chosen = chosenOperations();
    if (!file.files.length) return;
    const body = new FormData();
    body.append("file", file.files[0]);
    body.append("params", JSON.stringify({ operations: chosen }));
    bar.value = 0;
    try {
      const job = await upload("/api/v1/dem/process", body, bar);
      showProblem(null, errors);
      window.location.hash = `#/dem/${job.id}`;
    } catch (p) {
      showProblem(p, errors);
    }
  });

  await Promise.all([listJobs(), listDatasets()]);
  if (!jobId) {
    jobStatus.textContent = "Choose a job to see its results.";
    return;
  }

  // The job: followed until it ends, then its tiles on the map.
  let job;
  for (;;) {
    try {
      job = (await call("GET", `/api/v1/dem/jobs/${jobId}`)).body;
    } catch (p) {
      showProblem(p, errors);
      return;
    }
    jobStatus.textContent = `Job ${job.id}: ${job.status}, ${job.progress ?? 0} %`;
    if (!["queued", "running"].includes(job.status)) break;
    await new Promise((r) => setTimeout(r, 500));
    if (window.location.hash !== `#/dem/${jobId}`) return;
  }
  await listJobs();
  if (job.status !== "succeeded") {
    if (job.error) showProblem(new Problem(job.error.status || 500, job.error), errors);
    return;
  }
  const { map } = await plainMap(mapEl);
  const token = encodeURIComponent(await bearer());
  const abs = (template) => {
    const url = new URL(template, window.location.origin);
    // The template is the server's own URL; behind a prefix the page's root leads there.
    const path = url.pathname.replace(/^.*?(\/api\/v1\/dem\/tiles\/)/, `${root()}$1`);
    return `${window.location.origin}${decodeURIComponent(path)}${url.search}&access_token=${token}`;
  };
  const tiles = job.tiles || [];
  const tileLayers = tiles.filter((t) => t.layer && LEGENDS[t.layer]);
  const bounds = tiles[0]?.bounds;
  for (const t of tiles) {
    const id = t.layer ? `layer-${t.layer}` : `style-${t.style}`;
    if (t.style === "terrain-rgb") {
      map.addSource("terrain", { type: "raster-dem", tiles: [abs(t.template)], tileSize: 256, encoding: "mapbox", minzoom: t.minzoom, maxzoom: t.maxzoom, bounds: t.bounds });
      continue;
    }
    if (!t.layer || !LEGENDS[t.layer]) continue;
    map.addSource(id, { type: "raster", tiles: [abs(t.template)], tileSize: 256, minzoom: t.minzoom, maxzoom: t.maxzoom, bounds: t.bounds });
    map.addLayer({ id, type: "raster", source: id, layout: { visibility: "none" } });
  }
  function show(name) {
    for (const t of tileLayers) map.setLayoutProperty(`layer-${t.layer}`, "visibility", t.layer === name ? "visible" : "none");
    const stats = job.outputs?.find((o) => o.operation === name)?.statistics;
    const [gradient, words] = LEGENDS[name];
    mount(
      legend,
      h("span", { class: "ramp", style: `background: ${gradient}` }),
      h("span", {}, ` ${name}: ${words}${stats ? ` (min ${stats.min}, max ${stats.max})` : ""}`),
    );
  }
  mount(
    layers,
    h("legend", {}, "Layer"),
    tileLayers.map((t, i) =>
      h(
        "label",
        { class: "check" },
        h("input", { type: "radio", name: "layer", value: t.layer, checked: i === 0, onchange: () => show(t.layer) }),
        ` ${t.layer}`,
      ),
    ),
  );
  if (tileLayers.length) show(tileLayers[0].layer);
  terrain.disabled = !map.getSource("terrain");
  terrain.addEventListener("change", () => {
    if (terrain.checked) {
      map.setTerrain({ source: "terrain", exaggeration: 1.5 });
      map.easeTo({ pitch: 60 });
    } else {
      map.setTerrain(null);
      map.easeTo({ pitch: 0 });
    }
  });
  if (bounds) map.fitBounds([[bounds[0], bounds[1]], [bounds[2], bounds[3]]], { padding: 20, animate: false });
  map.once("idle", () => {
    jobStatus.dataset.drawn = "true";
  });
}
