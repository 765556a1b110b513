/**
 * What the generator learns from the supergraph (gateway/supergraph.graphql): sample `data` for each shim operation,
 * built from the operation's selection set (fed to the route's own `respond`, so the documented response shape is
 * the one the shim writes), and JSON Schemas of GraphQL input types (a markets body is the operation's `input`).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isAbstractType,
  isScalarType,
  Kind,
  parse,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import type { ShimOperation } from "../executor.js";
import { DATE_TIME_SAMPLE, DATE_TIME_SCHEMA, FREE_FORM_OBJECT, type JsonSchema } from "./json-schema.js";

const SUPERGRAPH = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "gateway", "supergraph.graphql");

let cached: GraphQLSchema | undefined;
export function supergraphSchema(): GraphQLSchema {
  cached ??= buildSchema(readFileSync(SUPERGRAPH, "utf8"), { assumeValidSDL: true });
  return cached;
}

/**
 * How a sample fills the selection: `full` gives every nullable field a value and every list one element; `sparse`
 * gives nullable fields null (lists still one element, so their items' nullable fields are seen null too).
 * Responses are documented as the merge of both.
 */
export type SampleVariant = "full" | "sparse";

function scalarSample(name: string): unknown {
  switch (name) {
    case "Int":
      return 1;
    case "Float":
      // Integral: some views write a Float that carries whole seconds as a bare integer.
      return 2;
    case "Boolean":
      return true;
    case "JSONObject":
    case "JSON":
      return {};
    case "DateTime":
      return DATE_TIME_SAMPLE;
    default:
      return "1";
  }
}

function sampleOf(type: GraphQLOutputType, selection: SelectionSetNode | undefined, variant: SampleVariant, schema: GraphQLSchema): unknown {
  if (isNonNullType(type)) return sampleValue(type.ofType, selection, variant, schema);
  return variant === "sparse" ? null : sampleValue(type, selection, variant, schema);
}

function sampleValue(type: GraphQLOutputType, selection: SelectionSetNode | undefined, variant: SampleVariant, schema: GraphQLSchema): unknown {
  if (isNonNullType(type)) return sampleValue(type.ofType, selection, variant, schema);
  if (isListType(type)) return [sampleOf(type.ofType, selection, variant, schema)];
  if (isEnumType(type)) return type.getValues()[0]!.name;
  if (isScalarType(type)) return scalarSample(type.name);
  const objectType = isAbstractType(type) ? schema.getPossibleTypes(type)[0]! : (type as GraphQLObjectType);
  return sampleObject(objectType, selection!, variant, schema);
}

function sampleObject(type: GraphQLObjectType, selection: SelectionSetNode, variant: SampleVariant, schema: GraphQLSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const node of selection.selections) {
    if (node.kind === Kind.INLINE_FRAGMENT) {
      Object.assign(out, sampleObject(type, node.selectionSet, variant, schema));
      continue;
    }
    if (node.kind !== Kind.FIELD) continue;
    const key = node.alias?.value ?? node.name.value;
    if (node.name.value === "__typename") {
      out[key] = type.name;
      continue;
    }
    const field = type.getFields()[node.name.value];
    if (!field) throw new Error(`${type.name} has no field ${node.name.value}`);
    out[key] = sampleOf(field.type, node.selectionSet, variant, schema);
  }
  return out;
}

function operationOf(operation: ShimOperation): OperationDefinitionNode {
  const definition = parse(operation.document).definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (!definition) throw new Error(`${operation.name} has no operation`);
  return definition as OperationDefinitionNode;
}

/** Sample `data` of a shim operation, as the gateway would answer it. */
export function sampleData(operation: ShimOperation, variant: SampleVariant): Record<string, unknown> {
  const schema = supergraphSchema();
  const definition = operationOf(operation);
  const root = definition.operation === "mutation" ? schema.getMutationType()! : schema.getQueryType()!;
  return sampleObject(root, definition.selectionSet, variant, schema);
}

/** The GraphQL input type of the operation's variable `name`, if it has one that is an input object. */
export function inputVariableSchema(operation: ShimOperation, name: string): JsonSchema | undefined {
  const variable = operationOf(operation).variableDefinitions?.find((v) => v.variable.name.value === name);
  if (!variable) return undefined;
  let typeNode = variable.type;
  while (typeNode.kind !== Kind.NAMED_TYPE) typeNode = typeNode.type;
  const type = supergraphSchema().getType(typeNode.name.value);
  return type && isInputObjectType(type) ? inputSchema(type) : undefined;
}

function inputSchema(type: GraphQLInputType): JsonSchema {
  if (isNonNullType(type)) return inputSchema(type.ofType);
  if (isListType(type)) return { type: "array", items: inputSchema(type.ofType) };
  if (isEnumType(type)) return { type: "string", description: `One of ${type.getValues().map((v) => v.name.toLowerCase().replace(/_/g, "-")).join(", ")}.` };
  if (isScalarType(type)) {
    const sample = scalarSample(type.name);
    if (typeof sample === "object") return FREE_FORM_OBJECT;
    if (sample === DATE_TIME_SAMPLE) return DATE_TIME_SCHEMA;
    return { type: typeof sample === "number" ? (type.name === "Int" ? "integer" : "number") : typeof sample };
  }
  const fields = Object.values(getNamedType(type) === type && isInputObjectType(type) ? type.getFields() : {});
  return {
    type: "object",
    properties: Object.fromEntries(
      fields.map((field) => [field.name, { ...inputSchema(field.type), ...(field.description ? { description: field.description } : {}) }]),
    ),
    required: fields.filter((field) => isNonNullType(field.type) && field.defaultValue === undefined).map((field) => field.name),
  };
}
