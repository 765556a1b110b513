/**
 * What the generator learns by running a route entry's own functions on samples, so that nothing about a route is
 * declared twice: the query parameters and headers its `variables` reads, the answers it gives for junk parameters
 * (document 2's FastAPI 422s), and its success statuses and bodies for sample GraphQL `data` (`respond`).
 */
import type { IncomingHttpHeaders } from "node:http";
import { RouteInputError } from "../json-body.js";
import type { RouteDefinition } from "../route-definition.js";
import { ENUM_SPELLINGS, mapEnums, restSpelling, restValues } from "../routes/enum-spelling.js";
import { sampleData, type SampleVariant } from "./graphql-shapes.js";
import { inferSchema, mergeSchemas, type JsonSchema } from "./json-schema.js";
import type { ExampleRequest } from "./examples.js";

/** URLSearchParams that records every name the route asks for. */
class RecordingQuery extends URLSearchParams {
  readonly names = new Set<string>();
  override get(name: string) {
    this.names.add(name);
    return super.get(name);
  }
  override getAll(name: string) {
    this.names.add(name);
    return super.getAll(name);
  }
  override has(name: string, value?: string) {
    this.names.add(name);
    return value === undefined ? super.has(name) : super.has(name, value);
  }
}

function recordingHeaders(headers: Readonly<Record<string, string>>, read: Set<string>): IncomingHttpHeaders {
  return new Proxy({ ...headers } as IncomingHttpHeaders, {
    get(target, name) {
      if (typeof name === "string") read.add(name);
      return target[name as string];
    },
  });
}

export interface RouteInputs {
  readonly query: readonly string[];
  /** Headers the route reads itself (beyond the HTTP rules every route of its kind checks). */
  readonly headers: readonly string[];
}

/** The query parameters and headers `variables` reads for the example request (errors end the walk, not the probe). */
export function probeInputs(route: RouteDefinition, example: ExampleRequest): RouteInputs {
  const query = new RecordingQuery(example.query as Record<string, string>);
  const headers = new Set<string>();
  const body = example.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(example.body));
  try {
    route.variables({ params: example.params, query, body, headers: recordingHeaders(example.headers, headers) });
  } catch {
    // A sample the route refuses still tells which inputs it read up to the refusal.
  }
  const ruleHeaders = new Set(["accept", "content-type", "authorization"]);
  return { query: [...query.names].sort(), headers: [...headers].filter((name) => !ruleHeaders.has(name)).sort() };
}

/** Prepared answers the route gives by itself for junk path and query values (FastAPI's 422 lists). */
export function probeJunkAnswers(route: RouteDefinition, inputs: RouteInputs): Map<number, unknown[]> {
  const answers = new Map<number, unknown[]>();
  const junk = "not-a-number";
  const params = Object.fromEntries([...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => [m[1]!, junk]));
  const query = new URLSearchParams(inputs.query.map((name) => [name, junk]));
  try {
    route.variables({ params, query, body: Buffer.alloc(0), headers: {} });
  } catch (error) {
    if (error instanceof RouteInputError && error.response) {
      const list = answers.get(error.response.status) ?? [];
      list.push(JSON.parse(error.response.body.toString("utf8")));
      answers.set(error.response.status, list);
    }
  }
  return answers;
}

export interface SuccessAnswer {
  readonly schema?: JsonSchema;
  /** True when the answer has no body (204). */
  readonly empty: boolean;
}

/**
 * Success statuses with the schema of their bodies, from `respond` on sample data (full and sparse). A status that
 * comes from the data itself (document 3's execute answers the provider's status) is not an HTTP status for sample
 * data: it is documented as the range `2XX`.
 */
export function probeSuccess(route: RouteDefinition): Map<string, SuccessAnswer> {
  const answers = new Map<string, SuccessAnswer>();
  const samples = route.documentedResults ?? (["full", "sparse"] as SampleVariant[]).map((variant) => () => sampleData(route.operation, variant));
  for (const sample of samples) {
    let outcome;
    try {
      const data = typeof sample === "function" ? sample() : sample;
      outcome = route.respond(restSpelling(route.operation, data));
    } catch {
      continue;
    }
    if ("errorCode" in outcome) continue;
    const status = outcome.status >= 200 && outcome.status <= 599 ? String(outcome.status) : "2XX";
    const previous = answers.get(status);
    if (outcome.body.length === 0) {
      answers.set(status, { empty: true });
      continue;
    }
    const schema = inferSchema(JSON.parse(outcome.body.toString("utf8")));
    answers.set(status, { empty: false, schema: previous?.schema ? mergeSchemas(previous.schema, schema) : schema });
  }
  annotateEnums(route, answers);
  return answers;
}

const ENUM_MARK = "\u0000enum:";

/**
 * Writes `enum: [...]` (REST spellings, routes/enum-spelling.ts) into the success schemas wherever `respond` puts a value of
 * a registered enum type: `respond` runs once more on the full sample with each such value replaced by a marker
 * naming its type, and the schema gets the list at each place a marker comes out.
 */
function annotateEnums(route: RouteDefinition, answers: Map<string, SuccessAnswer>): void {
  let outcome;
  try {
    outcome = route.respond(mapEnums(route.operation, sampleData(route.operation, "full"), (type) => `${ENUM_MARK}${type}`));
  } catch {
    return;
  }
  if ("errorCode" in outcome || outcome.body.length === 0) return;
  const status = outcome.status >= 200 && outcome.status <= 599 ? String(outcome.status) : "2XX";
  const schema = answers.get(status)?.schema;
  if (schema === undefined) return;
  const visit = (value: unknown, at: JsonSchema | undefined): void => {
    if (at === undefined || value === null) return;
    if (typeof value === "string" && value.startsWith(ENUM_MARK)) {
      // Matched without case: the marker has passed through the route's spelling (lowercased, or kebab-cased).
      const marked = value.slice(ENUM_MARK.length).toLowerCase();
      const type = Object.keys(ENUM_SPELLINGS).find((name) => name.toLowerCase() === marked)!;
      const values: Array<string | null> = restValues(type);
      const types = Array.isArray(at.type) ? at.type : [at.type];
      if (types.includes("null")) values.push(null);
      at.enum = values;
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, at.items as JsonSchema | undefined);
    } else if (typeof value === "object") {
      const properties = (at.properties ?? {}) as Record<string, JsonSchema>;
      for (const [name, member] of Object.entries(value as Record<string, unknown>)) visit(member, properties[name]);
    }
  };
  visit(JSON.parse(outcome.body.toString("utf8")), schema);
}
