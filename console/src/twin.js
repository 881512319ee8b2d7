// Digital twins: the twins and their builds, and a twin's page: its 3D Tiles on a globe (the 3D
// bundle loads when the page opens) or its footprints on a 2D map, a building picked on either to
// see its attributes as of the clock and its sensors, the clock (play, pause, rate, time travel)
// set through the API, and the sensors' readings live from the twin's WebSocket, with a small
// chart.

import { bearer, call, followJob, root } from "./api.js";
import { banner, field, fieldsOf, h, mount, propsTable, showProblem, table } from "./ui.js";
import { plainMap, viewer3d } from "./maps.js";

export async function twinsPage(main) {
  const errors = banner();
  const rows = h("tbody");
  const name = field("Twin name", { name: "name", required: true });
  const bbox = field("Box (west,south,east,north)", { name: "bbox", required: true, placeholder: "7.09,45.91,7.11,45.93", size: 30 });
  const status = h("p", { class: "muted", "aria-live": "polite" });
  const form = h(
    "form",
    {
      class: "inline",
      "aria-label": "New twin",
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          const box = bbox.input.value.split(",").map((v) => Number(v.trim()));
          const r = await call("POST", "/api/v1/realtime/twins", { body: { name: name.input.value.trim(), bbox: box, collection: "parcels" } });
          showProblem(null, errors, fieldsOf(form));
          const job = r.body.job?.id;
          if (job) await followJob(job, (j) => (status.textContent = `Building: ${j.status}, ${j.progress ?? 0} %`));
          window.location.hash = `#/twin/${r.body.id}`;
        } catch (p) {
          showProblem(p, errors, fieldsOf(form));
        }
      },
    },
    name,
    bbox,
    h("button", { type: "submit" }, "Build twin"),
  );
  mount(
    main,
    h("h1", {}, "Digital twins"),
    errors,
    form,
    status,
    table("Twins", ["Name", "Status", "Features", "Clock"], rows),
  );
  try {
    const r = (await call("GET", "/api/v1/realtime/twins?limit=50")).body;
    mount(
      rows,
      r.twins.map((t) =>
        h(
          "tr",
          {},
          h("td", {}, h("a", { href: `#/twin/${t.id}` }, t.name)),
          h("td", {}, t.status),
          h("td", {}, String(t.tileset?.features ?? "")),
          h("td", {}, t.clock ? `${t.clock.mode} ${t.clock.time}` : ""),
        ),
      ),
    );
  } catch (p) {
    showProblem(p, errors);
  }
}

/** A line chart of the last readings, as SVG. */
function sparkline(values) {
  const w = 160;
  const hgt = 36;
  if (values.length < 2) return h("span", { class: "muted" }, values.length ? "" : "no readings yet");
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = hi - lo || 1;
  const pts = values.map((v, i) => `${((i * w) / (values.length - 1)).toFixed(1)},${(hgt - 2 - ((v - lo) * (hgt - 4)) / span).toFixed(1)}`).join(" ");
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("width", w);
  svg.setAttribute("height", hgt);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `last ${values.length} readings, from ${lo} to ${hi}`);
  const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
  line.setAttribute("points", pts);
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "#0b5cad");
  line.setAttribute("stroke-width", "2");
  svg.append(line);
  return svg;
}

export async function twinPage(main, id) {
  const errors = banner();
  let twin;
  try {
    twin = (await call("GET", `/api/v1/realtime/twins/${id}`)).body;
  } catch (p) {
    mount(main, h("h1", {}, "Twin"), errors);
    showProblem(p, errors);
    return;
  }
  const clockText = h("p", { "aria-live": "polite", "data-testid": "clock" });
  const when = field("Time travel to", { name: "time", type: "datetime-local", step: 1 });
  const rate = field("Rate", { name: "rate" }, "select", ["1", "60", "3600", "-3600"]);
  let map = null;
  let fitted = false;
  const mapEl = h("div", { class: "map", role: "region", "aria-label": "Map", "data-testid": "map", hidden: true });
  const globeEl = h("div", { class: "view3d", role: "region", "aria-label": "Globe", "data-testid": "globe-view" });
  const showGlobe = h("button", { type: "button", "aria-pressed": "true", onclick: () => choose(true) }, "Globe (3D)");
  const showMap = h("button", { type: "button", "aria-pressed": "false", onclick: () => choose(false) }, "Map (2D)");
  function choose(globe) {
    globeEl.hidden = !globe;
    mapEl.hidden = globe;
    showGlobe.setAttribute("aria-pressed", String(globe));
    showMap.setAttribute("aria-pressed", String(!globe));
    if (!globe && map) {
      // A map made while hidden has no size: sized and fitted when first shown.
      map.resize();
      if (!fitted) map.fitBounds([[twin.bbox[0], twin.bbox[1]], [twin.bbox[2], twin.bbox[3]]], { padding: 20, animate: false });
      fitted = true;
    }
  }
  const picked = h("section", { "aria-live": "polite", "data-testid": "picked" });
  const live = h("p", { class: "muted", "aria-live": "polite", "data-testid": "live" });
  let clock = twin.clock;
  const showClock = () => {
    clockText.textContent = `Clock: ${clock.time} · ${clock.mode} · ${clock.playing ? "playing" : "paused"} · rate ${clock.rate}`;
  };
  showClock();
  async function setClock(change) {
    try {
      clock = (await call("POST", `/api/v1/realtime/twin/${id}/time`, { body: change })).body;
      showProblem(null, errors);
      showClock();
      if (current) await pick(current);
    } catch (p) {
      showProblem(p, errors, fieldsOf(clockForm));
    }
  }
  const clockForm = h(
    "form",
    {
      class: "inline",
      "aria-label": "Clock",
      onsubmit: async (e) => {
        e.preventDefault();
        if (when.input.value) await setClock({ time: new Date(when.input.value).toISOString(), playing: false });
      },
    },
    h("button", { type: "button", onclick: () => setClock({ playing: true, rate: Number(rate.input.value) }) }, "Play"),
    h("button", { type: "button", onclick: () => setClock({ playing: false }) }, "Pause"),
    rate,
    when,
    h("button", { type: "submit" }, "Go"),
    h("button", { type: "button", onclick: () => setClock({ time: "now" }) }, "Live"),
  );
  mount(
    main,
    h("p", {}, h("a", { href: "#/twin" }, "All twins")),
    h("h1", {}, twin.name),
    h("p", { class: "muted" }, `${twin.status} · ${twin.tileset?.features ?? 0} buildings · box ${twin.bbox.join(", ")}`),
    errors,
    clockText,
    clockForm,
    live,
    h("div", { class: "inline", role: "group", "aria-label": "View" }, showGlobe, showMap),
    globeEl,
    mapEl,
    picked,
  );

  // Readings kept per sensor for the charts, from the WebSocket.
  const readings = new Map();
  let current = null;
  async function pick(fid) {
    current = fid;
    try {
      const f = (await call("GET", `/api/v1/realtime/twin/${id}/features/${encodeURIComponent(fid)}`)).body;
      if (map?.getLayer("picked")) map.setFilter("picked", ["==", ["id"], fid]);
      mount(
        picked,
        h("h2", {}, `Building ${f.id}`),
        h("p", { class: "muted" }, `As of ${f.as_of} · height ${f.height} m · area ${Math.round(f.area_m2)} m²`),
        propsTable("Attributes", f.properties),
        table(
          "Sensors",
          [],
          h(
            "tbody",
            {},
            (f.sensors || []).map((s) => {
              const values = readings.get(s.id) || [];
              const latest = values.length ? values[values.length - 1] : s.latest?.value;
              return h(
                "tr",
                { "data-sensor": s.id },
                h("th", { scope: "row" }, s.name || s.id),
                h("td", { class: "value" }, latest == null ? "—" : `${latest}${s.unit ? ` ${s.unit}` : ""}`),
                h("td", {}, sparkline(values.filter((v) => typeof v === "number"))),
              );
            }),
          ),
          { class: "props" },
        ),
      );
    } catch (p) {
      if (p.status === 404) {
        // The building is not in the twin at the clock's time (built later, or retired).
        showProblem(null, errors);
        mount(picked, h("h2", {}, `Building ${fid}`), h("p", {}, `Not in the twin as of ${clock.time}: ${p.doc.detail || p.message}.`));
      } else {
        showProblem(p, errors);
      }
    }
  }

  // The globe: the twin's tileset, streamed with the API's token.
  let globe = null;
  viewer3d()
    .then(({ twinGlobe }) =>
      twinGlobe(globeEl, { url: `${window.location.origin}${root()}/api/v1/realtime/twin/${id}/tileset`, token: bearer, bbox: twin.bbox, onPick: pick }),
    )
    .then((g) => (globe = g))
    .catch((p) => {
      mount(globeEl, h("p", { class: "muted" }, `The globe could not be shown: ${p.message || p}`));
    });
  window.addEventListener("hashchange", () => globe?.dispose(), { once: true });

  ({ map } = await plainMap(mapEl));
  const [w, s, e, n] = twin.bbox;
  map.fitBounds([[w, s], [e, n]], { padding: 20, animate: false });
  try {
    const q = new URLSearchParams({ bbox: twin.bbox.join(","), limit: "500" });
    if (twin.filter) {
      q.set("filter", twin.filter);
      q.set("filter-lang", "cql2-text");
    }
    const items = (await call("GET", `/api/v1/ogc/v1/features/collections/${encodeURIComponent(twin.collection)}/items?${q}`)).body;
    // MapLibre keeps only numeric feature ids: the id travels as a property.
    for (const f of items.features) f.properties = { ...f.properties, fid: String(f.id) };
    map.addSource("buildings", { type: "geojson", data: items, promoteId: "fid" });
    map.addLayer({ id: "buildings", type: "fill", source: "buildings", paint: { "fill-color": "#5c6bc0", "fill-opacity": 0.5 } });
    map.addLayer({ id: "picked", type: "line", source: "buildings", paint: { "line-color": "#13283f", "line-width": 3 }, filter: ["==", ["id"], ""] });
    map.on("click", "buildings", (ev) => {
      const f = ev.features?.[0];
      if (f) pick(f.properties.fid);
    });
    map.on("mouseenter", "buildings", () => (map.getCanvas().style.cursor = "pointer"));
    map.on("mouseleave", "buildings", () => (map.getCanvas().style.cursor = ""));
  } catch (p) {
    showProblem(p, errors);
  }

  // The live feed: the token in the URL (a browser cannot set headers on a WebSocket).
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${window.location.host}${root()}/api/v1/realtime/twin/${id}?access_token=${encodeURIComponent(await bearer())}`);
  let count = 0;
  ws.addEventListener("message", (m) => {
    let msg;
    try {
      msg = JSON.parse(m.data);
    } catch {
      return;
    }
    if (msg.type === "clock") {
      clock = msg.clock;
      showClock();
    } else if (msg.type === "hello") {
      live.textContent = "Live feed connected.";
      live.dataset.connected = "true";
    } else if (msg.sensorId) {
      count += 1;
      const list = readings.get(msg.sensorId) || [];
      list.push(msg.value);
      if (list.length > 50) list.shift();
      readings.set(msg.sensorId, list);
      live.textContent = `Live feed: ${count} readings, the last ${msg.sensorId} = ${msg.value} at ${msg.ts}.`;
      const cell = picked.querySelector(`tr[data-sensor="${CSS.escape(msg.sensorId)}"] td.value`);
      if (cell) cell.textContent = String(msg.value);
    }
  });
  ws.addEventListener("close", () => {
    live.textContent = "Live feed closed.";
    delete live.dataset.connected;
  });
  window.addEventListener("hashchange", () => ws.close(), { once: true });
}
