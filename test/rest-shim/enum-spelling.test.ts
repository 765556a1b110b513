/**
 * The REST spelling of GraphQL enums (rest-shim/routes/enum-spelling.ts): the mapper itself, and a walk over every route's
 * operation proving each enum-typed response path is either spelled by the registry or deliberately passed through,
 * so a new enum cannot reach REST in UPPER_CASE unnoticed.
 */
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../rest-shim/routes.js";
import { enumPaths, ENUM_SPELLINGS, PASS_THROUGH, restSpelling, restSpellingInPlace, spell } from "../../rest-shim/routes/enum-spelling.js";
import { sampleData, supergraphSchema } from "../../rest-shim/openapi/graphql-shapes.js";
import { isEnumType } from "graphql";

describe("enum spelling registry", () => {
  it("spells lower and kebab, and passes unlisted types through", () => {
    expect(spell("MarketTaskStatus", "PAYMENT_PENDING")).toBe("payment_pending");
    expect(spell("RuntimeAuthType", "API_KEY")).toBe("api-key");
    expect(spell("McrRating", "AA")).toBe("AA");
    expect(spell("NoSuchEnum", "X_Y")).toBe("X_Y");
    // Idempotent: a value already in REST spelling stays as it is.
    expect(spell("MarketTaskStatus", spell("MarketTaskStatus", "PAYMENT_PENDING"))).toBe("payment_pending");
    expect(spell("RuntimeAuthType", "api-key")).toBe("api-key");
  });

  it("lists only enum types the supergraph has", () => {
    const schema = supergraphSchema();
    for (const name of [...Object.keys(ENUM_SPELLINGS), ...PASS_THROUGH]) expect(isEnumType(schema.getType(name)), name).toBe(true);
  });

  it("rewrites enum paths through aliases, lists, inline fragments and nulls, and leaves other fields alone", () => {
    const operation = {
      name: "T",
      document: `query T { page: machineTasks(machineId: "1") { items { id s: status } } }`,
    };
    const paths = enumPaths(operation.document);
    expect(paths).toEqual([{ path: ["page", "items", "s"], type: "MarketTaskStatus" }]);
    const data = { page: { items: [{ id: "A_B", s: "PAYMENT_PENDING" }, { id: "x", s: null }] } };
    expect(restSpelling(operation, data)).toEqual({ page: { items: [{ id: "A_B", s: "payment_pending" }, { id: "x", s: null }] } });
    // The input is not modified.
    expect(data.page.items[0]!.s).toBe("PAYMENT_PENDING");
    expect(restSpelling(operation, { page: null })).toEqual({ page: null });
  });

  it("rewrites in place to the same values, lists of enums included", () => {
    const operation = { name: "T", document: `query T { page: machineTasks(machineId: "1") { items { id s: status } } }` };
    const data = { page: { items: [{ id: "A_B", s: "PAYMENT_PENDING" }, { id: "x", s: null }] } };
    expect(restSpellingInPlace(operation, data)).toBe(data);
    expect(data).toEqual({ page: { items: [{ id: "A_B", s: "payment_pending" }, { id: "x", s: null }] } });
  });
});

describe("the in-place rewrite the REST handler uses", () => {
  it("spells the value at every registered enum path of every route's sample data (full and sparse), and nothing else", () => {
    let spelled = 0;
    for (const route of ROUTES) {
      // As the OpenAPI probe does: a route's documented results where it has them (abstract types), else samples.
      const samples = route.documentedResults ?? (["full", "sparse"] as const).map((variant) => () => sampleData(route.operation, variant));
      const paths = enumPaths(route.operation.document).filter(({ type }) => ENUM_SPELLINGS[type] !== undefined);
      for (const [index, sample] of samples.entries()) {
        const fresh = () => structuredClone(typeof sample === "function" ? sample() : sample) as Record<string, unknown>;
        // Sample data cannot be built for selections on abstract types without documented results (the probe skips
        // those too); their enum paths are walked by the route suites.
        if (!samplable(fresh)) continue;
        const original = fresh();
        const data = fresh();
        expect(restSpellingInPlace(route.operation, data)).toBe(data);
        const name = `${route.method} ${route.path} (sample ${index})`;
        for (const { path, type } of paths) {
          const before = valuesAt(original, path);
          expect(valuesAt(data, path), `${name}: ${path.join(".")}`).toEqual(before.map((value) => (typeof value === "string" ? spell(type, value) : value)));
          spelled += before.filter((value) => typeof value === "string" && value !== spell(type, value)).length;
        }
        // Outside the enum paths nothing changed.
        const unspelled = (value: Record<string, unknown>) => {
          const copy = structuredClone(value);
          for (const { path } of paths) clearAt(copy, path);
          return copy;
        };
        expect(unspelled(data), name).toEqual(unspelled(original));
      }
    }
    // The walk reached enum values (sample data carries each enum's first value, UPPER_CASE).
    expect(spelled).toBeGreaterThan(50);
  });
});

/** Every value found along `path` (lists flattened at every step). */
function valuesAt(value: unknown, path: string[]): unknown[] {
  if (Array.isArray(value)) return value.flatMap((item) => valuesAt(item, path));
  if (path.length === 0) return [value];
  if (value === null || typeof value !== "object") return [];
  return valuesAt((value as Record<string, unknown>)[path[0]!], path.slice(1));
}

/** Sets the leaves at `path` to null, in place. */
function clearAt(value: unknown, path: string[]): void {
  if (Array.isArray(value)) return value.forEach((item) => clearAt(item, path));
  if (value === null || typeof value !== "object" || path.length === 0) return;
  const object = value as Record<string, unknown>;
  if (path.length === 1) {
    if (path[0]! in object) object[path[0]!] = null;
  } else clearAt(object[path[0]!], path.slice(1));
}

describe("every REST route's enum-typed response paths", () => {
  it("have a registry entry or are deliberately passed through", () => {
    const leaks: string[] = [];
    for (const route of ROUTES) {
      for (const { path, type } of enumPaths(route.operation.document)) {
        if (ENUM_SPELLINGS[type] === undefined && !PASS_THROUGH.has(type)) leaks.push(`${route.method} ${route.path}: ${path.join(".")} (${type})`);
      }
    }
    expect(leaks).toEqual([]);
  });
});

function samplable(build: () => unknown): boolean {
  try {
    build();
    return true;
  } catch {
    return false;
  }
}
