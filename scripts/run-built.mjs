#!/usr/bin/env node
/**
 * `npm start` and `npm run cli`: runs a compiled entry of dist/ (`node scripts/run-built.mjs gateway/main.js all`),
 * rebuilding dist/ first when a source changed since the last build (scripts/build.mjs), so an edited checkout never
 * runs stale JavaScript. One process: the check is a walk of file times (milliseconds), and the entry is imported
 * here with process.argv rewritten as if node had been started on it.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ensureBuilt } from "./build.mjs";

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  process.stderr.write("usage: node scripts/run-built.mjs <entry under dist/> [args...]\n");
  process.exit(2);
}
const dist = path.resolve(import.meta.dirname, "..", "dist");
await ensureBuilt(dist);
const file = path.join(dist, entry);
process.argv = [process.argv[0], file, ...args];
await import(pathToFileURL(file).href);
