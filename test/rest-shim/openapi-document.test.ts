/**
 * The committed OpenAPI documents (docs/openapi/<listener>.json): valid OpenAPI 3.1 by a maintained validator,
 * complete against the route and error tables they are generated from (test/docs/consumer-docs.test.ts proves they
 * are current and that the platform answers as they say), and compact: what operations share is referenced from
 * `components`, never repeated inline.
 */
import { callerRuleOf } from "../../rest-shim/routes/markets/http.js";
import { readFileSync, statSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../rest-shim/routes.js";
import { OPENAPI_DIR, OPENAPI_LISTENERS } from "../../rest-shim/openapi/files.js";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { resolveRef } from "../support/openapi.js";

const documentOf = (listener: string) => JSON.parse(readFileSync(`${OPENAPI_DIR}/${listener}.json`, "utf8"));
const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, "{$1}");
const defaults = loadConfig({});

/** The three documents together, in bytes: with each family's error table repeated per operation they were 3.2 MB. */
const MAX_TOTAL_BYTES = 1_500_000;

/** Sections of `components` whose entries an operation must reference rather than repeat. */
const SHARED_SECTIONS = ["schemas", "responses", "parameters", "headers"] as const;

/** Every object under `value` that is not a `$ref`, with its JSON-pointer-like location. */
function* inlineObjects(value: unknown, at: string): Generator<[string, Record<string, unknown>]> {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* inlineObjects(item, `${at}/${index}`);
    return;
  }
  if (typeof (value as { $ref?: unknown }).$ref === "string") return;
  yield [at, value as Record<string, unknown>];
  for (const [key, member] of Object.entries(value)) yield* inlineObjects(member, `${at}/${key}`);
}

describe("the committed documents together", () => {
  it(`weigh under ${MAX_TOTAL_BYTES} bytes`, () => {
    const total = OPENAPI_LISTENERS.reduce((sum, listener) => sum + statSync(`${OPENAPI_DIR}/${listener}.json`).size, 0);
    expect(total).toBeLessThan(MAX_TOTAL_BYTES);
  });
});

describe.each(OPENAPI_LISTENERS)("docs/openapi/%s.json", (listener) => {
  const document = documentOf(listener);
  const routes = ROUTES.filter((route) => route.area.listener === listener);

  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe("3.1.0");
  });

  it("references its error responses from components and repeats no shared component inline", () => {
    const sections = SHARED_SECTIONS.map((section) => [section, Object.entries<unknown>(document.components[section] ?? {})] as const);
    // The error envelopes, error responses and common parameters exist as components (what the check below protects).
    for (const section of ["schemas", "responses", "parameters"]) expect(Object.keys(document.components[section] ?? {}), section).not.toEqual([]);
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          if (Number(status) >= 400) expect(response.$ref, `${method} ${path} ${status}`).toMatch(/^#\/components\/responses\//);
        }
        for (const [at, node] of inlineObjects(operation, `${method} ${path}`)) {
          for (const [section, entries] of sections) {
            const equal = entries.find(([, component]) => isDeepStrictEqual(node, component));
            expect(equal, `${at} repeats components/${section}/${equal?.[0]} inline`).toBeUndefined();
          }
        }
      }
    }
  });

  it("reads well in client generators: media type keys without parameters, free-form objects open", () => {
    const keys: string[] = [];
    const closedEmpty: string[] = [];
    const walk = (value: unknown, at: string) => {
      if (value === null || typeof value !== "object") return;
      if (Array.isArray(value)) return value.forEach((item, index) => walk(item, `${at}/${index}`));
      const node = value as Record<string, unknown>;
      if (node.content && typeof node.content === "object") keys.push(...Object.keys(node.content));
      // An object schema that names no members must admit any (else generators type it as an object holding nothing).
      if (node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"))) {
        if (!node.properties && !node.$ref && node.additionalProperties !== true) closedEmpty.push(at);
      }
      for (const [key, member] of Object.entries(node)) walk(member, `${at}/${key}`);
    };
    walk(document.paths, "paths");
    walk(document.components, "components");
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key) => key.includes(";"))).toEqual([]);
    expect(closedEmpty).toEqual([]);
  });

  it("documents exactly the routes the listener serves", () => {
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(routes.map((route) => `${route.method} ${openApiPath(route.path)}`).sort());
  });

  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))("%s: operation, limits, body rule and every error code", (_name, route) => {
    const operation = document.paths[openApiPath(route.path)][route.method.toLowerCase()];
    expect(operation["x-graphql-operation"]).toBe(route.operation.name);
    expect(operation["x-rate-limits"].map((limit: { name: string }) => limit.name)).toEqual(route.rateLimits);
    for (const limit of operation["x-rate-limits"]) expect(limit.limit).toBe(defaults.rateLimits[limit.name as keyof typeof defaults.rateLimits]);
    const pathParameters = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
    const parameters = operation.parameters.map((parameter: unknown) => resolveRef(document, parameter));
    expect(parameters.filter((p: { in: string }) => p.in === "path").map((p: { name: string }) => p.name)).toEqual(pathParameters);
    if (route.rules.jsonBody) {
      expect(operation.requestBody.content["application/json"].schema["x-max-bytes"]).toBe(route.rules.jsonBody.limit);
    } else if (route.rules.octetBody) {
      expect(operation.requestBody.content["application/octet-stream"].schema["x-max-bytes"]).toBe(route.rules.octetBody.limit);
    } else {
      expect(operation.requestBody).toBeUndefined();
    }
    const caller = callerRuleOf(route)?.kind;
    const security = route.rules.onboardingToken
      ? [{ onboardingToken: [] }]
      : caller === "machine"
        ? [{ machineSession: [] }]
        : caller === "machine-or-proof"
          ? [{ machineSession: [] }, {}]
          : caller === "machine-or-pairing"
            ? [{ machineSession: [] }, { agentPairingToken: [] }]
            : undefined;
    expect(operation.security).toEqual(security);
    if (caller) expect(operation["x-caller"].kind).toBe(caller);
    // Every code of the family's table is documented under its status, with its exact envelope as the example.
    for (const code of route.errors.codes) {
      const prepared = route.errors.response(code);
      const response = resolveRef(document, operation.responses[String(prepared.status)]);
      expect(response, `${code} -> ${prepared.status}`).toBeDefined();
      const media = Object.values(response.content ?? {})[0] as { examples?: Record<string, { $ref?: string }> } | undefined;
      const ref = media?.examples?.[code]?.$ref;
      if (ref === undefined) {
        // The status is also a success status of the route (e.g. 503 of readiness): documented as success.
        expect(response.description).toMatch(/Success/);
        continue;
      }
      const example = document.components.examples[ref.split("/").at(-1)!];
      expect(example.value).toEqual(JSON.parse(prepared.body.toString("utf8")));
    }
  });
});
