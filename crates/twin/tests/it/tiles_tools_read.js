// Reads a tileset the way the 3d-tiles-tools library does: traverses tileset.json from the
// root (TilesetTraverser, external tilesets included), resolves every content, identifies its
// type (ContentDataTypeRegistry) and reads each GLB with the library's glTF-Transform IO, which
// registers its EXT_mesh_features and EXT_structural_metadata implementations; prints one JSON
// line: {tiles, contents: [{uri, type, bytes, featureIdSets, propertyTables: [{class, count,
// properties}]}]}.
// Usage: node tiles_tools_read.js TILES_TOOLS_MODULE_DIR TILESET_DIR
"use strict";
const path = require("path");
// The package names its entry point in "exports" only, which require() of a folder ignores.
const pkg = require(path.join(process.argv[2], "package.json"));
const tools = require(path.join(process.argv[2], typeof pkg.exports === "string" ? pkg.exports : pkg.main));
const dir = path.resolve(process.argv[3]);

(async () => {
  const resolver = tools.ResourceResolvers.createFileResourceResolver(dir);
  const json = await resolver.resolveData("tileset.json");
  if (!json) throw new Error(`no tileset.json in ${dir}`);
  const tileset = JSON.parse(json.toString("utf8"));
  const traverser = new tools.TilesetTraverser(dir, resolver, { depthFirst: true, traverseExternalTilesets: true });
  const io = await tools.GltfTransform.getIO();
  const contents = [];
  let tiles = 0;
  const found = [];
  await traverser.traverse(tileset, async (traversed) => {
    tiles += 1;
    for (const content of traversed.getFinalContents()) {
      found.push({ uri: content.uri, resolver: traversed.getResourceResolver() });
    }
    return true;
  });
  for (const { uri, resolver: r } of found) {
    const data = await r.resolveData(uri);
    if (!data) throw new Error(`content ${uri} could not be resolved`);
    const type = await tools.ContentDataTypeRegistry.findType(uri, data);
    const entry = { uri, type, bytes: data.length, featureIdSets: 0, propertyTables: [] };
    if (type === tools.ContentDataTypes.CONTENT_TYPE_GLB) {
      const doc = await io.readBinary(data);
      const root = doc.getRoot();
      for (const mesh of root.listMeshes()) {
        for (const prim of mesh.listPrimitives()) {
          const features = prim.getExtension("EXT_mesh_features");
          if (features) entry.featureIdSets += features.listFeatureIDs().length;
        }
      }
      const metadata = root.getExtension("EXT_structural_metadata");
      if (metadata) {
        for (const table of metadata.listPropertyTables()) {
          entry.propertyTables.push({ class: table.getClass(), count: table.getCount(), properties: table.listPropertyKeys() });
        }
      }
    }
    contents.push(entry);
  }
  console.log(JSON.stringify({ tiles, contents }));
})().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
