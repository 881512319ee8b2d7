// Validates GLB files with the Khronos glTF Validator and prints one JSON summary per file.
// Usage: node validate_glb.js VALIDATOR_MODULE_DIR FILE...
"use strict";
const fs = require("fs");
const validator = require(process.argv[2]);

(async () => {
  for (const file of process.argv.slice(3)) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), { maxIssues: 0 });
    const issues = report.issues;
    console.log(JSON.stringify({
      file,
      validatorVersion: report.validatorVersion,
      errors: issues.numErrors,
      warnings: issues.numWarnings,
      infos: issues.numInfos,
      hints: issues.numHints,
      messages: issues.messages.map((m) => `${m.severity} ${m.code} ${m.pointer || ""} ${m.message}`),
    }));
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
