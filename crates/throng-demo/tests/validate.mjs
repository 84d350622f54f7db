// Validates one glTF/GLB file with the Khronos glTF-Validator npm package and prints its JSON
// report on stdout. Usage: node validate.mjs <file.glb> <path of the gltf-validator package>
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const [file, pkg] = process.argv.slice(2);
if (!file || !pkg) {
  console.error('usage: node validate.mjs <file.glb> <gltf-validator package dir>');
  process.exit(2);
}
const require = createRequire(import.meta.url);
const validator = require(path.resolve(pkg));
const bytes = new Uint8Array(await readFile(file));
const report = await validator.validateBytes(bytes, {
  uri: path.basename(file),
  maxIssues: 0, // no limit
  // A GLB with everything embedded needs no external resources.
  externalResourceFunction: (uri) => Promise.reject(new Error(`external resource ${uri}`)),
});
console.log(JSON.stringify(report, null, 2));
