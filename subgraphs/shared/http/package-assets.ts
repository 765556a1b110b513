/**
 * Static files served from installed npm packages (the API explorers' bundles): nothing is fetched from a CDN, so the
 * pages work on a machine without internet. Files are read once, on first use, and kept.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyInstance, onRequestHookHandler } from "fastify";

const require = createRequire(import.meta.url);

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
};

/** Serves `files` (name under `prefix` -> [package, file in the package]) on `app`; `onRequest`: e.g. a per-IP limit. */
export function servePackageAssets(
  app: FastifyInstance,
  prefix: string,
  files: Record<string, readonly [string, string]>,
  onRequest?: onRequestHookHandler,
): void {
  for (const [name, [pkg, file]] of Object.entries(files)) {
    let body: Buffer | undefined;
    app.get(`${prefix}/${name}`, { onRequest }, (_request, reply) => {
      body ??= readFileSync(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file));
      return reply
        .code(200)
        .header("content-type", TYPES[path.extname(file)] ?? "application/octet-stream")
        .header("cache-control", "public, max-age=3600")
        .send(body);
    });
  }
}

/** An HTML page (no external references; assets under the listener's own paths). */
export function serveHtml(app: FastifyInstance, url: string, html: string, onRequest?: onRequestHookHandler): void {
  const body = Buffer.from(html, "utf8");
  app.get(url, { onRequest }, (_request, reply) => reply.code(200).header("content-type", "text/html; charset=utf-8").header("cache-control", "no-cache").send(body));
}
