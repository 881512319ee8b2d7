// A twin's 3D Tiles on a globe: the WGS84 ellipsoid with a graticule (no imagery: nothing is
// fetched from outside), the tileset streamed by 3d-tiles-renderer with the API's token, and a
// picked building's id read from the glTF's EXT_mesh_features and EXT_structural_metadata, the
// building then drawn in the accent colour.

import * as THREE from "three";
import { GlobeControls, TilesRenderer, WGS84_ELLIPSOID } from "3d-tiles-renderer";
import { GLTFExtensionsPlugin } from "3d-tiles-renderer/plugins";

const DEG = Math.PI / 180;

/** Meridians and parallels every `step` degrees on the ellipsoid (ECEF, metres). */
function graticule(ellipsoid, step) {
  const points = [];
  const at = (lat, lon) => ellipsoid.getCartographicToPosition(lat * DEG, lon * DEG, 0, new THREE.Vector3());
  for (let lon = -180; lon < 180; lon += step) {
    for (let lat = -90; lat < 90; lat += 2) points.push(at(lat, lon), at(lat + 2, lon));
  }
  for (let lat = -90 + step; lat < 90; lat += step) {
    for (let lon = -180; lon < 180; lon += 2) points.push(at(lat, lon), at(lat, lon + 2));
  }
  return new THREE.LineSegments(new THREE.BufferGeometry().setFromPoints(points), new THREE.LineBasicMaterial({ color: 0xb8c2cc }));
}

/** The building id at a ray hit, from the mesh's feature ids and its property table. */
function featureAt(hit) {
  const { meshFeatures, structuralMetadata } = hit.object.userData;
  if (!meshFeatures || hit.face == null) return null;
  const triangle = new THREE.Triangle();
  const barycoord = new THREE.Vector3();
  const position = hit.object.geometry.attributes.position;
  triangle.setFromAttributeAndIndices(position, hit.face.a, hit.face.b, hit.face.c);
  triangle.a.applyMatrix4(hit.object.matrixWorld);
  triangle.b.applyMatrix4(hit.object.matrixWorld);
  triangle.c.applyMatrix4(hit.object.matrixWorld);
  triangle.getBarycoord(hit.point, barycoord);
  const ids = meshFeatures.getFeatures(hit.faceIndex, barycoord);
  const info = meshFeatures.getFeatureInfo();
  for (let i = 0; i < ids.length; i++) {
    if (ids[i] == null) continue;
    const table = info[i]?.propertyTable;
    if (structuralMetadata && table != null) {
      const [row] = structuralMetadata.getPropertyTableData([table], [ids[i]]);
      if (row && row.id != null) return { id: String(row.id), properties: row };
    }
  }
  return null;
}

/**
 * Colours the picked building in every loaded mesh: vertex colours from the feature-id attribute
 * (`_feature_id_N` of EXT_mesh_features), the picked id's feature in the accent colour.
 */
function highlight(tiles, pickedId) {
  const on = new THREE.Color(0xd9480f);
  const off = new THREE.Color(0xffffff);
  tiles.forEachLoadedModel((scene) =>
    scene.traverse((object) => {
      const { meshFeatures, structuralMetadata } = object.userData;
      if (!object.isMesh || !meshFeatures || !structuralMetadata) return;
      const info = meshFeatures.getFeatureInfo()[0];
      const attr = info && "attribute" in info ? object.geometry.getAttribute(`_feature_id_${info.attribute}`) : null;
      if (!attr || info.propertyTable == null) return;
      const rows = new Map();
      const colours = new Float32Array(attr.count * 3);
      for (let v = 0; v < attr.count; v++) {
        const fid = attr.getX(v);
        if (!rows.has(fid)) rows.set(fid, structuralMetadata.getPropertyTableData([info.propertyTable], [fid])[0]);
        const colour = pickedId != null && String(rows.get(fid)?.id) === pickedId ? on : off;
        colours[3 * v] = colour.r;
        colours[3 * v + 1] = colour.g;
        colours[3 * v + 2] = colour.b;
      }
      object.geometry.setAttribute("color", new THREE.BufferAttribute(colours, 3));
      object.material.vertexColors = true;
      object.material.needsUpdate = true;
    }),
  );
}

/**
 * Shows the tileset at `url` (the API's `/tileset`) in `container`, looking at `bbox`
 * (west, south, east, north). `token()` answers a current access token; `onPick(id)` is called
 * with a picked building's id. Answers `{canvas, dispose}`; the canvas has `project(lon, lat, h)`,
 * the pixel (from the canvas's top left) at which a place is drawn (for tests and tools).
 */
export async function twinGlobe(container, { url, token, bbox, onPick }) {
  const canvas = document.createElement("canvas");
  canvas.className = "viewer3d";
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", "The twin's buildings on a globe; drag to turn, scroll to zoom, click a building to pick it");
  canvas.dataset.testid = "globe";
  const status = document.createElement("p");
  status.className = "muted";
  status.setAttribute("aria-live", "polite");
  status.dataset.testid = "globe-status";
  status.textContent = "Loading the tileset…";
  container.replaceChildren(canvas, status);

  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true, logarithmicDepthBuffer: true });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x13283f);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x667788, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 1.2);
  scene.add(sun);
  const camera = new THREE.PerspectiveCamera(50, 1, 1, 1e8);

  const tiles = new TilesRenderer(url);
  tiles.fetchOptions = { headers: { Authorization: `Bearer ${await token()}` } };
  tiles.registerPlugin(new GLTFExtensionsPlugin({ metadata: true, rtc: true }));
  tiles.setCamera(camera);
  // ECEF is z-up; three.js is y-up.
  tiles.group.rotation.x = -Math.PI / 2;
  scene.add(tiles.group);

  const ellipsoid = WGS84_ELLIPSOID;
  const earth = new THREE.Mesh(
    new THREE.SphereGeometry(1, 128, 64).rotateX(Math.PI / 2),
    new THREE.MeshLambertMaterial({ color: 0xdfe5ea }),
  );
  // A hair below the surface, so that buildings at height 0 are not hidden in it.
  earth.scale.set(ellipsoid.radius.x - 2, ellipsoid.radius.y - 2, ellipsoid.radius.z - 2);
  tiles.group.add(earth);
  tiles.group.add(graticule(ellipsoid, 10));

  const controls = new GlobeControls(scene, camera, canvas);
  controls.setEllipsoid(tiles.ellipsoid, tiles.group);
  controls.enableDamping = true;

  // The view: above the box's centre, looking down at 50° from a height that shows the box.
  const [w, s, e, n] = bbox;
  const lat = ((s + n) / 2) * DEG;
  const lon = ((w + e) / 2) * DEG;
  const spanMetres = Math.max((e - w) * 111_320 * Math.cos(lat), (n - s) * 110_540, 200);
  tiles.group.updateMatrixWorld(true);
  const frame = new THREE.Matrix4();
  ellipsoid.getObjectFrame(lat, lon, spanMetres * 1.4, 0, -50 * DEG, 0, frame, 1 /* CAMERA_FRAME */);
  frame.premultiply(tiles.group.matrixWorld);
  frame.decompose(camera.position, camera.quaternion, camera.scale);
  // Step back along the view so that the box's centre is in the middle of the picture.
  const centre = ellipsoid.getCartographicToPosition(lat, lon, 0, new THREE.Vector3()).applyMatrix4(tiles.group.matrixWorld);
  const back = new THREE.Vector3(0, 0, 1).applyQuaternion(camera.quaternion);
  camera.position.copy(centre).addScaledVector(back, spanMetres * 1.8);
  camera.updateMatrixWorld();

  let disposed = false;
  let contents = 0;
  let picked = null;
  tiles.addEventListener("load-model", () => {
    contents += 1;
    // A tile loaded after the pick shows it too.
    if (picked != null) highlight(tiles, picked);
    canvas.dataset.contents = String(contents);
    status.textContent = `${contents} tile contents loaded. Click a building to pick it.`;
  });
  tiles.addEventListener("load-error", (ev) => {
    status.textContent = `A tile could not be loaded: ${ev.error?.message || ev.url}`;
    status.dataset.error = "true";
  });
  tiles.addEventListener("load-tile-set", () => (canvas.dataset.tileset = "loaded"));
  tiles.addEventListener("load-tileset", () => (canvas.dataset.tileset = "loaded"));

  function resize() {
    const width = container.clientWidth || 800;
    const height = Math.round(Math.min(600, Math.max(360, width * 0.6)));
    renderer.setSize(width, height, false);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    camera.aspect = width / height;
    camera.updateProjectionMatrix();
    tiles.setResolutionFromRenderer(camera, renderer);
  }
  const observer = new ResizeObserver(resize);
  observer.observe(container);
  resize();

  // The token is short-lived: the tiles' requests carry a fresh one.
  const refresh = setInterval(async () => {
    tiles.fetchOptions = { headers: { Authorization: `Bearer ${await token()}` } };
  }, 30_000);

  canvas.project = (lonDeg, latDeg, height = 0) => {
    const p = ellipsoid.getCartographicToPosition(latDeg * DEG, lonDeg * DEG, height, new THREE.Vector3());
    camera.updateMatrixWorld();
    p.applyMatrix4(tiles.group.matrixWorld).project(camera);
    return { x: ((p.x + 1) / 2) * canvas.clientWidth, y: ((1 - p.y) / 2) * canvas.clientHeight, visible: p.z < 1 };
  };

  // A click (not a drag) picks, at the place pressed: the controls focus the canvas on a press,
  // which scrolls a canvas partly out of view, so the release may come at another place of it.
  let down = null;
  // Read on the way down to the canvas, before the controls' own handler focuses (and scrolls) it.
  container.addEventListener(
    "pointerdown",
    (ev) => {
      if (ev.target !== canvas) return;
      const rect = canvas.getBoundingClientRect();
      down = { client: [ev.clientX, ev.clientY], at: [(ev.clientX - rect.left) / rect.width, (ev.clientY - rect.top) / rect.height] };
    },
    { capture: true },
  );
  canvas.addEventListener("pointerup", (ev) => {
    if (!down || Math.hypot(ev.clientX - down.client[0], ev.clientY - down.client[1]) > 4) return;
    const ndc = new THREE.Vector2(down.at[0] * 2 - 1, 1 - down.at[1] * 2);
    const raycaster = new THREE.Raycaster();
    raycaster.setFromCamera(ndc, camera);
    // What the click met, for a person's or a test's inspection: the ground, or a mesh and what
    // its feature ids and property table said.
    let met = "nothing";
    for (const hit of raycaster.intersectObject(tiles.group, true)) {
      if (!hit.object.isMesh) continue;
      const feature = featureAt(hit);
      if (feature) {
        canvas.dataset.picked = feature.id;
        picked = feature.id;
        highlight(tiles, picked);
        canvas.dataset.met = `building ${feature.id}`;
        onPick(feature.id);
        return;
      }
      met = hit.object.userData.meshFeatures ? "a mesh whose feature has no id" : "a mesh without feature ids";
    }
    canvas.dataset.met = met;
  });

  function animate() {
    if (disposed) return;
    controls.update();
    camera.updateMatrixWorld();
    sun.position.copy(camera.position);
    tiles.update();
    renderer.render(scene, camera);
    requestAnimationFrame(animate);
  }
  requestAnimationFrame(animate);

  return {
    canvas,
    dispose() {
      disposed = true;
      clearInterval(refresh);
      observer.disconnect();
      controls.dispose();
      tiles.dispose();
      renderer.dispose();
    },
  };
}
