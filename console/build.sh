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
  --legal-comments=none --outfile=dist/console.js --log-level=warning
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
} > dist/LICENSES.txt
for f in dist/*; do
  printf '%s %s bytes, %s gzipped\n' "$f" "$(wc -c < "$f")" "$(gzip -9n < "$f" | wc -c)"
done
