/**
 * A cheaper execution of the shim's fixed operations on the direct path, with graphql-js's answer.
 *
 * graphql-js executes an operation by walking its selections per request: for every field of the answer it looks the
 * field up, allocates a path entry and a resolve-info object, calls the field's resolver (the default one reads the
 * property), checks the value for promises and errors and completes it by its type. For an operation the shim sends on
 * every request, all of that but the root resolver's call and the values' serialisation is known in advance. Here an
 * operation is turned once into one function per output type of its answer (no per-field lookups, info objects or
 * path entries), when it has the shape that makes this exact:
 *
 * - one operation (query or mutation) and nothing else in the document: no fragments, no directives on selections;
 * - one root field (its own resolver, called as graphql-js calls it: same arguments, same resolve info);
 * - below it only object, list, scalar and enum types (no abstract types), each field resolved by graphql-js's default
 *   resolver (type-graphql's `simpleResolvers` types), no object type with `isTypeOf`, no response key twice.
 *
 * The variables and the root field's arguments are coerced as graphql-js's `getVariableValues` and
 * `getArgumentValues` coerce them (compiled-variables.ts; where that does not take the values, by those functions
 * themselves); scalars and enums serialise with their own `serialize`. Everything this code does not
 * reproduce is handed to graphql-js: variables it refuses, and any answer whose completion would not be a plain
 * success (the root resolver throws; a value is an `Error`, a promise, a function, a non-array list or a null where
 * the type forbids it; a scalar refuses its value). Then graphql-js's `execute` runs the operation again with the root
 * field's resolver replaced, for that one call, by the outcome already obtained (the resolver is not called twice), so
 * every error message, path, location and null it gives is graphql-js's own. The answer's objects are plain objects
 * with the fields in the selection's order, where graphql-js makes null-prototype objects: their JSON is the same.
 */
import { compileInputs, type CoerceInputs } from "./compiled-variables.js";
import {
  Kind,
  defaultFieldResolver,
  execute,
  getArgumentValues,
  getVariableValues,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";

/** Runs the operation with these (raw) variables and context: graphql-js's result for them. */
export type CompiledExecution = (variables: Record<string, unknown>, context: object) => Promise<ExecutionResult>;

/** What a completion returns when graphql-js must finish the answer (see the module's description). */
const HAND_OVER: unique symbol = Symbol("hand over to graphql-js");
type Complete = (value: unknown) => unknown;

/** The root resolver's outcome to replay, by the request's context object, while graphql-js executes again. */
type Outcome = { value: unknown } | { error: unknown };
const replays = new WeakMap<object, Outcome>();
/** Each replayable root field's own resolver. */
const ownResolvers = new WeakMap<GraphQLField<unknown, unknown>, GraphQLFieldResolver<unknown, unknown>>();

/**
 * The compiled execution of `operation` (the only definition of `document`, validated against `schema`), or why it
 * is left to graphql-js.
 */
export function compileExecution(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): CompiledExecution | string {
  if (document.definitions.length !== 1 || document.definitions[0] !== operation) return "more than one definition";
  if (operation.operation === "subscription") return "a subscription";
  const rootType = schema.getRootType(operation.operation);
  const [root, ...others] = operation.selectionSet.selections;
  if (!rootType || !root || others.length > 0) return "not one root field";
  if (root.kind !== Kind.FIELD || root.directives?.length) return "the root selection is not a plain field";
  const field = rootType.getFields()[root.name.value];
  if (!field) return "the root field is introspection";
  const complete = compileType(field.type, root.selectionSet);
  if (typeof complete === "string") return complete;

  const resolve = makeReplayable(field);
  const key = root.alias?.value ?? root.name.value;
  if (key === "__proto__") return "a response key __proto__";
  const definitions = operation.variableDefinitions ?? [];
  const fragments = Object.create(null);
  const fallback = (variables: Record<string, unknown>, context: object) =>
    Promise.resolve(execute({ schema, document, variableValues: variables, contextValue: context }));

  const compiledInputs = compileInputs(schema, operation, field, root);
  /** graphql-js's own coercion of the variables and the root field's arguments; undefined where it refuses them. */
  const coerceInputs: CoerceInputs = (variables) => {
    const coerced = getVariableValues(schema, definitions, variables, { maxErrors: 50 });
    if (coerced.errors) return undefined;
    try {
      return { variableValues: coerced.coerced, args: getArgumentValues(field, root, coerced.coerced) };
    } catch {
      return undefined;
    }
  };

  return async (variables, context) => {
    // The compiled coercion answers the values it takes; graphql-js's decides the rest (compiled-variables.ts).
    const inputs = (typeof compiledInputs === "function" ? compiledInputs(variables) : undefined) ?? coerceInputs(variables);
    if (!inputs) return fallback(variables, context);
    const { variableValues, args } = inputs;
    const info: GraphQLResolveInfo = {
      fieldName: field.name,
      fieldNodes: [root],
      returnType: field.type,
      parentType: rootType,
      path: { prev: undefined, key, typename: rootType.name },
      schema,
      fragments,
      rootValue: undefined,
      operation,
      variableValues,
    };
    let value: unknown;
    try {
      value = resolve(undefined, args, context, info);
      if (isThenable(value)) value = await value;
    } catch (error) {
      return replay(context, { error }, () => fallback(variables, context));
    }
    let completed: unknown;
    try {
      completed = complete(value);
    } catch {
      // A property getter threw: graphql-js makes that a field error.
      completed = HAND_OVER;
    }
    if (completed === HAND_OVER) return replay(context, { value }, () => fallback(variables, context));
    return { data: { [key]: completed } };
  };
}

/** graphql-js's execution with the root resolver's outcome replayed for this context. */
async function replay(context: object, outcome: Outcome, run: () => Promise<ExecutionResult>): Promise<ExecutionResult> {
  replays.set(context, outcome);
  try {
    return await run();
  } finally {
    replays.delete(context);
  }
}

/**
 * Makes the root field answer the outcome replayed for the request's context when there is one (done once per field;
 * other executions pay one WeakMap lookup). Returns the field's own resolver, which the compiled execution calls.
 */
function makeReplayable(field: GraphQLField<unknown, unknown>): GraphQLFieldResolver<unknown, unknown> {
  const own = ownResolvers.get(field);
  if (own) return own;
  const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve ?? defaultFieldResolver;
  ownResolvers.set(field, resolve);
  field.resolve = (source, args, context, info) => {
    const outcome = typeof context === "object" && context !== null ? replays.get(context) : undefined;
    if (outcome === undefined) return resolve(source, args, context, info);
    replays.delete(context as object);
    if ("error" in outcome) throw outcome.error;
    return outcome.value;
  };
  return resolve;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}

/** A value graphql-js would not complete as a plain value: an error or a promise (it throws or awaits them). */
function isSpecial(value: unknown): boolean {
  return value instanceof Error || isThenable(value);
}

function compileType(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined): Complete | string {
  if (isNonNullType(type)) {
    const inner = compileType(type.ofType, selectionSet);
    if (typeof inner === "string") return inner;
    return (value) => {
      const completed = inner(value);
      return completed === null ? HAND_OVER : completed;
    };
  }
  if (isListType(type)) {
    const item = compileType(type.ofType, selectionSet);
    if (typeof item === "string") return item;
    return (value) => {
      if (value === null || value === undefined) return null;
      if (!Array.isArray(value)) return HAND_OVER;
      const completed = new Array<unknown>(value.length);
      for (let i = 0; i < value.length; i++) {
        const entry = item(value[i]);
        if (entry === HAND_OVER) return HAND_OVER;
        completed[i] = entry;
      }
      return completed;
    };
  }
  if (isScalarType(type) || isEnumType(type)) {
    const leaf = type;
    return (value) => {
      if (value === null || value === undefined) return null;
      if (isSpecial(value)) return HAND_OVER;
      try {
        const serialized = leaf.serialize(value);
        return serialized === null || serialized === undefined ? HAND_OVER : serialized;
      } catch {
        return HAND_OVER;
      }
    };
  }
  if (!isObjectType(type)) return `abstract type ${type.name}`;
  if (type.isTypeOf) return `${type.name} has isTypeOf`;
  if (!selectionSet) return `no selection on ${type.name}`;
  const fields = type.getFields();
  const keys: string[] = [];
  const names: (string | null)[] = [];
  const completes: Complete[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || selection.directives?.length) return `a fragment or directive in ${type.name}`;
    const key = selection.alias?.value ?? selection.name.value;
    // graphql-js's answer objects have no prototype; a plain object would take this key as its prototype.
    if (key === "__proto__") return "a response key __proto__";
    if (keys.includes(key)) return `${type.name}.${key} selected twice`;
    keys.push(key);
    if (selection.name.value === "__typename") {
      names.push(null);
      completes.push(() => type.name);
      continue;
    }
    const field = fields[selection.name.value];
    if (!field) return `${type.name}.${selection.name.value} is introspection`;
    if (field.resolve !== undefined && field.resolve !== defaultFieldResolver) return `${type.name}.${field.name} has a resolver`;
    const complete = compileType(field.type, (selection as FieldNode).selectionSet);
    if (typeof complete === "string") return complete;
    names.push(field.name);
    completes.push(complete);
  }
  const count = keys.length;
  return (value) => {
    if (value === null || value === undefined) return null;
    // A primitive in an object's place, or an error, a promise or a function: graphql-js answers those.
    if (typeof value !== "object" || isSpecial(value)) return HAND_OVER;
    const source = value as Record<string, unknown>;
    const completed: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) {
      const name = names[i]!;
      const property = name === null ? undefined : source[name];
      if (typeof property === "function") return HAND_OVER;
      const entry = completes[i]!(property);
      if (entry === HAND_OVER) return HAND_OVER;
      completed[keys[i]!] = entry;
    }
    return completed;
  };
}
