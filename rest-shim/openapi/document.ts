/**
 * The OpenAPI 3.1 document of one REST listener, generated from the route table (rest-shim/routes.ts) and the error
 * tables (rest-shim/errors/*.ts), so it cannot drift from what is served: a new entry is documented by being added.
 *
 * Per route: path parameters (raw, at most 100 characters), the query parameters and headers its `variables` reads,
 * the HTTP rules it checks before reading a body (bearer token, Accept, JSON Content-Type, byte limit), its per-IP
 * limits, its success statuses and body shapes (its `respond` run on sample data shaped by the operation's selection
 * in the supergraph), and every status of its family's error table with each code's exact envelope as an example.
 *
 * What many routes share is written once under `components` and referenced: the envelope schemas, each code's
 * example, the error responses (one per family and status), the response headers and the parameters that carry no
 * per-route example. Inline, every markets operation would carry its family's whole error table again (megabytes).
 */
import { callerRuleOf } from "../routes/markets/http.js";
import { createRequire } from "node:module";
import type { DemoFixture } from "../../subgraphs/shared/chain/demo-fixture.js";
import type { PlatformConfig } from "../../subgraphs/shared/config.js";
import type { PreparedResponse } from "../errors/table.js";
import { AREAS, type ListenerName, type RouteDefinition } from "../route-definition.js";
import { exampleRequest, type ExampleRequest } from "./examples.js";
import { inputVariableSchema } from "./graphql-shapes.js";
import { FREE_FORM_OBJECT, inferSchema, mergeSchemas, type JsonSchema } from "./json-schema.js";
import { probeInputs, probeJunkAnswers, probeSuccess } from "./route-probe.js";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

const LISTENERS: Record<ListenerName, { title: string; description: string }> = {
  http: {
    title: "Machine economy: verification (document 1) and ratings 1.0 (document 2)",
    description: "HTTP_PORT. Document 1 under /v1/verify/, document 2's 1.0 deployment everywhere else.",
  },
  mcr2: { title: "Machine economy: ratings 2.0 (document 2)", description: "MCR2_PORT. Document 2's 2.0 deployment." },
  markets: { title: "Machine economy: markets (document 3)", description: "MARKETS_PORT. Document 3 under /api/v1." },
};

/** What the query parameters the routes read mean (the rules live in the route files named). */
const QUERY_PARAMETERS: Record<string, JsonSchema & { description: string }> = {
  limit: { type: "string", description: "Page size: markets 1..500 (default 100, markets-http.ts); ratings 1..20 (default 20, ratings.ts)." },
  cursor: { type: "string", maxLength: 512, description: "Opaque cursor from the previous page's nextCursor." },
  offset: { type: "string", description: "Ratings listings: items to skip, 0..2147483647 (default 0)." },
};

/**
 * The media type key of an answer's Content-Type: its essence (`application/json`), the key generated clients look
 * for; the parameters the shim sends (`charset=utf-8`) are stated in the response's description.
 */
const mediaKey = (contentType: string) => contentType.split(";")[0]!.trim();
const charsetNote = (contentType: string) => (contentType.includes(";") ? ` Content-Type: ${contentType}.` : "");

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, "{$1}");
const parse = (body: Buffer) => (body.length === 0 ? null : JSON.parse(body.toString("utf8")));

interface ResponseGroup {
  /** Component names of the envelope schemas (one per family), or inline schemas (FastAPI's 422 lists). */
  schemas: JsonSchema[];
  contentType?: string;
  headers: Record<string, unknown>;
  examples: Record<string, unknown>;
  descriptions: string[];
  /** What the route adds to its family's answers at this status (its 429, its own 422s): part of the component name. */
  additions: string[];
}

type SharedSection = "headers" | "parameters" | "responses";

/** Shared parts of one document: each family's envelope schema and each code's exact answer, referenced by routes. */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};
  readonly examples: Record<string, { summary?: string; value: unknown }> = {};
  readonly headers: Record<string, unknown> = {};
  readonly parameters: Record<string, unknown> = {};
  readonly responses: Record<string, unknown> = {};
  /** Serialised entries of the shared sections, to find an equal one without serialising it again. */
  private readonly texts = new Map<string, string>();

  /**
   * A reference to `value` stored in `section` under `name`, or under `name.2`, `name.3`... when that name already
   * holds something else: equal values share one entry, different ones never overwrite each other.
   */
  share(section: SharedSection, name: string, value: unknown): { $ref: string } {
    const text = JSON.stringify(value);
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? name : `${name}.${n}`;
      const key = `${section}/${candidate}`;
      const existing = this.texts.get(key);
      if (existing === undefined) {
        this[section][candidate] = value;
        this.texts.set(key, text);
      } else if (existing !== text) {
        continue;
      }
      return { $ref: `#/components/${key}` };
    }
  }

  /** Response headers (all but Content-Type, which the media type states) as references to shared header objects. */
  headersOf(headers: Readonly<Record<string, string>>): Record<string, unknown> {
    return Object.fromEntries(
      Object.entries(headers)
        .filter(([name]) => name !== "content-type")
        .map(([name, value]) => [name, this.share("headers", name, { required: true, schema: { type: "string", const: value } })]),
    );
  }

  /** Records a prepared error answer; returns references to its envelope schema and example. */
  add(family: string, name: string, response: PreparedResponse, summary?: string): { schema: JsonSchema; example: JsonSchema } {
    const body = parse(response.body);
    const schemaName = `${family}ErrorEnvelope`;
    const inferred = inferSchema(body);
    this.schemas[schemaName] = this.schemas[schemaName] ? mergeSchemas(this.schemas[schemaName]!, inferred) : inferred;
    const exampleName = `${family}.${name}`;
    this.examples[exampleName] ??= { ...(summary ? { summary } : {}), value: body };
    return { schema: { $ref: `#/components/schemas/${schemaName}` }, example: { $ref: `#/components/examples/${exampleName}` } };
  }
}

function group(groups: Map<number, ResponseGroup>, status: number): ResponseGroup {
  let found = groups.get(status);
  if (!found) groups.set(status, (found = { schemas: [], headers: {}, examples: {}, descriptions: [], additions: [] }));
  return found;
}

function addPrepared(
  groups: Map<number, ResponseGroup>,
  components: Components,
  family: string,
  response: PreparedResponse,
  name: string,
  summary?: string,
  addition?: string,
): void {
  const target = group(groups, response.status);
  const refs = components.add(family, name, response, summary);
  if (!target.schemas.some((schema) => schema.$ref === refs.schema.$ref)) target.schemas.push(refs.schema);
  target.contentType ??= response.headers["content-type"] ?? "application/json";
  Object.assign(target.headers, components.headersOf(response.headers));
  target.examples[name] ??= refs.example;
  if (!target.descriptions.includes(name)) target.descriptions.push(name);
  if (addition && !target.additions.includes(addition)) target.additions.push(addition);
}

function errorResponses(route: RouteDefinition, config: PlatformConfig, components: Components, junk: Map<number, unknown[]>): Map<number, ResponseGroup> {
  const groups = new Map<number, ResponseGroup>();
  const family = route.errors.family;
  for (const code of route.errors.codes) addPrepared(groups, components, family, route.errors.response(code), code);
  const areaFamily = `${family}Framework`;
  addPrepared(groups, components, areaFamily, route.area.methodNotAllowed, route.area.methodNotAllowed.code ?? "METHOD_NOT_ALLOWED", "Another method on this path");
  if (route.rateLimits.length > 0) {
    const limited = route.area.rateLimited(config.rateLimits[route.rateLimits[0]!], config.rateLimits.windowMs);
    const limits = route.rateLimits.map((name) => `${name} ${config.rateLimits[name]}`).join(", ");
    addPrepared(groups, components, areaFamily, limited, `RATE_LIMITED_${route.rateLimits[0]}`, `Per-IP limits per ${config.rateLimits.windowMs} ms: ${limits}`, "limited");
  }
  for (const [status, bodies] of junk) {
    const target = group(groups, status);
    bodies.forEach((body, index) => {
      target.schemas.push(inferSchema(body));
      target.contentType ??= "application/json";
      target.examples[`VALIDATION_${index + 1}`] = { summary: "A parameter that fails validation", value: body };
    });
    if (!target.descriptions.includes("request validation")) target.descriptions.push("request validation");
    if (!target.additions.includes("validation")) target.additions.push("validation");
  }
  return groups;
}

function operationOf(route: RouteDefinition, config: PlatformConfig, components: Components, example: ExampleRequest, operationId: string): Record<string, unknown> {
  const inputs = probeInputs(route, example);
  const parameters: unknown[] = Object.entries(example.params).map(([name, value]) => ({
    name,
    in: "path",
    required: true,
    description: "Matched raw (not percent-decoded by the router); at most 100 characters.",
    schema: { type: "string", maxLength: 100 },
    example: value,
  }));
  // Path parameters stay inline: each carries its route's example value. So does a query parameter with one.
  for (const name of inputs.query) {
    const { description, ...schema } = QUERY_PARAMETERS[name] ?? { type: "string", description: "Filter." };
    const parameter = { name, in: "query", required: false, description, schema };
    const value = example.query[name];
    parameters.push(value ? { ...parameter, example: value } : components.share("parameters", `query.${name}`, parameter));
  }
  for (const name of inputs.headers) {
    parameters.push(components.share("parameters", `header.${name}`, { name, in: "header", required: false, schema: { type: "string" } }));
  }
  if (route.rules.acceptJson) {
    const accept = { name: "Accept", in: "header", required: false, description: "Must admit application/json (else 406).", schema: { type: "string" }, example: "application/json" };
    parameters.push(components.share("parameters", "header.Accept", accept));
  }

  const responses: Record<string, unknown> = {};
  const success = probeSuccess(route);
  if (success.size === 0) success.set("200", { empty: false, schema: {} });
  const successType = route.errors.headers["content-type"] ?? "application/json";
  for (const [status, answer] of success) {
    responses[status] = {
      description: answer.empty ? "Success, no body." : `Success.${charsetNote(successType)}`,
      headers: components.headersOf(route.errors.headers),
      ...(answer.empty ? {} : { content: { [mediaKey(successType)]: { schema: answer.schema ?? {} } } }),
    };
  }
  const errors = errorResponses(route, config, components, probeJunkAnswers(route, inputs));
  // One shared response per family and status; a route that adds answers of its own there shares one per variant.
  for (const [status, group] of [...errors].sort(([a], [b]) => a - b)) {
    if (responses[String(status)]) continue;
    responses[String(status)] = components.share("responses", [route.errors.family, status, ...group.additions].join("."), {
      description: `Codes: ${group.descriptions.join(", ")}.${charsetNote(group.contentType!)}`,
      headers: group.headers,
      content: {
        [mediaKey(group.contentType!)]: { schema: group.schemas.length === 1 ? group.schemas[0] : { anyOf: group.schemas }, examples: group.examples },
      },
    });
  }

  const operation: Record<string, unknown> = {
    operationId,
    summary: `GraphQL operation ${route.operation.name}`,
    description: `Runs the named GraphQL operation \`${route.operation.name}\` on the gateway:\n\n\`\`\`graphql\n${route.operation.document}\n\`\`\``,
    tags: [route.errors.family],
    parameters,
    responses,
    "x-graphql-operation": route.operation.name,
    "x-rate-limits": route.rateLimits.map((name) => ({ name, limit: config.rateLimits[name], windowMs: config.rateLimits.windowMs })),
  };
  if (route.rules.onboardingToken) operation.security = [{ onboardingToken: [] }];
  // Markets routes: who may call them (the route entry's caller), and the machine session where that is the credential.
  const caller = callerRuleOf(route);
  if (caller) {
    operation["x-caller"] = caller.kind === "public" ? { kind: "public", reason: caller.reason } : { kind: caller.kind };
    if (caller.kind === "machine") operation.security = [{ machineSession: [] }];
    if (caller.kind === "machine-or-proof") operation.security = [{ machineSession: [] }, {}];
    if (caller.kind === "machine-or-pairing") operation.security = [{ machineSession: [] }, { agentPairingToken: [] }];
  }
  if (route.raw) {
    operation.description = `${route.raw.docs.description}\n\n${operation.description as string}`;
    Object.assign(responses, route.raw.docs.responses);
    if (route.raw.docs.requestBody) operation.requestBody = route.raw.docs.requestBody;
    const octet = route.rules.octetBody;
    const media = (operation.requestBody as { content?: Record<string, { schema: Record<string, unknown> }> } | undefined)?.content?.["application/octet-stream"];
    if (octet && media) media.schema = { ...media.schema, "x-max-bytes": octet.limit };
  }
  const jsonBody = route.rules.jsonBody;
  if (jsonBody) {
    const inputSchema = inputVariableSchema(route.operation, "input");
    operation.requestBody = {
      required: true,
      description: `JSON (one application/json Content-Type, no Content-Encoding), at most ${jsonBody.limit} bytes (413 above).`,
      content: { "application/json": { schema: { ...(inputSchema ?? FREE_FORM_OBJECT), "x-max-bytes": jsonBody.limit }, example: example.body } },
    };
  }
  return operation;
}

/** The document of one listener; `demo` fills the examples (the committed file uses a fresh platform's fixture). */
export function buildOpenApiDocument(
  listener: ListenerName,
  routes: readonly RouteDefinition[],
  config: PlatformConfig,
  demo: DemoFixture | undefined,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components = new Components();
  const used = new Set<string>();
  for (const route of routes.filter((r) => r.area.listener === listener)) {
    let operationId = route.operation.name;
    for (let n = 2; used.has(operationId); n++) operationId = `${route.operation.name}${n}`;
    used.add(operationId);
    const item = (paths[toOpenApiPath(route.path)] ??= {});
    item[route.method.toLowerCase()] = operationOf(route, config, components, exampleRequest(route, demo), operationId);
  }
  const areas = Object.values(AREAS).filter((area) => area.listener === listener);
  return {
    openapi: "3.1.0",
    info: {
      title: LISTENERS[listener].title,
      version,
      description:
        `${LISTENERS[listener].description} Generated from the REST shim's route and error tables (npm run openapi). ` +
        `Unknown paths answer ${areas.map((a) => `${a.notFound.status} ${a.notFound.code} under ${a.prefix}`).join("; ")}.`,
    },
    servers: [{ url: "/" }],
    paths,
    components: {
      schemas: components.schemas,
      examples: components.examples,
      headers: components.headers,
      parameters: components.parameters,
      responses: components.responses,
      securitySchemes: {
        onboardingToken: { type: "http", scheme: "bearer", description: "An onboarding token (ONBOARDING_TOKENS)." },
        machineSession: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "A machine session (POST /api/v1/machine-identity/sessions): the machine's authority for its writes.",
        },
        agentPairingToken: { type: "apiKey", in: "header", name: "x-agent-pairing-token", description: "An agent pairing session token." },
      },
    },
  };
}
