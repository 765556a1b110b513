/**
 * The variables and root-field arguments of a compiled execution (compiled-execution.ts), coerced as graphql-js's
 * `getVariableValues` and `getArgumentValues` coerce them, without their per-request work that does not depend on the
 * values: the variable types read from the document, the input object fields listed, a path entry allocated per
 * input field, the argument nodes mapped by name.
 *
 * Only the successful coercion is done here. A value graphql-js would refuse (a missing or null required value, a
 * field an input type does not define, a scalar or enum that refuses its value, an input object that is not an
 * object) answers `undefined`, and the caller then lets graphql-js coerce the same values, so every refusal and its
 * message are graphql-js's own. Input types with `@oneOf` and arguments given as literals are not compiled (the
 * caller keeps graphql-js's functions for those operations).
 */
import {
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  typeFromAST,
  valueFromAST,
  Kind,
  type FieldNode,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type VariableDefinitionNode,
} from "graphql";

/** The coerced variables (a null-prototype map, as graphql-js's) and the root field's arguments, or undefined. */
export type CoerceInputs = (variables: Record<string, unknown>) => { variableValues: Record<string, unknown>; args: Record<string, unknown> } | undefined;

const REFUSED: unique symbol = Symbol("refused");
type Coerce = (value: unknown) => unknown;
/** Input object types being compiled, so that a type referring to itself gets its own (unfinished) coercion. */
const compiling = new Map<string, Coerce>();
const hasOwn = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);

/** The compiled coercion of `operation`'s variables and of `field`'s arguments at `node`, or why not. */
export function compileInputs(schema: GraphQLSchema, operation: OperationDefinitionNode, field: GraphQLField<unknown, unknown>, node: FieldNode): CoerceInputs | string {
  const variables: Array<{ name: string; coerce: Coerce; nonNull: boolean; type: GraphQLInputType; defaultValue: VariableDefinitionNode["defaultValue"] }> = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type as never);
    if (!type || !isInputType(type)) return `variable $${definition.variable.name.value} has no input type`;
    const coerce = compileInput(type);
    if (typeof coerce === "string") return coerce;
    variables.push({ name: definition.variable.name.value, coerce, nonNull: isNonNullType(type), type, defaultValue: definition.defaultValue });
  }
  const argumentNodes = new Map((node.arguments ?? []).map((argument) => [argument.name.value, argument.value]));
  const args: Array<{ name: string; variable: string | null; defaultValue: unknown; nonNull: boolean }> = [];
  for (const definition of field.args) {
    const value = argumentNodes.get(definition.name);
    if (value !== undefined && value.kind !== Kind.VARIABLE) return `argument ${definition.name} is a literal`;
    args.push({ name: definition.name, variable: value?.name.value ?? null, defaultValue: definition.defaultValue, nonNull: isNonNullType(definition.type) });
  }

  return (inputs) => {
    const variableValues: Record<string, unknown> = Object.create(null);
    for (const variable of variables) {
      if (!hasOwn(inputs, variable.name)) {
        if (variable.defaultValue) variableValues[variable.name] = valueFromAST(variable.defaultValue, variable.type);
        else if (variable.nonNull) return undefined;
        continue;
      }
      const value = inputs[variable.name];
      if (value === null && variable.nonNull) return undefined;
      const coerced = variable.coerce(value);
      if (coerced === REFUSED) return undefined;
      variableValues[variable.name] = coerced;
    }
    const coercedArgs: Record<string, unknown> = {};
    for (const argument of args) {
      if (argument.variable === null || !hasOwn(variableValues, argument.variable)) {
        if (argument.defaultValue !== undefined) coercedArgs[argument.name] = argument.defaultValue;
        else if (argument.nonNull) return undefined;
        continue;
      }
      const value = variableValues[argument.variable];
      // graphql-js refuses a null for a non-null argument, and answers no value (a refusal) for an undefined one.
      if (value === undefined || (value === null && argument.nonNull)) return undefined;
      coercedArgs[argument.name] = value;
    }
    return { variableValues, args: coercedArgs };
  };
}

/** graphql-js's `coerceInputValue` for one input type, REFUSED where it would report an error. */
function compileInput(type: GraphQLInputType): Coerce | string {
  if (isNonNullType(type)) {
    const inner = compileInput(type.ofType);
    if (typeof inner === "string") return inner;
    return (value) => (value === null || value === undefined ? REFUSED : inner(value));
  }
  if (isListType(type)) {
    const item = compileInput(type.ofType);
    if (typeof item === "string") return item;
    return (value) => {
      if (value === null || value === undefined) return null;
      if (typeof value === "object" && typeof (value as Iterable<unknown>)[Symbol.iterator] === "function") {
        // Iterables other than arrays are rare enough to leave to graphql-js.
        if (!Array.isArray(value)) return REFUSED;
        const coerced = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i++) {
          const entry = item(value[i]);
          if (entry === REFUSED) return REFUSED;
          coerced[i] = entry;
        }
        return coerced;
      }
      // A non-list value is a list of one.
      const entry = item(value);
      return entry === REFUSED ? REFUSED : [entry];
    };
  }
  if (isInputObjectType(type)) {
    if (type.isOneOf) return `input ${type.name} is @oneOf`;
    const unfinished = compiling.get(type.name);
    if (unfinished) return unfinished;
    const definitions = type.getFields();
    const fields: Array<{ name: string; coerce: Coerce; defaultValue: unknown; nonNull: boolean }> = [];
    // Filled after the loop's compile calls return: an input type may refer to itself.
    for (const field of Object.values(definitions)) fields.push({ name: field.name, coerce: () => REFUSED, defaultValue: field.defaultValue, nonNull: isNonNullType(field.type) });
    const coerceObject: Coerce = (value) => {
      if (value === null || value === undefined) return null;
      if (typeof value !== "object" || Array.isArray(value)) return REFUSED;
      const source = value as Record<string, unknown>;
      const coerced: Record<string, unknown> = {};
      for (const field of fields) {
        const fieldValue = source[field.name];
        if (fieldValue === undefined) {
          if (field.defaultValue !== undefined) coerced[field.name] = field.defaultValue;
          else if (field.nonNull) return REFUSED;
          continue;
        }
        const entry = field.coerce(fieldValue);
        if (entry === REFUSED) return REFUSED;
        coerced[field.name] = entry;
      }
      for (const key of Object.keys(source)) if (definitions[key] === undefined) return REFUSED;
      return coerced;
    };
    compiling.set(type.name, coerceObject);
    try {
      for (const field of fields) {
        const coerce = compileInput(definitions[field.name]!.type);
        if (typeof coerce === "string") return coerce;
        field.coerce = coerce;
      }
    } finally {
      compiling.delete(type.name);
    }
    return coerceObject;
  }
  const leaf = type;
  return (value) => {
    if (value === null || value === undefined) return null;
    let parsed: unknown;
    try {
      parsed = leaf.parseValue(value);
    } catch {
      return REFUSED;
    }
    return parsed === undefined ? REFUSED : parsed;
  };
}
