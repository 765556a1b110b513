/**
 * The compiled execution of the shim's fixed operations (gateway/compiled-execution.ts) against graphql-js's own
 * `execute`: for operations of the compiled shape, over random answers (well-formed ones and every kind graphql-js
 * does not complete as a plain value: nulls where the type forbids them, errors, promises, functions, primitives in
 * an object's place, iterables that are not arrays, values a scalar or enum refuses), the two results must have the
 * same JSON (data, error messages, locations and paths), and the root resolver must run once per request either way.
 */
import {
  GraphQLEnumType,
  GraphQLError,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  execute,
  getOperationAST,
  parse,
  validate,
  type ExecutionResult,
} from "graphql";
import { describe, expect, it } from "vitest";
import { seeded, type Seeded } from "../support/seeded.js";
import { compileExecution, type CompiledExecution } from "../../gateway/compiled-execution.js";

/** A scalar that refuses some values (as graphql-scalars' DateTime refuses a malformed instant). */
const Instant = new GraphQLScalarType({
  name: "Instant",
  serialize(value) {
    if (typeof value === "string" && /^\d{4}-\d\d-\d\dT/.test(value)) return value;
    if (value instanceof Date) return value.toISOString();
    throw new GraphQLError(`Instant cannot represent ${String(value)}`);
  },
});
/** A scalar whose serialisation is null for some values (graphql-js makes that an error). */
const Maybe = new GraphQLScalarType({ name: "Maybe", serialize: (value) => (value === "none" ? null : value) });
const Status = new GraphQLEnumType({ name: "Status", values: { ACTIVE: { value: "ACTIVE" }, REVOKED: { value: "REVOKED" } } });

const Endpoint = new GraphQLObjectType({
  name: "Endpoint",
  fields: {
    providerKey: { type: new GraphQLNonNull(GraphQLString) },
    port: { type: GraphQLInt },
    status: { type: new GraphQLNonNull(Status) },
    leaseExpiresAt: { type: Instant },
    tags: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
    note: { type: Maybe },
  },
});
const Agent = new GraphQLObjectType({
  name: "Agent",
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID) },
    status: { type: Status },
    keys: { type: new GraphQLNonNull(new GraphQLList(GraphQLString)) },
    endpoints: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Endpoint))) },
    primary: { type: Endpoint },
    grid: { type: new GraphQLList(new GraphQLList(GraphQLInt)) },
  },
});
const Result = new GraphQLObjectType({
  name: "Result",
  fields: { agent: { type: new GraphQLNonNull(Agent) }, others: { type: new GraphQLList(Agent) }, count: { type: GraphQLInt } },
});
/** Outside the compiled shape: a type with `isTypeOf`, a field with its own resolver. */
const Checked = new GraphQLObjectType({ name: "Checked", isTypeOf: () => true, fields: { id: { type: GraphQLID } } });
const Resolved = new GraphQLObjectType({ name: "Resolved", fields: { id: { type: GraphQLID, resolve: () => "x" } } });

const Input = new GraphQLInputObjectType({
  name: "Input",
  fields: { leaseSeconds: { type: new GraphQLNonNull(GraphQLInt) }, label: { type: GraphQLString, defaultValue: "none" } },
});

/** The root resolvers answer what the test put in `context.answer` (a value, a promise of one, or a throw). */
interface TestContext {
  answer: () => unknown;
  calls: Array<Record<string, unknown>>;
}
const root = (type: GraphQLObjectType | GraphQLNonNull<GraphQLObjectType>) => ({
  type,
  args: { id: { type: GraphQLString }, input: { type: Input } },
  resolve: (_source: unknown, args: Record<string, unknown>, context: TestContext) => {
    context.calls.push(args);
    return context.answer();
  },
});
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: "Query",
    fields: { result: root(Result), required: root(new GraphQLNonNull(Result)), checked: root(Checked), resolved: root(Resolved) },
  }),
  mutation: new GraphQLObjectType({ name: "Mutation", fields: { heartbeat: root(new GraphQLNonNull(Result)) } }),
});

const AGENT = "{ id status keys endpoints { providerKey port status leaseExpiresAt tags note } primary { providerKey status } grid }";
const DOCUMENTS = {
  query: `query Q($id: String, $input: Input) { result(id: $id, input: $input) { agent ${AGENT} others { id __typename } count __typename } }`,
  required: `query R($id: String) { answer: required(id: $id) { agent { id keys } count } }`,
  mutation: `mutation M($input: Input!) { heartbeat(input: $input) { agent ${AGENT} count } }`,
};

function compiled(text: string): { run: CompiledExecution; reference: (variables: Record<string, unknown>, context: TestContext) => Promise<ExecutionResult> } {
  const document = parse(text);
  expect(validate(schema, document)).toEqual([]);
  const run = compileExecution(schema, document, getOperationAST(document)!);
  if (typeof run === "string") throw new Error(`not compiled: ${run}`);
  return { run, reference: async (variables, context) => execute({ schema, document, variableValues: variables, contextValue: context }) };
}

/**
 * How deep the value being drawn is inside lists. graphql-js abandons a list item's promise when another item fails
 * synchronously (its rejection then goes unhandled, which fails a test run), so values in lists are never promises.
 */
let inList = 0;
function listOf(length: number, item: () => unknown): unknown[] {
  inList += 1;
  try {
    return Array.from({ length }, item);
  } finally {
    inList -= 1;
  }
}

/** Mostly well-formed values; now and then one graphql-js does not complete as a plain value. */
function odd(r: Seeded, good: () => unknown): unknown {
  if (!r.chance(0.06)) return good();
  return r.pick([
    () => null,
    () => undefined,
    () => new Error("a resolver error in the data"),
    () => (inList > 0 ? null : Promise.resolve(good())),
    () => {
      const value = good();
      return () => value;
    },
    () => 7,
    () => "text",
    () => new Set(listOf(1, good)),
    () => ({ unrelated: true }),
  ])();
}

function endpoint(r: Seeded): unknown {
  return odd(r, () => ({
    providerKey: odd(r, () => r.pick(["openai", "local", "edge"])),
    port: odd(r, () => r.pick([80, 443, 2 ** 31, 1.5, "8080"])),
    status: odd(r, () => r.pick(["ACTIVE", "REVOKED", "active"])),
    leaseExpiresAt: odd(r, () => r.pick(["2026-11-27T10:00:00.000Z", new Date(0), "yesterday"])),
    tags: odd(r, () => listOf(r.pick([0, 1, 2]), () => odd(r, () => r.pick(["a", "b", 3, true])))),
    note: odd(r, () => r.pick(["fine", "none", 5])),
  }));
}

function agent(r: Seeded): unknown {
  return odd(r, () => ({
    id: odd(r, () => r.pick(["magt_1", 42, "magt_2"])),
    status: odd(r, () => r.pick(["ACTIVE", "REVOKED"])),
    keys: odd(r, () => listOf(r.pick([0, 2]), () => odd(r, () => "k"))),
    endpoints: odd(r, () => listOf(r.pick([0, 1, 3]), () => endpoint(r))),
    primary: odd(r, () => endpoint(r)),
    grid: odd(r, () => listOf(1, () => [[1, 2], odd(r, () => [3]), []])[0]),
    extra: "not selected",
  }));
}

/** The root resolver's behaviour for one request (the same for both executions compared). */
function answer(r: Seeded): () => unknown {
  const value = odd(r, () => ({ agent: agent(r), others: odd(r, () => listOf(2, () => agent(r))), count: odd(r, () => r.pick([1, 2])) }));
  return r.pick([
    () => () => value,
    () => () => value,
    () => () => value,
    () => () => Promise.resolve(value),
    () => () => {
      throw new GraphQLError("refused", { extensions: { code: "NOT_FOUND" } });
    },
    () => () => Promise.reject(new Error("rejected")),
  ])();
}

describe("compiled execution", () => {
  it("answers as graphql-js over 3,000 random answers, the root resolver run once per request", async () => {
    const r = seeded(20_261_127);
    const kinds = { plain: 0, handedOver: 0 };
    for (const [name, text] of Object.entries(DOCUMENTS)) {
      const { run, reference } = compiled(text);
      for (let i = 0; i < 1_000; i++) {
        const drawn = answer(r);
        const variables = name === "mutation" ? { input: { leaseSeconds: 60 } } : { id: "x", input: { leaseSeconds: 5, label: "l" } };
        const contexts = [0, 1].map(() => ({ answer: drawn, calls: [] as Array<Record<string, unknown>> }));
        let thrown: unknown;
        const result = async (side: number, exec: (v: Record<string, unknown>, c: TestContext) => Promise<ExecutionResult>) => {
          try {
            return JSON.stringify(await exec(variables, contexts[side]!));
          } catch (error) {
            thrown = error;
            return "threw";
          }
        };
        const [mine, theirs] = [await result(0, run), await result(1, reference)];
        expect(thrown).toBeUndefined();
        expect(mine, `${name} #${i}`).toBe(theirs);
        expect(contexts.map((context) => context.calls.length)).toEqual([1, 1]);
        expect(contexts[0]!.calls[0]).toEqual(contexts[1]!.calls[0]);
        if (JSON.parse(mine).errors) kinds.handedOver += 1;
        else kinds.plain += 1;
      }
    }
    // Both kinds were exercised, many times.
    expect(kinds.plain).toBeGreaterThan(300);
    expect(kinds.handedOver).toBeGreaterThan(300);
  });

  it("a resolver that throws: graphql-js's errors and nulls, the resolver not run again", async () => {
    for (const text of Object.values(DOCUMENTS)) {
      const { run, reference } = compiled(text);
      const throwing = () => ({
        answer: () => {
          throw new GraphQLError("refused", { extensions: { code: "NOT_FOUND" } });
        },
        calls: [] as Array<Record<string, unknown>>,
      });
      const variables = { input: { leaseSeconds: 1 } };
      const [mineContext, theirContext] = [throwing(), throwing()];
      const mine = await run(variables, mineContext);
      expect(JSON.stringify(mine)).toBe(JSON.stringify(await reference(variables, theirContext)));
      expect(mine.errors?.[0]?.message).toBe("refused");
      expect(mineContext.calls).toHaveLength(1);
    }
  });

  it("a property that is a function: called as graphql-js's default resolver calls it", async () => {
    const { run, reference } = compiled(DOCUMENTS.query);
    const value = { agent: { id: "a", keys: [], endpoints: [{ providerKey: "p", status: "ACTIVE", note: () => "called" }] }, count: 3 };
    const context = () => ({ answer: () => value, calls: [] as Array<Record<string, unknown>> });
    const mine = await run({}, context());
    expect(JSON.stringify(mine)).toBe(JSON.stringify(await reference({}, context())));
    expect(mine.data).toMatchObject({ result: { agent: { endpoints: [{ note: "called" }] }, count: 3 } });
  });

  it("variables graphql-js refuses, and defaults it applies: its own answer", async () => {
    const { run, reference } = compiled(DOCUMENTS.mutation);
    const ok = () => ({ answer: () => ({ agent: { id: "a", keys: [], endpoints: [] }, count: 1 }), calls: [] as Array<Record<string, unknown>> });
    for (const variables of [{}, { input: { leaseSeconds: "x" } }, { input: { leaseSeconds: 1, extra: 2 } }, { input: null }, { input: { leaseSeconds: 3 } }]) {
      const [mineContext, theirContext] = [ok(), ok()];
      expect(JSON.stringify(await run(variables, mineContext))).toBe(JSON.stringify(await reference(variables, theirContext)));
      expect(mineContext.calls).toEqual(theirContext.calls);
    }
    // The input's default was applied before the resolver saw it.
    const context = ok();
    await run({ input: { leaseSeconds: 3 } }, context);
    expect(context.calls).toEqual([{ input: { leaseSeconds: 3, label: "none" } }]);
  });

  it("after a hand-over, graphql-js's own execution of the field calls its resolver again (nothing replayed is left)", async () => {
    const { run } = compiled(DOCUMENTS.required);
    const context: TestContext = { answer: () => ({ agent: null, count: 1 }), calls: [] as Array<Record<string, unknown>> };
    const handedOver = await run({}, context);
    expect(handedOver.errors?.[0]?.message).toBe("Cannot return null for non-nullable field Result.agent.");
    expect(handedOver.data).toBeNull();
    context.answer = () => ({ agent: { id: "a", keys: ["k"] }, count: 2 });
    const again = await execute({ schema, document: parse(DOCUMENTS.required), contextValue: context });
    expect(JSON.parse(JSON.stringify(again))).toEqual({ data: { answer: { agent: { id: "a", keys: ["k"] }, count: 2 } } });
    expect(context.calls).toHaveLength(2);
  });

  it("leaves other shapes to graphql-js, saying why", () => {
    const reason = (text: string) => {
      const document = parse(text);
      expect(validate(schema, document)).toEqual([]);
      return compileExecution(schema, document, getOperationAST(document)!);
    };
    expect(reason("{ checked { id } }")).toBe("Checked has isTypeOf");
    expect(reason("{ resolved { id } }")).toBe("Resolved.id has a resolver");
    expect(reason("{ result { count } required { count } }")).toBe("not one root field");
    expect(reason("{ result { ...F } } fragment F on Result { count }")).toBe("more than one definition");
    expect(reason("{ result { ... on Result { count } } }")).toBe("a fragment or directive in Result");
    expect(reason("query ($s: Boolean!) { result { count @include(if: $s) } }")).toBe("a fragment or directive in Result");
    expect(reason("{ result { count count: count } }")).toBe("Result.count selected twice");
    expect(reason("{ result { __proto__: count } }")).toBe("a response key __proto__");
    expect(reason("{ __typename }")).toBe("the root field is introspection");
  });
});
