/**
 * Turns type-graphql classes into a Federation 2 subgraph schema (the pattern of type-graphql's
 * `examples/apollo-federation-2`): build the type-graphql schema, print it with its directives, prepend the
 * federation `@link`, and hand SDL + resolver map to `buildSubgraphSchema`. Reference resolvers must go through
 * `buildSubgraphSchema`'s resolvers; attaching them later silently drops them.
 */
import { buildSubgraphSchema } from "@apollo/subgraph";
import { printSchemaWithDirectives } from "@graphql-tools/utils";
import { parse, type GraphQLSchema } from "graphql";
import { buildSchema, createResolversMap, type ContainerType, type NonEmptyArray } from "type-graphql";

const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable", "@external", "@requires"])';

export type ReferenceResolvers = Record<string, { __resolveReference: (reference: any, context: any) => unknown }>;

export interface SubgraphDefinition {
  // eslint-disable-next-line @typescript-eslint/ban-types
  resolvers: NonEmptyArray<Function>;
  // eslint-disable-next-line @typescript-eslint/ban-types
  orphanedTypes?: Function[];
  /** Hands resolver classes their dependencies; omit to build a schema for printing only. */
  container?: ContainerType;
  referenceResolvers?: ReferenceResolvers;
}

export async function buildFederatedSchema(definition: SubgraphDefinition): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    resolvers: definition.resolvers,
    orphanedTypes: definition.orphanedTypes,
    container: definition.container,
    skipCheck: true,
    validate: false,
  });
  const typeDefs = parse(`${FEDERATION_LINK}\n${printSchemaWithDirectives(schema)}`);
  const resolvers: Record<string, any> = createResolversMap(schema);
  for (const [typeName, reference] of Object.entries(definition.referenceResolvers ?? {})) {
    resolvers[typeName] = { ...(resolvers[typeName] ?? {}), ...reference };
  }
  // Cast: type-graphql's ResolversMap is not assignable to Apollo's GraphQLResolverMap (https://github.com/MichalLytek/type-graphql/issues/1768).
  return buildSubgraphSchema({ typeDefs, resolvers: resolvers as any });
}

/** A container that hands every resolver class the same constructor argument (the subgraph's dependencies). */
export function dependencyContainer<TDeps>(deps: TDeps): ContainerType {
  const instances = new Map<unknown, unknown>();
  return {
    get(someClass: new (deps: TDeps) => unknown) {
      let instance = instances.get(someClass);
      if (!instance) {
        instance = new someClass(deps);
        instances.set(someClass, instance);
      }
      return instance;
    },
  };
}
