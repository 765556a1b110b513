/**
 * The compiled coercion of a compiled execution's variables and root-field arguments (gateway/compiled-variables.ts)
 * against graphql-js's `getVariableValues` and `getArgumentValues`, over random variables: where it takes the values,
 * graphql-js takes them too and coerces them to the same values (key order and the variable map's null prototype
 * included); where graphql-js refuses them, it refuses them too. It may refuse more (iterables that are not arrays),
 * which then go to graphql-js.
 */
import {
  GraphQLEnumType,
  GraphQLError,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  parse,
  validate,
  type FieldNode,
  type GraphQLInputType,
} from "graphql";
import { describe, expect, it } from "vitest";
import { seeded, type Seeded } from "../support/seeded.js";
import { compileInputs, type CoerceInputs } from "../../gateway/compiled-variables.js";

const Scope = new GraphQLEnumType({ name: "Scope", values: { LOOPBACK: {}, PUBLIC: { value: "public" } } });
/** A scalar that refuses some values by throwing and others by answering undefined (both refusals to graphql-js). */
const Url = new GraphQLScalarType({
  name: "Url",
  parseValue(value) {
    if (typeof value !== "string") throw new GraphQLError("Url must be a string");
    return value.startsWith("http") ? value : undefined;
  },
});
const Endpoint: GraphQLInputObjectType = new GraphQLInputObjectType({
  name: "EndpointInput",
  fields: () => ({
    providerKey: { type: new GraphQLNonNull(GraphQLString) },
    url: { type: Url },
    scope: { type: Scope, defaultValue: "public" },
    tags: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
    fallback: { type: Endpoint },
  }),
});
const Heartbeat = new GraphQLInputObjectType({
  name: "HeartbeatInput",
  fields: { leaseSeconds: { type: new GraphQLNonNull(GraphQLInt) }, endpoints: { type: new GraphQLList(new GraphQLNonNull(Endpoint)) } },
});
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: "Query",
    fields: {
      heartbeat: {
        type: GraphQLInt,
        args: {
          token: { type: GraphQLString },
          input: { type: new GraphQLNonNull(Heartbeat) },
          limit: { type: GraphQLInt, defaultValue: 100 },
          scopes: { type: new GraphQLList(Scope) },
        },
      },
    },
  }),
});

const DOCUMENT = parse(
  `query H($token: String, $input: HeartbeatInput!, $limit: Int = 7, $scopes: [Scope!]) { heartbeat(token: $token, input: $input, limit: $limit, scopes: $scopes) }`,
);

function compiled(): CoerceInputs {
  expect(validate(schema, DOCUMENT)).toEqual([]);
  const operation = getOperationAST(DOCUMENT)!;
  const field = schema.getQueryType()!.getFields().heartbeat!;
  const inputs = compileInputs(schema, operation, field, operation.selectionSet.selections[0] as FieldNode);
  if (typeof inputs === "string") throw new Error(`not compiled: ${inputs}`);
  return inputs;
}

/** graphql-js's coercion of the same variables: its variable map and arguments, or undefined when it refuses. */
function reference(variables: Record<string, unknown>) {
  const operation = getOperationAST(DOCUMENT)!;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: 50 });
  if (coerced.errors) return undefined;
  const field = schema.getQueryType()!.getFields().heartbeat!;
  try {
    return { variableValues: coerced.coerced, args: getArgumentValues(field, operation.selectionSet.selections[0] as FieldNode, coerced.coerced) };
  } catch {
    return undefined;
  }
}

/** Mostly well-formed; now and then absent, null, of another type, or an iterable that is not an array. */
function odd(r: Seeded, good: () => unknown): unknown {
  if (!r.chance(0.04)) return good();
  return r.pick([() => undefined, () => null, () => 3, () => "text", () => [good()], () => ({ other: 1 }), () => new Set([good()])])();
}

function endpoint(r: Seeded, depth = 0): unknown {
  const value: Record<string, unknown> = {
    providerKey: odd(r, () => r.pick(["openai", "edge"])),
    url: odd(r, () => (r.chance(0.95) ? r.pick(["http://127.0.0.1:9", "https://a.example"]) : "ftp://x")),
    scope: odd(r, () => (r.chance(0.95) ? r.pick(["LOOPBACK", "PUBLIC"]) : r.pick(["public", "loopback"]))),
    tags: odd(r, () => (r.chance(0.3) ? "single" : Array.from({ length: r.pick([0, 2]) }, () => odd(r, () => "t")))),
  };
  if (depth < 2 && r.chance(0.3)) value.fallback = endpoint(r, depth + 1);
  if (r.chance(0.05)) value.unknownMember = true;
  for (const key of Object.keys(value)) if (value[key] === undefined && r.chance(0.5)) delete value[key];
  return odd(r, () => value);
}

function variables(r: Seeded): Record<string, unknown> {
  const value: Record<string, unknown> = {
    token: odd(r, () => "mat_x"),
    input: odd(r, () => ({
      leaseSeconds: odd(r, () => (r.chance(0.9) ? 60 : r.pick([1.5, 2 ** 40]))),
      endpoints: odd(r, () => (r.chance(0.2) ? endpoint(r) : Array.from({ length: r.pick([0, 1, 3]) }, () => endpoint(r)))),
    })),
    limit: odd(r, () => 5),
    scopes: odd(r, () => Array.from({ length: 2 }, () => odd(r, () => r.pick(["LOOPBACK", "PUBLIC"])))),
  };
  for (const key of Object.keys(value)) if (r.chance(0.05)) delete value[key];
  return value;
}

describe("compiled variable coercion", () => {
  it("takes what graphql-js takes, to the same values, over 5,000 random variable sets", () => {
    const inputs = compiled();
    const r = seeded(20_261_127);
    const outcomes = { taken: 0, refusedByBoth: 0, leftToGraphqlJs: 0 };
    for (let i = 0; i < 5_000; i++) {
      const given = variables(r);
      const mine = inputs(given);
      const theirs = reference(given);
      if (mine === undefined) {
        if (theirs === undefined) outcomes.refusedByBoth += 1;
        else outcomes.leftToGraphqlJs += 1;
        continue;
      }
      expect(theirs, JSON.stringify(given)).toBeDefined();
      expect(JSON.stringify(mine.variableValues)).toBe(JSON.stringify(theirs!.variableValues));
      expect(mine.variableValues).toEqual(theirs!.variableValues);
      expect(Object.getPrototypeOf(mine.variableValues)).toBe(null);
      expect(JSON.stringify(mine.args)).toBe(JSON.stringify(theirs!.args));
      expect(mine.args).toEqual(theirs!.args);
      outcomes.taken += 1;
    }
    expect(outcomes.taken).toBeGreaterThan(1_000);
    expect(outcomes.refusedByBoth).toBeGreaterThan(1_000);
    // Only non-array iterables are left to graphql-js; they were drawn.
    expect(outcomes.leftToGraphqlJs).toBeGreaterThan(0);
    expect(outcomes.leftToGraphqlJs).toBeLessThan(outcomes.taken / 5);
  });

  it("applies defaults as graphql-js does: the variable's, the input field's and the argument's", () => {
    const inputs = compiled();
    const taken = inputs({ input: { leaseSeconds: 5, endpoints: [{ providerKey: "p" }] } })!;
    expect(taken.variableValues.limit).toBe(7);
    expect(taken.args).toEqual({ input: { leaseSeconds: 5, endpoints: [{ providerKey: "p", scope: "public" }] }, limit: 7 });
    expect(Object.keys(taken.args)).toEqual(["input", "limit"]);
    expect(taken).toEqual(reference({ input: { leaseSeconds: 5, endpoints: [{ providerKey: "p" }] } }));
  });

  it("does not compile what it does not reproduce: @oneOf inputs, literal arguments", () => {
    const OneOf = new GraphQLInputObjectType({ name: "Either", isOneOf: true, fields: { a: { type: GraphQLString }, b: { type: GraphQLInt } } });
    const oneOfSchema = new GraphQLSchema({
      query: new GraphQLObjectType({ name: "Query", fields: { pick: { type: GraphQLInt, args: { either: { type: OneOf as GraphQLInputType }, n: { type: GraphQLInt } } } } }),
    });
    const reason = (text: string) => {
      const document = parse(text);
      expect(validate(oneOfSchema, document)).toEqual([]);
      const operation = getOperationAST(document)!;
      return compileInputs(oneOfSchema, operation, oneOfSchema.getQueryType()!.getFields().pick!, operation.selectionSet.selections[0] as FieldNode);
    };
    expect(reason("query ($e: Either) { pick(either: $e) }")).toBe("input Either is @oneOf");
    expect(reason("{ pick(n: 3) }")).toBe("argument n is a literal");
    expect(typeof reason("query ($n: Int) { pick(n: $n) }")).toBe("function");
  });
});
