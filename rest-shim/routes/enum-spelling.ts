/**
 * How REST spells GraphQL enum values, keyed by the GraphQL enum type, and the one response mapper that applies it.
 *
 * GraphQL enums are UPPER_CASE; the REST documents spell them `lower` (PAYMENT_PENDING -> payment_pending) or
 * `kebab` (API_KEY -> api-key). Enum types not listed here pass through unchanged: either REST documents them in
 * GraphQL's spelling, or a route's `respond` reads the GraphQL value itself (see PASS_THROUGH).
 *
 * For each operation the shim sends, the enum-typed response paths are computed once from the supergraph schema
 * (graphql's TypeInfo + visit over the operation document) and cached, with a walker per operation;
 * `restSpellingInPlace(operation, data)` rewrites the values at those paths before the route's `respond` sees the
 * data (`restSpelling` and `mapEnums` do the same on a copy). Both spellings are idempotent, so a route that still
 * lowercases a value itself writes the same bytes.
 */
import { getNamedType, isEnumType, parse, TypeInfo, visit, visitWithTypeInfo, type GraphQLSchema } from "graphql";
import type { ShimOperation } from "../executor.js";
import { supergraphSchema } from "../openapi/graphql-shapes.js";

export type EnumSpelling = "lower" | "kebab";

/** REST spelling of each GraphQL enum type the REST documents write in lowercase. */
export const ENUM_SPELLINGS: Readonly<Record<string, EnumSpelling>> = {
  // Document 1 (verify).
  VerificationStatus: "lower",
  IntakeStatus: "lower",
  // Document 2 (ratings).
  AmountStatus: "lower",
  BondStatus: "lower",
  DataVisibility: "lower",
  PartnerDataError: "lower",
  RevenueTrend: "lower",
  // Markets.
  AgentPairingStatus: "lower",
  GraphNodeStatus: "lower",
  MarketIntegrationStatus: "lower",
  MarketOrderStatus: "lower",
  MarketPaymentStatus: "lower",
  MarketPolicyStatus: "lower",
  MarketRunStatus: "lower",
  MarketTaskStatus: "lower",
  MarketMachineStatus: "kebab",
  MachineAgentStatus: "kebab",
  RuntimeAuthType: "kebab",
  RuntimeEndpointSource: "kebab",
  RuntimeEndpointStatus: "kebab",
  RuntimeNetworkScope: "kebab",
  PurchaseStatus: "lower",
  StreamDeliverySessionStatus: "lower",
  StreamListingStatus: "lower",
  StreamOrderStatus: "lower",
  StreamPolicyStatus: "lower",
  StreamSigningKeyStatus: "lower",
};

/**
 * Enum types REST writes in their GraphQL spelling on purpose (documented that way, or read by a route's `respond`
 * in GraphQL's spelling: ratings' `McrRating`, readiness, faucet steps, machine event types).
 */
export const PASS_THROUGH: ReadonlySet<string> = new Set([
  "FundingStatus",
  "HealthStatus",
  "MachineEventType",
  "McrRating",
  "MonetizationStatus",
  "RatingsDeployment",
  "ReadinessStatus",
]);

/** One GraphQL enum value in the REST spelling of its type. */
export function spell(typeName: string, value: string): string {
  const spelling = ENUM_SPELLINGS[typeName];
  if (spelling === "lower") return value.toLowerCase();
  if (spelling === "kebab") return value.toLowerCase().replace(/_/g, "-");
  return value;
}

/** Response keys down to enum-typed leaves: a nested node, or the enum type's name at a leaf. */
export interface EnumPathTree {
  readonly [responseKey: string]: EnumPathTree | string;
}

/** Every enum-typed response path of an operation document, with the enum type at each. */
export function enumPaths(document: string, schema: GraphQLSchema = supergraphSchema()): Array<{ path: string[]; type: string }> {
  const typeInfo = new TypeInfo(schema);
  const stack: string[] = [];
  const found: Array<{ path: string[]; type: string }> = [];
  visit(
    parse(document),
    visitWithTypeInfo(typeInfo, {
      Field: {
        enter(node) {
          stack.push(node.alias?.value ?? node.name.value);
          const type = typeInfo.getType();
          const named = type ? getNamedType(type) : undefined;
          if (named && isEnumType(named)) found.push({ path: [...stack], type: named.name });
        },
        leave() {
          stack.pop();
        },
      },
    }),
  );
  return found;
}

function treeOf(paths: Array<{ path: string[]; type: string }>): EnumPathTree | undefined {
  let tree: Record<string, any> | undefined;
  for (const { path, type } of paths) {
    if (ENUM_SPELLINGS[type] === undefined) continue;
    tree ??= {};
    let node = tree;
    path.forEach((key, index) => {
      if (index === path.length - 1) node[key] = type;
      else node = node[key] ??= {};
    });
  }
  return tree;
}

const trees = new Map<string, EnumPathTree | null>();

/** The operation's spelled enum paths, computed once per document. */
export function enumTreeOf(operation: ShimOperation): EnumPathTree | null {
  let tree = trees.get(operation.document);
  if (tree === undefined) {
    tree = treeOf(enumPaths(operation.document)) ?? null;
    trees.set(operation.document, tree);
  }
  return tree;
}

type Leaf = (type: string, value: string) => string;

/**
 * An operation's enum paths as a walker that rewrites values in place: each level's keys as an array and each leaf
 * as a function of its value, so a request pays one property read per path step and no object copies.
 */
type Walker = (value: unknown) => void;

function walkerOf(node: EnumPathTree, leaf: Leaf): Walker {
  const steps = Object.entries(node).map(([key, child]): [string, ((value: string) => string) | undefined, Walker | undefined] =>
    typeof child === "string" ? [key, (value) => leaf(child, value), undefined] : [key, undefined, walkerOf(child, leaf)],
  );
  const visitObject = (object: Record<string, unknown>) => {
    for (const [key, spellValue, walk] of steps) {
      const child = object[key];
      if (child === null || child === undefined) continue;
      if (spellValue === undefined) walk!(child);
      else if (typeof child === "string") object[key] = spellValue(child);
      else if (Array.isArray(child)) spellList(child, spellValue);
    }
  };
  const visit: Walker = (value) => {
    if (value === null || typeof value !== "object") return;
    if (Array.isArray(value)) for (const item of value) visit(item);
    else visitObject(value as Record<string, unknown>);
  };
  return visit;
}

/** A list of enum values (or of such lists), each rewritten in place. */
function spellList(list: unknown[], spellValue: (value: string) => string): void {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (typeof item === "string") list[i] = spellValue(item);
    else if (Array.isArray(item)) spellList(item, spellValue);
  }
}

/** The REST spelling walker of each operation, made on first use. */
const spellers = new Map<string, Walker | null>();

/**
 * The operation's `data` with every enum value in its REST spelling, rewritten in place and returned: for data the
 * caller owns outright (an executor's fresh result). The REST handler uses it on every answer.
 */
export function restSpellingInPlace(operation: ShimOperation, data: Record<string, unknown>): Record<string, unknown> {
  let walker = spellers.get(operation.document);
  if (walker === undefined) {
    const tree = enumTreeOf(operation);
    walker = tree === null ? null : walkerOf(tree, spell);
    spellers.set(operation.document, walker);
  }
  walker?.(data);
  return data;
}

/** The operation's `data` with every enum value in its REST spelling (a copy; `data` itself is left unchanged). */
export function restSpelling(operation: ShimOperation, data: Record<string, unknown>): Record<string, unknown> {
  return enumTreeOf(operation) === null ? data : restSpellingInPlace(operation, structuredClone(data));
}

/** A copy of the operation's `data` with `leaf(type, value)` at every registered enum path (the OpenAPI generator marks them). */
export function mapEnums(operation: ShimOperation, data: Record<string, unknown>, leaf: Leaf): Record<string, unknown> {
  const tree = enumTreeOf(operation);
  if (tree === null) return data;
  const copy = structuredClone(data);
  walkerOf(tree, leaf)(copy);
  return copy;
}

/** Every value of a registered enum type in its REST spelling, in the schema's order. */
export function restValues(typeName: string, schema: GraphQLSchema = supergraphSchema()): string[] {
  const type = schema.getType(typeName);
  if (!type || !isEnumType(type)) throw new Error(`${typeName} is not an enum type of the supergraph`);
  return type.getValues().map((value) => spell(typeName, value.name));
}
