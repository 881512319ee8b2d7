// Point clouds: the account's clouds, an upload with a progress bar (then its indexing followed),
// and a cloud's page: what the file holds, classification with its progress, the class
// histogram as a chart, downloads (LAZ, the classified LAZ, COPC), and a 3D view of the points
// coloured by class, streamed from the COPC file node by node.

import { bearer, call, followJob, root, upload } from "./api.js";
import { viewer3d } from "./maps.js";
import { banner, h, mount, showProblem, table } from "./ui.js";

const CLASSES = {
  0: "never classified", 1: "unclassified", 2: "ground", 3: "low vegetation", 4: "medium vegetation",
  5: "high vegetation", 6: "building", 7: "low noise", 9: "water", 17: "bridge deck", 18: "high noise",
};
const COLOURS = { 2: "#a0703c", 3: "#9ccc65", 4: "#43a047", 5: "#1b5e20", 6: "#d9480f", 7: "#777", 9: "#1e88e5", 18: "#444" };

function chart(histogram, caption) {
  const entries = Object.entries(histogram || {}).sort((a, b) => Number(a[0]) - Number(b[0]));
  const total = entries.reduce((n, [, c]) => n + c, 0) || 1;
  return table(
    caption,
    ["Class", "Points", ""],
    h(
      "tbody",
      {},
      entries.map(([code, count]) =>
        h(
          "tr",
          { "data-class": code },
          h("th", { scope: "row" }, `${code} ${CLASSES[code] || ""}`),
          h("td", {}, String(count)),
          h(
            "td",
            { class: "bar-cell" },
            h("span", { class: "bar", style: `width: ${((100 * count) / total).toFixed(1)}%; background: ${COLOURS[code] || "#8a96a3"}` }),
            ` ${((100 * count) / total).toFixed(1)} %`,
          ),
        ),
      ),
    ),
    { class: "classes", "data-testid": "class-chart" },
  );
}

export async function pointcloudPage(main) {
  const errors = banner();
  const file = h("input", { type: "file", id: "pc-file", accept: ".las,.laz", required: true });
  const bar = h("progress", { max: 100, value: 0, "aria-label": "Upload progress" });
  const status = h("p", { class: "muted", "aria-live": "polite", "data-testid": "pc-status" });
  const rows = h("tbody");
  const form = h(
    "form",
    {
      class: "inline",
      "aria-label": "Upload a point cloud",
      onsubmit: async (e) => {
        e.preventDefault();
        const f = file.files[0];
        if (!f) return;
        try {
          const made = await upload(`/api/v1/pointcloud/upload?name=${encodeURIComponent(f.name)}`, f, bar, "application/octet-stream");
          showProblem(null, errors);
          status.textContent = "Indexing…";
          const job = await followJob(made.job?.id || made.job || made.index_job, (j) => {
            status.textContent = `Indexing: ${j.status}, ${j.progress ?? 0} %`;
          });
          status.textContent = `Indexing ${job.status}.`;
          window.location.hash = `#/pointcloud/${made.id}`;
        } catch (p) {
          showProblem(p, errors);
        }
      },
    },
    h("div", { class: "field" }, h("label", { for: "pc-file" }, "LAS or LAZ file"), file),
    h("button", { type: "submit" }, "Upload"),
    bar,
  );
  mount(
    main,
    h("h1", {}, "Point clouds"),
    errors,
    form,
    status,
    table("Point clouds", ["Name", "Status", "Points", "Classified"], rows),
  );
  try {
    const r = (await call("GET", "/api/v1/pointcloud?limit=50")).body;
    mount(
      rows,
      r.point_clouds.map((p) =>
        h(
          "tr",
          {},
          h("td", {}, h("a", { href: `#/pointcloud/${p.id}` }, p.name || p.filename || p.id)),
          h("td", {}, p.status),
          h("td", {}, String(p.points ?? "")),
          h("td", {}, p.classification?.status || "no"),
        ),
      ),
    );
  } catch (p) {
    showProblem(p, errors);
  }
}

export async function cloudPage(main, id) {
  const errors = banner();
  const base = `/api/v1/pointcloud/${id}`;
  let pc;
  try {
    pc = (await call("GET", base)).body;
  } catch (p) {
    mount(main, h("h1", {}, "Point cloud"), errors);
    showProblem(p, errors);
    return;
  }
  const progress = h("progress", { max: 100, value: 0, "aria-label": "Classification progress" });
  const status = h("p", { class: "muted", "aria-live": "polite", "data-testid": "classify-status" });
  const result = h("div", { "aria-live": "polite" });
  const download = (label, query) => h("a", { href: `${root()}${base}/download${query}`, "data-download": label, onclick: (e) => save(e, query, label) }, label);
  // Downloads carry the token in a header: fetched, then saved from a blob.
  async function save(e, query, label) {
    e.preventDefault();
    try {
      const r = await fetch(`${root()}${base}/download${query}`, { headers: { Authorization: `Bearer ${await bearer()}` } });
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      const url = URL.createObjectURL(await r.blob());
      const a = h("a", { href: url, download: `${pc.name || id}${label.includes("COPC") ? ".copc.laz" : ".laz"}` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (err) {
      showProblem(err, errors);
    }
  }
  function drawResult() {
    const c = pc.classification;
    mount(
      result,
      c && c.status === "succeeded"
        ? [
            chart(c.histogram, "Classes after classification"),
            h("p", { class: "muted" }, `${c.points_per_second ? `${Math.round(c.points_per_second).toLocaleString()} points/s` : ""}${c.model ? ` · model ${c.model}` : ""}`),
          ]
        : chart(pc.classification_histogram, "Classes in the file"),
      h("p", {}, "Download: ", download("LAZ", "?version=original"), " · ", c?.status === "succeeded" ? [download("classified LAZ", "?version=classified"), " · "] : "", download("COPC", "?format=copc")),
    );
  }
  const classify = h(
    "button",
    {
      type: "button",
      onclick: async () => {
        classify.disabled = true;
        try {
          const r = await call("POST", `${base}/classify`, { body: {} });
          const jobId = r.body.id;
          const job = await followJob(jobId, (j) => {
            progress.value = j.progress ?? 0;
            status.textContent = `Classification: ${j.status}, ${j.progress ?? 0} %`;
          });
          pc = (await call("GET", base)).body;
          if (job.status !== "succeeded") showProblem({ doc: job.error || { title: `The classification ${job.status}` } }, errors);
          drawResult();
        } catch (p) {
          showProblem(p, errors);
        }
        classify.disabled = false;
      },
    },
    "Classify",
  );
  // The 3D view: the classified version when there is one, else the file as uploaded.
  const view3d = h("div", { class: "view3d", "data-testid": "cloud-3d-view" });
  let viewer = null;
  const open3d = h(
    "button",
    {
      type: "button",
      onclick: async () => {
        open3d.disabled = true;
        viewer?.dispose();
        mount(view3d, h("p", { class: "muted" }, "Loading the 3D viewer…"));
        try {
          const { cloudView } = await viewer3d();
          const version = pc.classification?.status === "succeeded" ? "classified" : "original";
          viewer = await cloudView(view3d, { url: `${root()}${base}/download?format=copc&version=${version}`, token: bearer });
          showProblem(null, errors);
        } catch (p) {
          mount(view3d);
          showProblem(p, errors);
        }
        open3d.disabled = false;
      },
    },
    "Show in 3D",
  );
  window.addEventListener("hashchange", () => viewer?.dispose(), { once: true });
  const crs = pc.crs?.epsg ? `EPSG:${pc.crs.epsg}` : pc.crs?.name || "no CRS";
  mount(
    main,
    h("p", {}, h("a", { href: "#/pointcloud" }, "All point clouds")),
    h("h1", {}, pc.name || pc.filename || pc.id),
    h("p", { class: "muted" }, `${pc.points ?? "?"} points · LAS ${pc.las_version ?? "?"} format ${pc.point_format ?? "?"} · ${crs} · ${pc.status}`),
    errors,
    h("div", { class: "inline" }, classify, progress, open3d),
    status,
    result,
    view3d,
  );
  drawResult();
}
