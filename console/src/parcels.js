// Parcels and collections on a map: the collection drawn by the server's WMS (so that 100,000
// parcels hold), the features in view from OGC API Features when few enough to pick, a CQL2
// filter with the API's error, a parcel's attributes on click, its shape edited by dragging its
// corners (ETag-guarded), a parcel drawn on the map, and a collection uploaded (GeoJSON or
// FlatGeobuf) with a progress bar.
//
// MapLibre GL JS is loaded only when this page opens (maps.js).

import { bearer, call, followJob, root, upload } from "./api.js";
import { banner, field, fieldsOf, h, mount, propsTable, showProblem, table } from "./ui.js";
import { plainMap } from "./maps.js";

const PICKABLE = 500;
const FILL = "#d9480f";

export async function parcelsPage(main) {
  const errors = banner();
  const status = h("p", { class: "muted", "aria-live": "polite" });
  const collection = field("Collection", { name: "collection" }, "select", []);
  const filter = field("CQL2 filter", { name: "filter", placeholder: "tenure = 'freehold'", size: 40 });
  const filterForm = h("form", { class: "inline", "aria-label": "Filter" }, collection, filter, h("button", { type: "submit" }, "Apply"));
  const mapEl = h("div", { class: "map", role: "region", "aria-label": "Map", "data-testid": "map" });
  const details = h("section", { "aria-labelledby": "picked", class: "picked" });
  const rows = h("tbody");
  const inView = table("Features in view", ["Id", "Lot", "Plan", "Tenure"], rows);
  const drawErrors = banner();
  // Kept across a picked parcel's redraws, so that "Shape saved" stays after the save.
  const shapeStatus = h("span", { class: "muted", "aria-live": "polite", "data-testid": "shape-status" });
  const lot = field("Lot", { name: "lot" });
  const plan = field("Plan", { name: "plan" });
  const tenure = field("Tenure", { name: "tenure", value: "freehold" });
  const drawStatus = h("span", { class: "muted", "aria-live": "polite" });
  const drawButton = h("button", { type: "button" }, "Draw a parcel");
  const finish = h("button", { type: "submit", disabled: true }, "Save parcel");
  const drawForm = h("form", { class: "inline", "aria-label": "New parcel" }, lot, plan, tenure, drawButton, finish, drawStatus);
  const upErrors = banner();
  const upFile = h("input", { type: "file", id: "collection-file", accept: ".geojson,.json,.fgb", required: true });
  const upId = field("Collection id", { name: "id", required: true, placeholder: "trees" });
  const upTitle = field("Title", { name: "title" });
  const upBar = h("progress", { max: 100, value: 0, "aria-label": "Collection upload progress" });
  const upStatus = h("span", { class: "muted", "aria-live": "polite", "data-testid": "upload-status" });
  const upForm = h(
    "form",
    { class: "inline", "aria-label": "Upload a collection" },
    h("div", { class: "field" }, h("label", { for: "collection-file" }, "GeoJSON or FlatGeobuf file"), upFile),
    upId,
    upTitle,
    h("button", { type: "submit" }, "Upload collection"),
    upBar,
    upStatus,
  );

  mount(
    main,
    h("h1", {}, "Parcels and collections"),
    errors,
    filterForm,
    status,
    mapEl,
    h("section", { "aria-labelledby": "draw" }, h("h2", { id: "draw" }, "Draw a parcel"), drawErrors, drawForm),
    details,
    inView,
    h("section", { "aria-labelledby": "upload" }, h("h2", { id: "upload" }, "Upload a collection"), upErrors, upForm),
  );

  async function listCollections(selected) {
    const collections = (await call("GET", "/api/v1/ogc/v1/features/collections")).body.collections;
    mount(collection.input, collections.map((c) => h("option", { value: c.id, selected: c.id === selected }, c.title || c.id)));
  }
  try {
    await listCollections("parcels");
  } catch (p) {
    showProblem(p, errors);
    return;
  }

  let map;
  try {
    ({ map } = await plainMap(mapEl));
  } catch (e) {
    showProblem(e, errors);
    return;
  }
  // MapLibre keeps only numeric feature ids: the id travels as a property.
  map.addSource("view", { type: "geojson", data: { type: "FeatureCollection", features: [] }, promoteId: "fid" });
  map.addSource("drawing", { type: "geojson", data: { type: "FeatureCollection", features: [] } });
  map.addSource("vertices", { type: "geojson", data: { type: "FeatureCollection", features: [] } });

  async function showCollection() {
    const id = collection.input.value;
    for (const layer of ["wms", "view-fill", "view-line", "picked"]) if (map.getLayer(layer)) map.removeLayer(layer);
    if (map.getSource("wms")) map.removeSource("wms");
    const token = await bearer();
    const wms =
      `${window.location.origin}${root()}/api/v1/ogc/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap` +
      `&LAYERS=${encodeURIComponent(`features:${id}`)}&STYLES=&CRS=EPSG:3857&BBOX={bbox-epsg-3857}` +
      `&WIDTH=256&HEIGHT=256&FORMAT=image/png&TRANSPARENT=TRUE&access_token=${encodeURIComponent(token)}`;
    map.addSource("wms", { type: "raster", tiles: [wms], tileSize: 256 });
    map.addLayer({ id: "wms", type: "raster", source: "wms" });
    map.addLayer({ id: "view-fill", type: "fill", source: "view", paint: { "fill-color": FILL, "fill-opacity": 0.45 } });
    map.addLayer({ id: "view-line", type: "line", source: "view", paint: { "line-color": "#7a2d06", "line-width": 1.5 } });
    map.addLayer({
      id: "picked",
      type: "line",
      source: "view",
      paint: { "line-color": "#13283f", "line-width": 3 },
      filter: ["==", ["id"], ""],
    });
    if (!map.getLayer("drawing")) {
      map.addLayer({ id: "drawing", type: "line", source: "drawing", paint: { "line-color": "#0b5cad", "line-width": 2 } });
      map.addLayer({
        id: "vertices",
        type: "circle",
        source: "vertices",
        paint: { "circle-radius": 7, "circle-color": "#fff", "circle-stroke-color": "#0b5cad", "circle-stroke-width": 2 },
      });
    }
    try {
      const c = (await call("GET", `/api/v1/ogc/v1/features/collections/${encodeURIComponent(id)}`)).body;
      const bbox = c.extent?.spatial?.bbox?.[0];
      if (bbox && bbox.every(Number.isFinite) && bbox[0] <= bbox[2]) {
        map.fitBounds([[bbox[0], bbox[1]], [bbox[2], bbox[3]]], { padding: 40, animate: false, maxZoom: 17 });
      }
    } catch (p) {
      showProblem(p, errors);
    }
    await refresh();
  }

  /** The features in view, when few enough to pick; otherwise only the WMS picture. */
  async function refresh() {
    const b = map.getBounds();
    const bbox = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map((v) => v.toFixed(6)).join(",");
    const q = new URLSearchParams({ bbox, limit: String(PICKABLE) });
    if (filter.input.value.trim()) {
      q.set("filter", filter.input.value.trim());
      q.set("filter-lang", "cql2-text");
    }
    try {
      const r = await call("GET", `/api/v1/ogc/v1/features/collections/${encodeURIComponent(collection.input.value)}/items?${q}`);
      showProblem(null, errors, fieldsOf(filterForm));
      const page = r.body;
      const more = page.links?.some((l) => l.rel === "next");
      if (more) {
        map.getSource("view").setData({ type: "FeatureCollection", features: [] });
        mount(rows);
        status.textContent = `More than ${PICKABLE} features in view (${page.numberMatched ?? "many"}): zoom in to pick one.`;
        return;
      }
      const drawnFeatures = page.features.map((f) => ({ ...f, properties: { ...f.properties, fid: String(f.id) } }));
      map.getSource("view").setData({ type: "FeatureCollection", features: drawnFeatures });
      status.textContent = `${page.features.length} features in view.`;
      mount(
        rows,
        page.features.map((f) =>
          h(
            "tr",
            {},
            h("td", {}, h("button", { type: "button", class: "link-dark", onclick: () => pick(f) }, String(f.id))),
            h("td", {}, f.properties?.lot ?? ""),
            h("td", {}, f.properties?.plan ?? ""),
            h("td", {}, f.properties?.tenure ?? ""),
          ),
        ),
      );
    } catch (p) {
      showProblem(p, errors, fieldsOf(filterForm));
    }
  }

  async function pick(f) {
    shapeStatus.textContent = "";
    map.setFilter("picked", ["==", ["id"], f.id]);
    const attributes = propsTable("Attributes", f.properties);
    mount(details, h("h2", { id: "picked" }, `Feature ${f.id}`), attributes);
    if (collection.input.value !== "parcels") return;
    // A parcel: its tenure changed with the parcel's ETag (a change made meanwhile is a 412), and
    // every version it has had.
    const editErrors = banner();
    const tenureField = field("Tenure", { name: "tenure", value: f.properties?.tenure ?? "" });
    const history = h("div", { "data-testid": "history" });
    const edit = h(
      "form",
      {
        class: "inline",
        "aria-label": "Change the parcel",
        onsubmit: async (e) => {
          e.preventDefault();
          try {
            const current = await call("GET", `/api/v1/cadastre/parcels/${f.id}`);
            const changed = await call("PATCH", `/api/v1/cadastre/parcels/${f.id}`, {
              body: JSON.stringify({ properties: { tenure: tenureField.input.value.trim() || null } }),
              contentType: "application/merge-patch+json",
              headers: { "If-Match": current.headers.get("etag") },
            });
            showProblem(null, editErrors, fieldsOf(edit));
            await refresh();
            await pick(changed.body);
          } catch (p) {
            showProblem(p, editErrors, fieldsOf(edit));
          }
        },
      },
      tenureField,
      h("button", { type: "submit" }, "Save change"),
    );
    // Its shape: the corners of its outer ring dragged on the map, then saved with its ETag.
    const saveShape = h("button", { type: "submit", disabled: true }, "Save shape");
    const shape = h(
      "form",
      {
        class: "inline",
        "aria-label": "Change the parcel's shape",
        onsubmit: async (e) => {
          e.preventDefault();
          if (!editing) return;
          try {
            const changed = await call("PATCH", `/api/v1/cadastre/parcels/${f.id}`, {
              body: JSON.stringify({ geometry: editing.geometry() }),
              contentType: "application/merge-patch+json",
              headers: { "If-Match": editing.etag },
            });
            showProblem(null, editErrors);
            stopEditing();
            await refresh();
            await pick(changed.body);
            shapeStatus.textContent = `Shape saved: ${Math.round(changed.body.properties?.area_m2 ?? 0)} m².`;
          } catch (p) {
            showProblem(p, editErrors);
          }
        },
      },
      h(
        "button",
        {
          type: "button",
          onclick: async () => {
            try {
              await startEditing(f.id);
              saveShape.disabled = false;
              shapeStatus.textContent = "Drag the corners, then save.";
            } catch (p) {
              showProblem(p, editErrors);
            }
          },
        },
        "Edit shape",
      ),
      saveShape,
      shapeStatus,
    );
    mount(details, h("h2", { id: "picked" }, `Feature ${f.id}`), attributes, editErrors, edit, shape, history);
    try {
      const versions = (await call("GET", `/api/v1/cadastre/parcels/${f.id}/history`)).body.versions || [];
      mount(
        history,
        table(
          "History",
          ["Change", "Recorded", "Tenure"],
          h("tbody", {}, versions.map((v) => h("tr", {}, h("td", {}, v.change), h("td", {}, v.recorded_at), h("td", {}, v.properties?.tenure ?? "")))),
          { class: "props" },
        ),
      );
    } catch (p) {
      showProblem(p, editErrors);
    }
  }

  // Editing a parcel's shape: its current version (geometry and ETag), the corners of its first
  // outer ring as handles, the other rings kept as they are.
  let editing = null;
  const ringOf = (geometry) => (geometry.type === "MultiPolygon" ? geometry.coordinates[0][0] : geometry.coordinates[0]);
  function showEditing() {
    const ring = editing ? editing.ring : [];
    map.getSource("vertices").setData({
      type: "FeatureCollection",
      features: ring.map((c, i) => ({ type: "Feature", properties: { i }, geometry: { type: "Point", coordinates: c } })),
    });
    map.getSource("drawing").setData({
      type: "FeatureCollection",
      features: ring.length ? [{ type: "Feature", properties: {}, geometry: { type: "LineString", coordinates: [...ring, ring[0]] } }] : [],
    });
  }
  async function startEditing(id) {
    const current = await call("GET", `/api/v1/cadastre/parcels/${id}`);
    const geometry = current.body.geometry;
    const ring = ringOf(geometry).slice(0, -1).map((c) => [...c]);
    editing = {
      ring,
      etag: current.headers.get("etag"),
      geometry() {
        const closed = [...ring, ring[0]];
        const copy = JSON.parse(JSON.stringify(geometry));
        if (copy.type === "MultiPolygon") copy.coordinates[0][0] = closed;
        else copy.coordinates[0] = closed;
        return copy;
      },
    };
    showEditing();
  }
  function stopEditing() {
    editing = null;
    showEditing();
  }
  let dragged = null;
  map.on("mousedown", "vertices", (e) => {
    if (!editing || !e.features?.length) return;
    e.preventDefault();
    dragged = e.features[0].properties.i;
    map.getCanvas().style.cursor = "grabbing";
  });
  map.on("mousemove", (e) => {
    if (dragged === null || !editing) return;
    editing.ring[dragged] = [e.lngLat.lng, e.lngLat.lat];
    showEditing();
  });
  map.on("mouseup", () => {
    dragged = null;
    map.getCanvas().style.cursor = "";
  });

  map.on("click", "view-fill", (e) => {
    if (drawing || editing) return;
    const f = e.features?.[0];
    if (f) {
      const { fid, ...properties } = f.properties;
      pick({ id: fid, properties });
    }
  });

  // Drawing: clicks add corners; "Save parcel" closes the ring and creates it.
  let drawing = null;
  const drawn = () => ({
    type: "FeatureCollection",
    features: drawing && drawing.length > 1 ? [{ type: "Feature", properties: {}, geometry: { type: "LineString", coordinates: drawing.length > 2 ? [...drawing, drawing[0]] : drawing } }] : [],
  });
  drawButton.addEventListener("click", () => {
    stopEditing();
    drawing = [];
    finish.disabled = true;
    drawStatus.textContent = "Click the parcel's corners on the map, then save.";
    map.getSource("drawing").setData(drawn());
  });
  map.on("click", (e) => {
    if (!drawing) return;
    drawing.push([e.lngLat.lng, e.lngLat.lat]);
    finish.disabled = drawing.length < 3;
    drawStatus.textContent = `${drawing.length} corners.`;
    map.getSource("drawing").setData(drawn());
  });
  drawForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!drawing || drawing.length < 3) return;
    const body = {
      type: "Feature",
      geometry: { type: "Polygon", coordinates: [[...drawing, drawing[0]]] },
      properties: { lot: lot.input.value.trim(), plan: plan.input.value.trim(), tenure: tenure.input.value.trim() || undefined },
    };
    try {
      const r = await call("POST", "/api/v1/cadastre/parcels", { body });
      showProblem(null, drawErrors, fieldsOf(drawForm));
      drawing = null;
      finish.disabled = true;
      map.getSource("drawing").setData(drawn());
      drawStatus.textContent = `Parcel ${r.body.id} saved.`;
      await refresh();
      pick(r.body);
    } catch (p) {
      showProblem(p, drawErrors, fieldsOf(drawForm));
    }
  });

  // A collection uploaded: imported while waiting (201) or by a job (202) followed to its end.
  upForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = upFile.files[0];
    if (!f) return;
    const fgb = /\.fgb$/i.test(f.name);
    const q = new URLSearchParams({ id: upId.input.value.trim() });
    if (upTitle.input.value.trim()) q.set("title", upTitle.input.value.trim());
    upBar.value = 0;
    try {
      const made = await upload(`/api/v1/ogc/v1/features/collections?${q}`, f, upBar, fgb ? "application/flatgeobuf" : "application/geo+json");
      showProblem(null, upErrors, fieldsOf(upForm));
      let id = made.id;
      let count = made.numberOfFeatures;
      if (made.status && String(made.id).startsWith("job_")) {
        const job = await followJob(made.id, (j) => (upStatus.textContent = `Importing: ${j.status}, ${j.progress ?? 0} %`));
        if (job.status !== "succeeded") throw { doc: job.error || { title: `The import ${job.status}` } };
        id = job.output.collection;
        count = job.output.numberOfFeatures;
      }
      upStatus.textContent = `Collection ${id}: ${count} features.`;
      await listCollections(id);
      await showCollection();
    } catch (p) {
      showProblem(p, upErrors, fieldsOf(upForm));
    }
  });

  filterForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    await refresh();
  });
  collection.input.addEventListener("change", showCollection);
  let timer;
  map.on("moveend", () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 150);
  });
  await showCollection();
}
