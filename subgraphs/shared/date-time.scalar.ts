/**
 * `DateTime`: one scalar for every instant in the supergraph. Values are RFC 3339 date-times checked by
 * graphql-scalars' `DateTime`; a valid string passes through exactly as the resolver wrote it (the REST shim's JSON
 * keeps today's spellings, with or without milliseconds), a `Date` serialises as `toISOString()`. Inputs arrive in
 * resolvers as the validated string, never as a `Date`.
 */
import { GraphQLScalarType, Kind, type ValueNode } from "graphql";
import { GraphQLDateTime } from "graphql-scalars";

function checked(value: unknown): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError("DateTime cannot represent an invalid Date");
    return value.toISOString();
  }
  if (typeof value !== "string") throw new TypeError("DateTime must be an RFC 3339 date-time string");
  GraphQLDateTime.parseValue(value);
  return value;
}

export const DateTimeScalar = new GraphQLScalarType({
  name: "DateTime",
  description: "An RFC 3339 date-time (ISO 8601, UTC offset required), for example `2026-11-26T21:00:00Z`.",
  specifiedByURL: "https://scalars.graphql.org/chillicream/date-time.html",
  serialize: checked,
  parseValue: checked,
  parseLiteral(node: ValueNode) {
    if (node.kind !== Kind.STRING) throw new TypeError("DateTime literals are strings");
    return checked(node.value);
  },
});
