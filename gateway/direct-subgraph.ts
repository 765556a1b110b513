/**
 * Which of the shim's fixed operations may skip the gateway and run on one in-process subgraph directly.
 *
 * Decided once per operation from the gateway's own query plan (the same planner over the same supergraph): an
 * operation goes direct only when its plan is one fetch to one in-process subgraph, with nothing the gateway would
 * add (entity `requires`, data rewrites), the client document validates against that subgraph's schema, and every
 * field, argument, variable and enum or input type it touches has the same type, defaults and values in the
 * subgraph as in the API schema (no abstract types, no schema introspection). Then executing the document on the
 * subgraph produces exactly the data the gateway would shape from its one fetch, and `gatewayError` gives the
 * subgraph's (masked) errors the form the gateway gives them. Anything else keeps going through the gateway.
 *
 * The planner is the gateway's own (no second supergraph is built), and the part of a decision that depends only on
 * the supergraph and the document (the plan's one fetch, or why not) is kept per process: every platform started in
 * one process over the same supergraph plans each fixed operation once.
 */
import { ERRORS, errorCodeDef, operationFromDocument, type Supergraph } from "@apollo/federation-internals";
import type { QueryPlanner } from "@apollo/query-planner";
import {
  GraphQLError,
  GraphQLScalarType,
  TypeInfo,
  getNamedType,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isNonNullType,
  isScalarType,
  isSpecifiedScalarType,
  typeFromAST,
  validate,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLFormattedError,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import type { SubgraphName } from "../subgraphs/index.js";
import type { CachedLocalDataSource } from "./data-sources.js";

export interface DirectRoute {
  serviceName: SubgraphName;
  source: CachedLocalDataSource;
  /**
   * The subgraph's coercion of the operation's variables refuses every value the API schema's refuses
   * (`subgraphCoercionCovers`): the API schema's check is then needed only when the subgraph's refuses, to give the
   * gateway's error form, and a request with good variables is coerced once.
   */
  coercionCovers: boolean;
}

/** What a query plan says of one operation: the one subgraph it fetches from, or why the gateway is needed. */
type PlanFacts = { serviceName: string } | { reason: string };

/** Plan facts by supergraph SDL, then by operation document. */
const planFacts = new Map<string, Map<string, PlanFacts>>();

export class DirectPlanner {
  private readonly plannerSchema: ReturnType<Supergraph["apiSchema"]>;
  private readonly facts: Map<string, PlanFacts>;

  constructor(
    /** The gateway's query planner, over the supergraph `supergraphSdl` describes. */
    private readonly planner: QueryPlanner,
    supergraphSdl: string,
    /** The gateway's API schema (graphql-js), the one the shim's operations are validated against. */
    private readonly apiSchema: GraphQLSchema,
    private readonly sources: Partial<Record<SubgraphName, CachedLocalDataSource>>,
  ) {
    this.plannerSchema = planner.supergraph.apiSchema();
    let facts = planFacts.get(supergraphSdl);
    if (!facts) planFacts.set(supergraphSdl, (facts = new Map()));
    this.facts = facts;
  }

  /**
   * The subgraph that can answer `document` (parsed from `text`) alone, or why it cannot (the operation then goes
   * through the gateway).
   */
  decide(document: DocumentNode, operation: OperationDefinitionNode, text: string): DirectRoute | string {
    if (operation.operation === "subscription") return "subscription";
    let facts = this.facts.get(text);
    if (!facts) this.facts.set(text, (facts = this.plan(document)));
    if ("reason" in facts) return facts.reason;
    const serviceName = facts.serviceName;
    const local = this.sources[serviceName as SubgraphName];
    if (!local) return `subgraph ${serviceName} is not in this process`;
    const schema = local.subgraphSchema;
    if (validate(schema, document).length > 0) return `does not validate against subgraph ${serviceName}`;
    const api = signature(this.apiSchema, document);
    if (api === undefined) return "touches abstract types or introspection";
    if (signature(schema, document) !== api) return `types differ between the API schema and subgraph ${serviceName}`;
    const coercionCovers = subgraphCoercionCovers(this.apiSchema, schema, operation);
    return { serviceName: serviceName as SubgraphName, source: local, coercionCovers };
  }

  private plan(document: DocumentNode): PlanFacts {
    const node = this.planner.buildQueryPlan(operationFromDocument(this.plannerSchema, document)).node;
    if (node?.kind !== "Fetch") return { reason: `plan is ${node?.kind ?? "empty"}` };
    if (node.requires || node.inputRewrites?.length || node.outputRewrites?.length || node.contextRewrites?.length) return { reason: "fetch needs the gateway" };
    return { serviceName: node.serviceName };
  }
}

/**
 * Every type fact the answer to `document` depends on, as one string: field types and argument defaults, variable
 * types, enum values and input object fields. Undefined when the document reaches an abstract type or introspects.
 */
function signature(schema: GraphQLSchema, document: DocumentNode): string | undefined {
  const typeInfo = new TypeInfo(schema);
  const facts: string[] = [];
  const named = new Map<string, GraphQLNamedType>();
  let unsupported = false;
  const note = (type: unknown) => {
    if (!type) return;
    const base = getNamedType(type as Parameters<typeof getNamedType>[0]);
    if (base && !named.has(base.name)) {
      named.set(base.name, base);
      if (isInputObjectType(base)) for (const field of Object.values(base.getFields())) note(field.type);
    }
  };
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const name = node.name.value;
        if (name === "__schema" || name === "__type") unsupported = true;
        const def = typeInfo.getFieldDef();
        const type = typeInfo.getType();
        if (!def || !type) unsupported = true;
        const args = def?.args.map((arg) => `${arg.name}: ${String(arg.type)} = ${JSON.stringify(arg.defaultValue)}`).join(", ");
        facts.push(`${typeInfo.getParentType()?.name}.${name}(${args}): ${String(type)}`);
        note(type);
        def?.args.forEach((arg) => note(arg.type));
      },
      VariableDefinition(node) {
        const type = typeFromAST(schema, node.type as never);
        if (!type) unsupported = true;
        facts.push(`$${node.variable.name.value}: ${String(type)}`);
        note(type);
      },
    }),
  );
  for (const type of [...named.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    if (isAbstractType(type)) unsupported = true;
    if (isEnumType(type)) facts.push(`enum ${type.name} ${type.getValues().map((value) => value.name).join(" ")}`);
    if (isInputObjectType(type)) {
      const fields = Object.values(type.getFields()).map((f) => `${f.name}: ${String(f.type)} = ${JSON.stringify(f.defaultValue)}`);
      facts.push(`input ${type.name} { ${fields.join(", ")} }`);
    }
  }
  return unsupported ? undefined : facts.join("\n");
}

/** graphql-js's `parseValue` of a scalar that defines none (the API schema's custom scalars): the value as it is. */
const UNCHECKED_PARSE = new GraphQLScalarType({ name: "Unchecked" }).parseValue;

/**
 * Whether every variable value the API schema's coercion (the gateway's check) refuses, the subgraph's coercion of
 * the same values refuses too, with `signature` equal for the two schemas (same variable types, enum values, input
 * fields and defaults). Then only the scalars can differ: a specified scalar (Int, String, ...) must be the very same
 * object in both, and a custom scalar of the API schema must accept anything (the API schema is built from the
 * supergraph's SDL, so its custom scalars have no checks; the subgraph's own, DateTime, check more). A variable that
 * is non-null with a default is refused by the check when its value is `undefined` but is absent, so defaulted, on
 * the subgraph (the fetch leaves undefined values out): such an operation is not covered.
 */
function subgraphCoercionCovers(apiSchema: GraphQLSchema, subgraphSchema: GraphQLSchema, operation: OperationDefinitionNode): boolean {
  const seen = new Set<string>();
  const covered = (type: unknown): boolean => {
    const base = getNamedType(type as Parameters<typeof getNamedType>[0]);
    if (!base || seen.has(base.name)) return true;
    seen.add(base.name);
    if (isScalarType(base)) {
      return isSpecifiedScalarType(base) ? subgraphSchema.getType(base.name) === base : base.parseValue === UNCHECKED_PARSE;
    }
    if (isInputObjectType(base)) return Object.values(base.getFields()).every((field) => covered(field.type));
    return true;
  };
  return (operation.variableDefinitions ?? []).every((definition) => {
    const type = typeFromAST(apiSchema, definition.type as never);
    if (!type || (isNonNullType(type) && definition.defaultValue)) return false;
    return covered(type);
  });
}

/**
 * A subgraph's error in the form the gateway hands it on from a root fetch (@apollo/gateway executeQueryPlan.js,
 * downstreamServiceError): same message, path, extensions plus `serviceName`, a federation code when it names one,
 * DOWNSTREAM_SERVICE_ERROR when it has none.
 */
export function gatewayError(error: GraphQLFormattedError, serviceName: string): GraphQLError {
  const message = error.message || `Error while fetching subquery from service "${serviceName}"`;
  const options = {
    originalError: error as unknown as Error,
    path: error.path ? [...error.path] : undefined,
    extensions: { ...error.extensions, serviceName },
  };
  const codeDef = errorCodeDef(error);
  if (!codeDef && error.extensions?.code) return new GraphQLError(message, options);
  return (codeDef ?? ERRORS.DOWNSTREAM_SERVICE_ERROR).err(message, options);
}
