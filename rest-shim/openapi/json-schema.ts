/**
 * A small JSON Schema (2020-12, the dialect of OpenAPI 3.1) toolkit for the generated document: a schema inferred
 * from sample JSON values, and the merge of two inferred schemas (members present in every sample are required).
 */
export type JsonSchema = Record<string, unknown>;

type Kind = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object";

function kindOf(value: unknown): Kind {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  // Samples cannot tell an integer field from a float that happened to be integral (document 2 writes `5000.0`).
  if (typeof value === "number") return "number";
  return typeof value as Kind;
}

/** An object that may hold any members (generators type it as a record of unknown values, not as an empty object). */
export const FREE_FORM_OBJECT: JsonSchema = { type: "object", additionalProperties: true };

/**
 * The sample the generator gives a `DateTime` field; a sample string equal to it is documented as a date-time (a
 * route that passes the instant through unchanged keeps the format, one that rewrites it documents a plain string).
 */
export const DATE_TIME_SAMPLE = "2026-01-01T00:00:00.000Z";
export const DATE_TIME_SCHEMA: JsonSchema = { type: "string", format: "date-time" };

/** The schema of one sample: its types, object members (all required) and array items. */
export function inferSchema(value: unknown): JsonSchema {
  const kind = kindOf(value);
  if (kind === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    // An empty sample is a free-form object (a JSONObject field): it may hold any members.
    if (entries.length === 0) return FREE_FORM_OBJECT;
    return {
      type: "object",
      properties: Object.fromEntries(entries.map(([name, member]) => [name, inferSchema(member)])),
      required: entries.map(([name]) => name),
    };
  }
  if (kind === "array") {
    const items = (value as unknown[]).map(inferSchema);
    return items.length === 0 ? { type: "array" } : { type: "array", items: items.reduce(mergeSchemas) };
  }
  if (value === DATE_TIME_SAMPLE) return { ...DATE_TIME_SCHEMA };
  return { type: kind };
}

const typesOf = (schema: JsonSchema): Kind[] => {
  const type = schema.type;
  if (type === undefined) return [];
  return (Array.isArray(type) ? type : [type]) as Kind[];
};

/** A schema that admits every value either schema admits (for schemas built by `inferSchema`). */
export function mergeSchemas(a: JsonSchema, b: JsonSchema): JsonSchema {
  if (a.type === undefined && Object.keys(a).length === 0) return a;
  if (b.type === undefined && Object.keys(b).length === 0) return b;
  const types = new Set([...typesOf(a), ...typesOf(b)]);
  if (types.has("integer") && types.has("number")) types.delete("integer");
  const merged: JsonSchema = { type: types.size === 1 ? [...types][0] : [...types].sort() };
  // A string format survives a merge with null (a nullable instant), not with a string of another format.
  const formats = [a, b].filter((s) => typesOf(s).includes("string")).map((s) => s.format);
  if (formats.length > 0 && formats[0] !== undefined && formats.every((f) => f === formats[0])) merged.format = formats[0];
  if (types.has("object")) {
    const pa = (a.properties ?? {}) as Record<string, JsonSchema>;
    const pb = (b.properties ?? {}) as Record<string, JsonSchema>;
    const names = [...new Set([...Object.keys(pa), ...Object.keys(pb)])];
    const free = a.additionalProperties === true || b.additionalProperties === true;
    if (free) merged.additionalProperties = true;
    if (free && names.length === 0) return merged;
    merged.properties = Object.fromEntries(
      names.map((name) => [name, pa[name] && pb[name] ? mergeSchemas(pa[name]!, pb[name]!) : (pa[name] ?? pb[name])!]),
    );
    // A member is required only when both sides are objects that always had it.
    const ra = typesOf(a).includes("object") ? ((a.required ?? []) as string[]) : null;
    const rb = typesOf(b).includes("object") ? ((b.required ?? []) as string[]) : null;
    const required = ra && rb ? ra.filter((name) => rb.includes(name)) : (ra ?? rb ?? []);
    merged.required = required;
  }
  if (types.has("array")) {
    const ia = a.items as JsonSchema | undefined;
    const ib = b.items as JsonSchema | undefined;
    const items = ia && ib ? mergeSchemas(ia, ib) : (ia ?? ib);
    if (items) merged.items = items;
  }
  return merged;
}
