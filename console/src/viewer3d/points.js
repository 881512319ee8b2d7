// A classified point cloud in 3D, streamed from its COPC file: the header and hierarchy first,
// then only the octree nodes the view needs (by their size on screen, nearest first, within a
// point budget), each read with one HTTP range request and decoded by laz-perf. Points are
// coloured by ASPRS class.

import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { Copc } from "copc";
import { createLazPerf } from "laz-perf";

// Class colours, as on the class chart (unlisted classes are grey).
const PALETTE = {
  1: 0xb0b7bf, 2: 0xa0703c, 3: 0x9ccc65, 4: 0x43a047, 5: 0x1b5e20, 6: 0xd9480f, 7: 0x777777,
  9: 0x1e88e5, 17: 0x8e24aa, 18: 0x444444,
};
const GREY = 0x8a96a3;
const POINT_BUDGET = 1_500_000;
// A node is opened when its cube spans more than this many pixels.
const REFINE_PX = 220;
const PARALLEL = 4;

let lazPerf = null;

/** laz-perf's WebAssembly, from this server beside this file. */
function decoder() {
  if (!lazPerf) lazPerf = createLazPerf({ locateFile: (file) => new URL(file, import.meta.url).href });
  return lazPerf;
}

/**
 * A range reader of `url` for copc.js. The first request of a file converted on demand answers
 * 202 with `Retry-After`: it is asked again until the file is there.
 */
function rangeGetter(url, token, onWait) {
  return async (begin, end) => {
    for (let attempt = 0; attempt < 120; attempt++) {
      const response = await fetch(url, { headers: { Authorization: `Bearer ${await token()}`, Range: `bytes=${begin}-${end - 1}` } });
      if (response.status === 202) {
        onWait();
        const wait = Number(response.headers.get("retry-after")) || 1;
        await new Promise((r) => setTimeout(r, Math.min(wait, 5) * 1000));
        continue;
      }
      if (response.status !== 206 && response.status !== 200) {
        let detail = `HTTP ${response.status}`;
        try {
          detail = (await response.json()).detail || detail;
        } catch {
          // keep the status
        }
        throw new Error(detail);
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      // A server that ignores the range sends the whole file: cut the part asked for.
      return response.status === 200 ? bytes.subarray(begin, end) : bytes;
    }
    throw new Error("the COPC file was not ready in time");
  };
}

/** The cube of node `key` ("d-x-y-z") inside the root cube. */
function nodeCube(cube, key) {
  const [d, x, y, z] = key.split("-").map(Number);
  const size = (cube[3] - cube[0]) / 2 ** d;
  const min = new THREE.Vector3(cube[0] + x * size, cube[1] + y * size, cube[2] + z * size);
  return { depth: d, size, min, center: min.clone().addScalar(size / 2) };
}

function children(key) {
  const [d, x, y, z] = key.split("-").map(Number);
  const out = [];
  for (let i = 0; i < 8; i++) out.push(`${d + 1}-${2 * x + (i & 1)}-${2 * y + ((i >> 1) & 1)}-${2 * z + ((i >> 2) & 1)}`);
  return out;
}

/**
 * Shows the COPC file at `url` in `container`. `token()` answers a current access token.
 * Answers `{status, dispose}`; `status` is the element the viewer writes its progress to
 * (`data-nodes`, `data-points`, `data-total` for tests).
 */
export async function cloudView(container, { url, token }) {
  const status = document.createElement("p");
  status.className = "muted";
  status.setAttribute("aria-live", "polite");
  status.dataset.testid = "cloud-3d-status";
  status.textContent = "Reading the COPC header…";
  const canvas = document.createElement("canvas");
  canvas.className = "viewer3d";
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", "The point cloud in 3D, coloured by class; drag to turn, scroll to zoom");
  canvas.dataset.testid = "cloud-3d";
  container.replaceChildren(canvas, status);

  const getter = rangeGetter(url, token, () => (status.textContent = "Converting to COPC on the server…"));
  const copc = await Copc.create(getter);
  const cube = copc.info.cube;
  const origin = new THREE.Vector3((cube[0] + cube[3]) / 2, (cube[1] + cube[4]) / 2, (cube[2] + cube[5]) / 2);
  const root = await Copc.loadHierarchyPage(getter, copc.info.rootHierarchyPage);
  const nodes = { ...root.nodes };
  const pages = { ...root.pages };
  const total = copc.header.pointCount;

  const renderer = new THREE.WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: true });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xeef1f4);
  const camera = new THREE.PerspectiveCamera(55, 1, 0.1, 1e7);
  camera.up.set(0, 0, 1);
  const extent = copc.header.max.map((v, i) => v - copc.header.min[i]);
  const span = Math.max(extent[0], extent[1], 1);
  const mid = new THREE.Vector3(
    (copc.header.min[0] + copc.header.max[0]) / 2 - origin.x,
    (copc.header.min[1] + copc.header.max[1]) / 2 - origin.y,
    (copc.header.min[2] + copc.header.max[2]) / 2 - origin.z,
  );
  camera.position.set(mid.x - span * 0.6, mid.y - span * 0.9, mid.z + span * 0.7);
  camera.near = span / 1000;
  camera.far = span * 20;
  const controls = new OrbitControls(camera, canvas);
  controls.target.copy(mid);
  controls.update();
  const material = new THREE.PointsMaterial({ size: 2, sizeAttenuation: false, vertexColors: true });

  const loaded = new Map(); // key -> THREE.Points
  const loading = new Set();
  let disposed = false;
  let dirty = true;

  function resize() {
    const w = container.clientWidth || 800;
    const hgt = Math.round(Math.min(560, Math.max(320, w * 0.55)));
    renderer.setSize(w, hgt, false);
    canvas.style.width = `${w}px`;
    canvas.style.height = `${hgt}px`;
    camera.aspect = w / hgt;
    camera.updateProjectionMatrix();
    dirty = true;
  }

  /** The nodes the view wants, nearest and coarsest first, within the point budget. */
  function wanted() {
    const px = renderer.domElement.height;
    const fov = (camera.fov * Math.PI) / 180;
    const out = [];
    let points = 0;
    const queue = ["0-0-0-0"];
    while (queue.length) {
      const key = queue.shift();
      const node = nodes[key];
      if (!node) continue;
      if (points + node.pointCount > POINT_BUDGET) continue;
      points += node.pointCount;
      if (node.pointCount > 0) out.push(key);
      const c = nodeCube(cube, key);
      const at = c.center.clone().sub(origin);
      const distance = Math.max(camera.position.distanceTo(at) - c.size * 0.87, 1e-6);
      const onScreen = (c.size / (2 * distance * Math.tan(fov / 2))) * px;
      if (onScreen > REFINE_PX) {
        const next = children(key).filter((k) => nodes[k] || pages[k]);
        next.sort((a, b) => nodeCube(cube, a).center.sub(origin).distanceTo(camera.position) - nodeCube(cube, b).center.sub(origin).distanceTo(camera.position));
        queue.push(...next);
      }
    }
    return out;
  }

  async function load(key) {
    loading.add(key);
    try {
      const view = await Copc.loadPointDataView(getter, copc, nodes[key], { lazPerf: await decoder(), include: ["X", "Y", "Z", "Classification"] });
      if (disposed) return;
      const n = view.pointCount;
      const x = view.getter("X");
      const y = view.getter("Y");
      const z = view.getter("Z");
      const cls = view.getter("Classification");
      const positions = new Float32Array(n * 3);
      const colours = new Float32Array(n * 3);
      const colour = new THREE.Color();
      for (let i = 0; i < n; i++) {
        positions[3 * i] = x(i) - origin.x;
        positions[3 * i + 1] = y(i) - origin.y;
        positions[3 * i + 2] = z(i) - origin.z;
        colour.setHex(PALETTE[cls(i)] ?? GREY);
        colours[3 * i] = colour.r;
        colours[3 * i + 1] = colour.g;
        colours[3 * i + 2] = colour.b;
      }
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
      geometry.setAttribute("color", new THREE.BufferAttribute(colours, 3));
      const points = new THREE.Points(geometry, material);
      points.userData.count = n;
      loaded.set(key, points);
      scene.add(points);
      dirty = true;
    } catch (e) {
      status.textContent = `A node could not be read: ${e.message}`;
      status.dataset.error = e.message;
    } finally {
      loading.delete(key);
    }
  }

  /** Loads pages of the hierarchy the traversal reached, then the wanted nodes; drops the rest. */
  async function refresh() {
    for (const key of wanted()) {
      if (pages[key] && !nodes[key]) {
        const sub = await Copc.loadHierarchyPage(getter, pages[key]);
        Object.assign(nodes, sub.nodes);
        Object.assign(pages, sub.pages);
        delete pages[key];
      }
    }
    const want = wanted();
    const keep = new Set(want);
    for (const [key, points] of loaded) {
      if (!keep.has(key)) {
        scene.remove(points);
        points.geometry.dispose();
        loaded.delete(key);
        dirty = true;
      }
    }
    const missing = want.filter((k) => !loaded.has(k) && !loading.has(k));
    while (missing.length && loading.size < PARALLEL) load(missing.shift()).then(() => !disposed && schedule());
    const shown = [...loaded.values()].reduce((n, p) => n + p.userData.count, 0);
    status.dataset.nodes = String(loaded.size);
    status.dataset.points = String(shown);
    status.dataset.total = String(total);
    if (!status.dataset.error) {
      status.textContent = `${shown.toLocaleString()} of ${total.toLocaleString()} points shown, from ${loaded.size} of ${Object.keys(nodes).length} nodes${loading.size ? " (loading…)" : ""}.`;
    }
  }

  let timer = null;
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(() => refresh().catch((e) => (status.textContent = e.message)), 120);
  }
  controls.addEventListener("change", () => {
    dirty = true;
    schedule();
  });
  const observer = new ResizeObserver(() => {
    resize();
    schedule();
  });
  observer.observe(container);
  resize();

  function frame() {
    if (disposed) return;
    if (dirty) {
      renderer.render(scene, camera);
      dirty = false;
    }
    requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);
  await refresh();

  return {
    status,
    dispose() {
      disposed = true;
      observer.disconnect();
      controls.dispose();
      for (const p of loaded.values()) p.geometry.dispose();
      material.dispose();
      renderer.dispose();
    },
  };
}
