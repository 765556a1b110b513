/**
 * `JSONObject`: a JSON object passed through as is (the partner's data_api answer). Used by ratings (partner data, output only) and markets (labels, node data, audit data);
 * input literals and variables are accepted when they are plain objects, so the scalar is complete.
 */
import { GraphQLScalarType, Kind, type ObjectValueNode, type ValueNode } from "graphql";

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function literalValue(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.OBJECT:
      return objectLiteral(node);
    case Kind.LIST:
      return node.values.map(literalValue);
    case Kind.STRING:
    case Kind.BOOLEAN:
    case Kind.ENUM:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    default:
      throw new TypeError("JSONObject literals cannot hold variables");
  }
}

function objectLiteral(node: ObjectValueNode): Record<string, unknown> {
  return Object.fromEntries(node.fields.map((field) => [field.name.value, literalValue(field.value)]));
}

export const JSONObjectScalar = new GraphQLScalarType({
  name: "JSONObject",
  description: "A JSON object.",
  serialize(value) {
    if (!isPlainObject(value)) throw new TypeError("JSONObject must be a JSON object");
    return value;
  },
  parseValue(value) {
    if (!isPlainObject(value)) throw new TypeError("JSONObject must be a JSON object");
    return value;
  },
  parseLiteral(node) {
    if (node.kind !== Kind.OBJECT) throw new TypeError("JSONObject must be an object literal");
    return objectLiteral(node);
  },
});
