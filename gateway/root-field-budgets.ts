/**
 * The per-IP budget of every GraphQL root field, derived from the REST route table so one budget holds whichever
 * door a caller uses:
 *
 * - a root field that a route's operation selects counts against that route's `rateLimits` (the same counter names,
 *   so `machineVerification` over GraphQL and `GET /v1/verify/machines/{id}` spend one budget); a route that counts
 *   only requests with a valid onboarding token (its token check runs before its limits) makes the field count only
 *   such requests, so a caller without the token cannot spend an integrator's budget on either door;
 * - a root field without a route, or whose routes are unlimited (the probes, which kubelets call on REST), counts
 *   against the per-IP limit of its subgraph's API family (`FAMILY_LIMIT`).
 *
 * New routes and root fields need no work here: a route entry brings its limits, a root field its subgraph's.
 */
import { Kind, parse, type ConstDirectiveNode, type DocumentNode, type FieldNode, type OperationDefinitionNode, type SelectionSetNode } from "graphql";
import type { SubgraphName } from "../subgraphs/index.js";
import { ROUTES, type RateLimitName, type RouteDefinition } from "../rest-shim/routes.js";

/** Root fields without a limited route count against their API family's per-IP limit. */
export const FAMILY_LIMIT: Record<SubgraphName, RateLimitName> = {
  verify: "verifyApiPerIp",
  ratings: "ratingsPerIp",
  markets: "marketsPerIp",
};

export interface RootFieldBudget {
  readonly limits: readonly RateLimitName[];
  /** Counted only when the request carries a valid onboarding token (as its REST route counts). */
  readonly onlyWithOnboardingToken: boolean;
}

/** `Query.health`, `Mutation.createChipChallenge`: operation type and field name. */
export type RootFieldKey = `${"Query" | "Mutation" | "Subscription"}.${string}`;

const ROOT_TYPES = { query: "Query", mutation: "Mutation", subscription: "Subscription" } as const;

/** The root fields an operation selects, one entry per selection (each alias counts), through fragments. */
export function selectedRootFields(operation: OperationDefinitionNode, document: DocumentNode): RootFieldKey[] {
  const fragments = new Map(
    document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d.selectionSet] as const),
  );
  const type = ROOT_TYPES[operation.operation];
  const fields: RootFieldKey[] = [];
  const visit = (selectionSet: SelectionSetNode, seen: Set<string>) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!selection.name.value.startsWith("__")) fields.push(`${type}.${(selection as FieldNode).name.value}`);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet, seen);
      } else if (!seen.has(selection.name.value)) {
        const fragment = fragments.get(selection.name.value);
        if (fragment) visit(fragment, new Set([...seen, selection.name.value]));
      }
    }
  };
  visit(operation.selectionSet, new Set());
  return fields;
}

/** The `graph:` argument of each of these join directives. */
function graphsOf(directives: readonly ConstDirectiveNode[] | undefined, name: string): string[] {
  return (directives ?? [])
    .filter((directive) => directive.name.value === name)
    .map((directive) => directive.arguments?.find((argument) => argument.name.value === "graph")?.value)
    .flatMap((value) => (value?.kind === Kind.ENUM ? [value.value.toLowerCase()] : []));
}

/**
 * Each root field of the supergraph with the subgraph that resolves it: its `@join__field(graph:)`, or, on a root
 * type only one subgraph contributes to, that type's `@join__type(graph:)`.
 */
export function supergraphRootFields(supergraphSdl: string): Map<RootFieldKey, SubgraphName> {
  const fields = new Map<RootFieldKey, SubgraphName>();
  for (const definition of parse(supergraphSdl).definitions) {
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION) continue;
    const type = definition.name.value;
    if (type !== "Query" && type !== "Mutation" && type !== "Subscription") continue;
    const typeGraphs = graphsOf(definition.directives, "join__type");
    for (const field of definition.fields ?? []) {
      const fieldGraphs = graphsOf(field.directives, "join__field");
      const graph = fieldGraphs[0] ?? (typeGraphs.length === 1 ? typeGraphs[0] : undefined);
      if (graph === undefined) throw new Error(`supergraph root field ${type}.${field.name.value} names no subgraph`);
      fields.set(`${type}.${field.name.value}`, graph as SubgraphName);
    }
  }
  return fields;
}

export function rootFieldBudgets(supergraphSdl: string, routes: readonly RouteDefinition[] = ROUTES): Map<RootFieldKey, RootFieldBudget> {
  const fromRoutes = new Map<RootFieldKey, { limits: Set<RateLimitName>; tokenOnly: boolean }>();
  for (const route of routes) {
    const document = parse(route.operation.document);
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      for (const field of selectedRootFields(definition, document)) {
        const entry = fromRoutes.get(field) ?? { limits: new Set<RateLimitName>(), tokenOnly: true };
        for (const name of route.rateLimits) entry.limits.add(name);
        entry.tokenOnly &&= route.rules.onboardingToken === true;
        fromRoutes.set(field, entry);
      }
    }
  }
  const budgets = new Map<RootFieldKey, RootFieldBudget>();
  for (const [field, subgraph] of supergraphRootFields(supergraphSdl)) {
    const routed = fromRoutes.get(field);
    const limits = routed && routed.limits.size > 0 ? [...routed.limits] : [FAMILY_LIMIT[subgraph]];
    budgets.set(field, { limits, onlyWithOnboardingToken: routed?.tokenOnly ?? false });
  }
  return budgets;
}
