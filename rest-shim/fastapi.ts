/**
 * What FastAPI (pydantic v2) answers before document 2's handlers run: 422 validation lists for path and query
 * integers and for a body that is not JSON, exactly as the upstream framework writes them. Each refusal is a
 * `RouteInputError` carrying its prepared response; the route's GraphQL operation is never called.
 */
import { RouteInputError } from "./json-body.js";
import { jsonText, type JsonTextValue } from "./json-text.js";
import { PythonJsonError } from "./python-json.js";
import type { PreparedResponse } from "./errors/table.js";

const HEADERS = { "content-type": "application/json" } as const;

export interface ValidationItem {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: JsonTextValue;
  ctx?: Record<string, JsonTextValue>;
}

export function validationResponse(items: ValidationItem[]): PreparedResponse {
  const detail = items.map(({ type, loc, msg, input, ctx }) => ({ type, loc, msg, input, ctx }));
  return { status: 422, body: Buffer.from(jsonText({ detail }), "utf8"), headers: HEADERS };
}

export interface IntParameter {
  /** `query` or `path`. */
  location: "query" | "path";
  name: string;
  /** The raw (percent-decoded) value, or undefined when absent. */
  raw: string | undefined;
  default?: bigint;
  ge?: number;
  le?: number;
}

/**
 * pydantic's lax int from a string: surrounding whitespace ignored, an optional sign, digits, and an optional
 * fraction of zeros (`5.0`); anything else is `int_parsing`.
 */
function parseLaxInt(raw: string): bigint | null {
  const match = /^\s*([+-]?)(\d+)(?:\.0*)?\s*$/.exec(raw);
  if (!match) return null;
  const value = BigInt(match[2]!);
  return match[1] === "-" ? -value : value;
}

/** Validates every parameter (all errors are reported together, in declaration order) or throws the 422. */
export function validateInts(parameters: IntParameter[]): bigint[] {
  const errors: ValidationItem[] = [];
  const values = parameters.map((parameter) => {
    const loc = [parameter.location, parameter.name];
    if (parameter.raw === undefined) {
      if (parameter.default !== undefined) return parameter.default;
      errors.push({ type: "missing", loc, msg: "Field required", input: null });
      return 0n;
    }
    const value = parseLaxInt(parameter.raw);
    if (value === null) {
      errors.push({ type: "int_parsing", loc, msg: "Input should be a valid integer, unable to parse string as an integer", input: parameter.raw });
    } else if (parameter.ge !== undefined && value < BigInt(parameter.ge)) {
      errors.push({ type: "greater_than_equal", loc, msg: `Input should be greater than or equal to ${parameter.ge}`, input: parameter.raw, ctx: { ge: parameter.ge } });
    } else if (parameter.le !== undefined && value > BigInt(parameter.le)) {
      errors.push({ type: "less_than_equal", loc, msg: `Input should be less than or equal to ${parameter.le}`, input: parameter.raw, ctx: { le: parameter.le } });
    }
    return value ?? 0n;
  });
  if (errors.length > 0) throw new RouteInputError("VALIDATION", validationResponse(errors));
  return values;
}

/** A required JSON body that is empty: FastAPI's `missing` body error. */
export function missingBody(): RouteInputError {
  return new RouteInputError("VALIDATION", validationResponse([{ type: "missing", loc: ["body"], msg: "Field required", input: null }]));
}

/** A body Python's json module refuses: FastAPI's `json_invalid` error with the decoder's message and position. */
export function invalidJsonBody(error: PythonJsonError): RouteInputError {
  return new RouteInputError(
    "VALIDATION",
    validationResponse([
      { type: "json_invalid", loc: ["body", error.position], msg: "JSON decode error", input: {}, ctx: { error: error.pythonMessage } },
    ]),
  );
}

/** A path parameter as Starlette hands it to validation: percent-decoded (left raw if it does not decode). */
export function decodedPathParameter(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
