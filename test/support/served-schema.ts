/**
 * The API schema the gateway serves, built by the gateway library from the committed supergraph, introspected in
 * process (suites whose gateway runs in production mode have introspection off; their queries through the gateway
 * then prove the same types are served).
 */
import { ApolloGateway } from "@apollo/gateway";
import { graphql as execute } from "graphql";
import { readCommittedSupergraph } from "../../gateway/compose.js";

/** An introspection selection of a type's fields with their types four levels deep, under the type's name. */
export const typeFields = (name: string) =>
  `${name}: __type(name: "${name}") { kind fields { name type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } }`;

/** A field type as SDL writes it (`[PaymentRail!]!`). */
export const sdlType = (type: any): string =>
  type.kind === "NON_NULL" ? `${sdlType(type.ofType)}!` : type.kind === "LIST" ? `[${sdlType(type.ofType)}]` : type.name;

/** Runs an introspection query on the served API schema; `shape(name)` maps a `typeFields` entry to field -> SDL type. */
export async function introspectServedSchema(query: string): Promise<{
  errors: readonly unknown[] | undefined;
  data: Record<string, any>;
  shape(name: string): Record<string, string>;
}> {
  const gateway = new ApolloGateway({ supergraphSdl: await readCommittedSupergraph() });
  try {
    const { schema } = await gateway.load();
    const body = await execute({ schema, source: query });
    const data = (body.data ?? {}) as Record<string, any>;
    return {
      errors: body.errors,
      data,
      shape: (name) => Object.fromEntries(data[name].fields.map((f: any) => [f.name, sdlType(f.type)])),
    };
  } finally {
    await gateway.stop();
  }
}
