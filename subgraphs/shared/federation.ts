/**
 * Turns type-graphql classes into a Federation 2 subgraph schema (the pattern of type-graphql's
 * `examples/apollo-federation-2`): build the type-graphql schema, print it with its directives, prepend the
 * federation `@link`, and hand SDL + resolver map to `buildSubgraphSchema`. Reference resolvers must go through
 * `buildSubgraphSchema`'s resolvers; attaching them later silently drops them.
 */
import { buildSubgraphSchema } from "@apollo/subgraph";
import { printSchemaWithDirectives } from "@graphql-tools/utils";
import { defaultFieldResolver, isObjectType, parse, type GraphQLSchema } from "graphql";
import { buildSchema, createResolversMap, getMetadataStorage, type ContainerType, type NonEmptyArray } from "type-graphql";
import { holdsUnstorableText } from "./json/storable-text.js";

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
  /**
   * The family's validation error, for a subgraph whose free-text inputs reach the database: every field with
   * arguments then refuses, before its resolver runs, arguments holding text PostgreSQL cannot store (U+0000, a lone
   * surrogate; json/storable-text.ts), in a string anywhere or an object member name, from a variable or a literal.
   */
  refuseUnstorableText?: () => Error;
  /** Hot fields resolved on graphql-js's coerced arguments as they are ({@link PlainField}); needs `container`. */
  plainFields?: PlainField[];
}

/**
 * A field whose resolver class method is called with graphql-js's coerced arguments as they are (plain objects),
 * without type-graphql's per-call work around it: the container lookup, the middleware dispatch and the copy of every
 * input object into an instance of its class (a search of type-graphql's metadata per input field, per call). Only
 * for methods with no middleware that read their inputs as data (no input class methods, defaults or `instanceof`);
 * the method stays the field's one definition, `call` only passes the arguments by name.
 */
export interface PlainField {
  type: string;
  field: string;
  // eslint-disable-next-line @typescript-eslint/ban-types
  resolver: Function;
  call(instance: any, args: Record<string, any>): unknown;
}

/**
 * The subgraphs' object types are data (their services answer plain objects; no type class has methods), so every
 * field without a field resolver is read by graphql-js's default resolver (type-graphql's `simpleResolvers`) instead
 * of a type-graphql resolver per field, which reads the same property through its middleware dispatch. The shim's
 * compiled execution (gateway/compiled-execution.ts) needs exactly that: a field with a resolver of its own keeps its
 * operation on graphql-js. A type or field can still ask for type-graphql's resolver (`simpleResolvers: false`).
 */
function dataFieldsReadByDefault(): void {
  for (const objectType of getMetadataStorage().objectTypes) objectType.simpleResolvers ??= true;
}

export async function buildFederatedSchema(definition: SubgraphDefinition): Promise<GraphQLSchema> {
  dataFieldsReadByDefault();
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
  for (const plain of definition.plainFields ?? []) {
    const resolve = resolvers[plain.type]?.[plain.field];
    if (typeof resolve !== "function" || !definition.container) throw new Error(`${plain.type}.${plain.field} has no resolver to replace`);
    // The container hands one instance per class (dependencyContainer), taken once here.
    const instance = definition.container.get(plain.resolver as never, {} as never);
    resolvers[plain.type][plain.field] = (_source: unknown, args: Record<string, any>) => plain.call(instance, args);
  }
  // Cast: type-graphql's ResolversMap is not assignable to Apollo's GraphQLResolverMap (https://github.com/MichalLytek/type-graphql/issues/1768).
  const subgraph = buildSubgraphSchema({ typeDefs, resolvers: resolvers as any });
  if (definition.refuseUnstorableText) refuseUnstorableText(subgraph, definition.refuseUnstorableText);
  return subgraph;
}

/**
 * Wraps the resolver of every field that takes arguments (federation's own `_entities` and `_service` aside: the
 * gateway fills those) with the unstorable-text check. Arguments arrive coerced, so variables and literals are checked
 * alike, whichever door (REST shim or GraphQL) the request came through.
 */
function refuseUnstorableText(schema: GraphQLSchema, refusal: () => Error): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.args.length === 0 || field.name.startsWith("_")) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context, info) => {
        if (holdsUnstorableText(args)) throw refusal();
        return resolve(source, args, context, info);
      };
    }
  }
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
