// The repository's JSON Schemas under Ajv's strict mode (Ajv2020({strict: true}) with ajv-formats):
// the strictest widely used validator, the one many clients and gateways run.
//
//   node tools/ajv/check.mjs [DOCUMENTS.jsonl ...]
//
// Compiles every spec/schemas/*.schema.json and spec/conformance/case.schema.json (strict mode
// refuses, among others, a keyword without the type it applies to, and a `required` naming an
// undeclared property); validates every conformance case file against the case schema; then every
// document of each DOCUMENTS.jsonl file (one JSON document a line) against the schema named by its
// `format` field. Prints what it checked; exits 1 after listing every schema that does not compile
// (then it validates nothing) or every document that does not validate.
//
// Install its packages first: `npm ci --prefix tools/ajv` (package-lock.json pins them).

import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const read = (path) => JSON.parse(readFileSync(path, "utf8"));

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);

const validators = new Map();
const failures = [];
function compile(name, path) {
  try {
    validators.set(name, ajv.compile(read(path)));
  } catch (error) {
    failures.push(`${path} does not compile under Ajv strict: ${error.message}`);
  }
}

const schemas = join(root, "spec", "schemas");
for (const file of readdirSync(schemas).filter((f) => f.endsWith(".schema.json")).sort()) {
  compile(file.slice(0, -".schema.json".length), join(schemas, file));
}
compile("conformance case file", join(root, "spec", "conformance", "case.schema.json"));
if (failures.length !== 0) {
  for (const line of failures) console.error(`FAILED: ${line}`);
  process.exit(1);
}
console.log(`${validators.size} schemas compiled under Ajv strict: ${[...validators.keys()].join(", ")}`);

const bad = [];
const counts = new Map();
function check(name, doc, where) {
  const validate = validators.get(name);
  if (validate === undefined) {
    bad.push(`${where}: no schema for a document of format ${JSON.stringify(name)}`);
  } else if (!validate(doc)) {
    bad.push(`${where}: ${ajv.errorsText(validate.errors, { separator: "; " })}`);
  } else {
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
}

const cases = join(root, "spec", "conformance", "cases");
for (const file of readdirSync(cases).filter((f) => f.endsWith(".json")).sort()) {
  check("conformance case file", read(join(cases, file)), join("spec", "conformance", "cases", file));
}
for (const path of process.argv.slice(2)) {
  readFileSync(path, "utf8").split("\n").forEach((line, index) => {
    if (line.trim() !== "") {
      const doc = JSON.parse(line);
      check(doc.format, doc, `${path}:${index + 1}`);
    }
  });
}

const total = [...counts.values()].reduce((a, b) => a + b, 0);
console.log(`${total} documents valid (${[...counts].map(([k, n]) => `${k}: ${n}`).join(", ")})`);
if (bad.length !== 0) {
  console.error(`FAILED: ${bad.length} documents do not validate:`);
  for (const line of bad.slice(0, 50)) console.error(`  ${line}`);
  process.exit(1);
}
