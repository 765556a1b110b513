/**
 * The OpenAPI documents against the running platform: the committed files are what the generator writes for this
 * build (drift), each REST listener serves its document at /openapi.json, and every documented example request,
 * replayed against the platform, gets a documented status whose body and headers match the document's schema.
 * The GraphQL listener serves the supergraph the gateway runs at a stable path.
 */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPENAPI_LISTENERS, openApiDocuments } from "../../rest-shim/openapi/files.js";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { send } from "../support/http.js";
import { resolveRef } from "../support/openapi.js";
import { startIsolatedPlatform, type IsolatedPlatform } from "../support/platform.js";

let p: IsolatedPlatform;
beforeAll(async () => {
  p = await startIsolatedPlatform();
});
afterAll(() => p?.close());

const baseOf = (listener: string) => (listener === "http" ? p.http : listener === "mcr2" ? p.mcr2 : p.markets);
const committed = (listener: string) => JSON.parse(readFileSync(`docs/openapi/${listener}.json`, "utf8"));

interface Parameter {
  name: string;
  in: string;
  example?: string;
}

/** The example request a documented operation carries, as a URL, headers and body. */
function exampleOf(document: any, path: string, operation: any, onboardingToken: string | undefined) {
  const parameters: Parameter[] = operation.parameters.map((parameter: unknown) => resolveRef(document, parameter));
  let url = path;
  const query = new URLSearchParams();
  for (const parameter of parameters) {
    if (parameter.in === "path") url = url.replace(`{${parameter.name}}`, encodeURIComponent(parameter.example!));
    if (parameter.in === "query" && parameter.example !== undefined) query.set(parameter.name, parameter.example);
  }
  const headers: Record<string, string> = { accept: "application/json" };
  if (operation.security && onboardingToken) headers.authorization = `Bearer ${onboardingToken}`;
  // A binary body (stream chunk upload) has no example: the request goes with its media type and no bytes.
  const json = operation.requestBody?.content["application/json"];
  const body = json?.example;
  if (operation.requestBody) headers["content-type"] = json ? "application/json" : Object.keys(operation.requestBody.content)[0]!;
  return { url: query.size > 0 ? `${url}?${query}` : url, headers, body: body === undefined ? undefined : JSON.stringify(body) };
}

describe("the committed documents are current", () => {
  it("docs/openapi/*.json equal what npm run openapi writes for this route table and the demo fixture", () => {
    // The committed files document the default limits; the fixture is the one this platform seeded.
    const files = openApiDocuments(loadConfig({ DATA_DIR: p.dataDir }), p.demo);
    expect(files.map(([file]) => file)).toEqual(OPENAPI_LISTENERS.map((listener) => `docs/openapi/${listener}.json`));
    for (const [file, text] of files) expect(text, `${file} is stale: run npm run openapi`).toBe(readFileSync(file, "utf8"));
  });
});

describe.each(OPENAPI_LISTENERS)("the %s listener", (listener) => {
  it("serves its document at /openapi.json, with this platform's limits", async () => {
    const answer = await send(`${baseOf(listener)}/openapi.json`, { method: "GET" });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    const served = answer.json();
    const file = committed(listener);
    expect(Object.keys(served.paths)).toEqual(Object.keys(file.paths));
    const limits = Object.values(served.paths).flatMap((item: any) => Object.values(item).flatMap((op: any) => op["x-rate-limits"]));
    for (const limit of limits) expect(limit.limit).toBe(p.config.rateLimits[limit.name as keyof typeof p.config.rateLimits]);
  });

  it("answers every documented example with a documented status, body and headers", async () => {
    const document = committed(listener);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const answered: string[] = [];
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const request = exampleOf(document, path, operation, p.demo.onboardingToken);
        const answer = await send(`${baseOf(listener)}${request.url}`, { method: method.toUpperCase(), headers: request.headers, body: request.body });
        const name = `${method.toUpperCase()} ${request.url} -> ${answer.status} ${answer.text.slice(0, 200)}`;
        const response = resolveRef(document, operation.responses[String(answer.status)] ?? operation.responses[`${String(answer.status)[0]}XX`]);
        expect(response, `undocumented status: ${name}`).toBeDefined();
        for (const [header, reference] of Object.entries<any>(response.headers ?? {})) {
          const spec = resolveRef(document, reference);
          if (spec.required) expect(answer.headers[header], `${header}: ${name}`).toBe(spec.schema.const);
        }
        const media = response.content ? Object.entries<any>(response.content)[0] : undefined;
        if (media === undefined) {
          expect(answer.text, name).toBe("");
        } else {
          // The media type key is the Content-Type's essence; the parameters sent (charset) are in the description.
          const contentType = answer.headers["content-type"] as string;
          expect(contentType.split(";")[0]!.trim(), name).toBe(media[0]);
          if (contentType !== media[0]) expect(response.description, name).toContain(`Content-Type: ${contentType}.`);
          const validate = ajv.compile({ ...media[1].schema, components: document.components });
          const valid = validate(answer.json());
          expect(validate.errors ?? [], name).toEqual([]);
          expect(valid).toBe(true);
        }
        answered.push(`${method.toUpperCase()} ${path} ${answer.status}`);
      }
    }
    // Examples from the demo fixture reach the domain: the reads of seeded records succeed.
    const expectedSuccesses: Record<string, string[]> = {
      http: ["GET /v1/verify/machines/{machineId} 200", "POST /v1/verify/chip/challenge 201", "GET /mcr/{did} 200", "GET /health 200", "GET /machine/{did} 200"],
      mcr2: ["GET /health 200", "GET /ready 200"],
      markets: ["GET /api/v1/market/skills 200", "GET /api/v1/machines 200"],
    };
    expect(answered).toEqual(expect.arrayContaining(expectedSuccesses[listener]!));
  });
});

describe("the GraphQL listener", () => {
  it("serves the committed supergraph at /supergraph.graphql", async () => {
    const answer = await send(p.graphql.replace(/\/graphql$/, "/supergraph.graphql"), { method: "GET" });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/graphql; charset=utf-8");
    expect(answer.text).toBe(readFileSync("gateway/supergraph.graphql", "utf8"));
  });
});
