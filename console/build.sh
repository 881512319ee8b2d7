#!/usr/bin/env bash
# Builds the console into console/dist/ (committed, embedded in the binary by
# crates/api/src/routes/console.rs): the pinned esbuild from package-lock.json bundles and minifies
# src/ into console.js and console.css. The same sources and lockfile give the same bytes, which
# .ci/run checks (it runs this and fails when dist/ differs from what is committed).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
rm -rf dist && mkdir -p dist
node_modules/.bin/esbuild src/main.js --bundle --format=esm --minify --target=es2020 \
  --external:./viewer3d.js --legal-comments=none --outfile=dist/console.js --log-level=warning
# The 3D part (three.js, 3d-tiles-renderer, copc.js, laz-perf), imported by the pages only when a
# 3D view opens; laz-perf's WebAssembly beside it.
node_modules/.bin/esbuild src/viewer3d/index.js --bundle --format=esm --minify --target=es2020 \
  --legal-comments=none --outfile=dist/viewer3d.js --log-level=warning
cp node_modules/laz-perf/lib/web/laz-perf.wasm dist/laz-perf.wasm
node_modules/.bin/esbuild src/style.css --minify --outfile=dist/console.css --log-level=warning
cp src/index.html dist/index.html
# MapLibre GL JS, as published (its CSP build: the worker is a file of this server, not a blob),
# loaded only by the map pages.
maplibre=node_modules/maplibre-gl/dist
cp "$maplibre/maplibre-gl-csp.js" dist/maplibre-gl.js
cp "$maplibre/maplibre-gl-csp-worker.js" dist/maplibre-gl-worker.js
cp "$maplibre/maplibre-gl.css" dist/maplibre-gl.css
{
  echo "Meridian console: console.js, console.css and index.html are Meridian's own, under the"
  echo "Apache License, Version 2.0 (the project's licence); esbuild (MIT) builds them and is not shipped."
  echo
  echo "maplibre-gl.js, maplibre-gl-worker.js and maplibre-gl.css are MapLibre GL JS"
  echo "$(node -p "require('./node_modules/maplibre-gl/package.json').version"), under this licence:"
  echo
  cat "$maplibre/LICENSE.txt"
  for pkg in three 3d-tiles-renderer copc laz-perf; do
    echo
    echo "viewer3d.js$( [ "$pkg" = laz-perf ] && echo " and laz-perf.wasm") include $pkg $(node -p "require('./node_modules/$pkg/package.json').version") ($(node -p "require('./node_modules/$pkg/package.json').license")), under this licence:"
    echo
    lic=$(ls node_modules/$pkg | grep -i -m1 -E '^licen[cs]e' || true)
    if [ -n "$lic" ]; then
      cat "node_modules/$pkg/$lic"
    else
      # laz-perf's package names Apache-2.0 and ships no text of it: the text is the one above.
      echo "(the package ships no licence file; its package.json names Apache-2.0, the Apache License 2.0 whose text is given above for 3d-tiles-renderer)"
    fi
  done
} > dist/LICENSES.txt
for f in dist/*; do
  printf '%s %s bytes, %s gzipped\n' "$f" "$(wc -c < "$f")" "$(gzip -9n < "$f" | wc -c)"
done
