/**
 * One example request per route, filled from the demo fixture (`<dataDir>/demo.json`) so it names things the
 * platform seeded: path parameters by name, the markets routes' own samples (`machineRuleOf(route).sample`, the
 * requests test/markets/machines/machine-guard.test.ts proves pass every other check), and bodies of the other families.
 */
import type { DemoFixture } from "../../subgraphs/shared/chain/demo-fixture.js";
import type { RouteDefinition } from "../route-definition.js";
import { machineRuleOf } from "../routes/markets/http.js";

export interface ExampleRequest {
  /** The request path with every parameter filled (percent-encoded). */
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body, for routes that take one. */
  readonly body?: unknown;
}

/** Values of path parameters by name, from the fixture. */
function parameterValues(demo: DemoFixture | undefined): Record<string, string> {
  if (!demo) return { machineId: "1", did: "did:example:1", key: "did:example:1", token_id: "1", machine_id: "1", signal: "machine-economy.json" };
  const active = demo.machines.find((machine) => machine.state === "active")!;
  const rated = demo.ratings.machines.find((machine) => machine.tokenId !== null)!;
  const bound = demo.ratings.altchainBindings.find((binding) => binding.status === "bound")!;
  return {
    machineId: active.machineId,
    did: rated.did,
    key: rated.did,
    token_id: rated.tokenId!,
    machine_id: rated.machineId,
    altchain_addr: bound.altchainKey,
    signal: "machine-economy.json",
    providerKey: demo.markets?.provider.providerKey ?? "demo",
  };
}

/** Bodies of routes outside document 3 (whose samples come with the route); keyed `METHOD path`. */
function otherBodies(machineId: string): Record<string, unknown> {
  return {
    "POST /v1/verify/chip/challenge": { machineId },
    // Real evidence is signed by the chip over a fresh challenge; this example shows the refusal of a bare object.
    "POST /v1/verify/chip/evidence": {},
    "PUT /machine/:key/monetization": {},
    "POST /2fa/setup": {},
    "POST /2fa/confirm": {},
    "POST /faucet/fund": {},
  };
}

const fill = (value: unknown, machineId: string): unknown =>
  JSON.parse(JSON.stringify(value ?? null).replaceAll("{machineId}", machineId));

/** `demo` undefined (a platform on an external chain) gives placeholder values. */
export function exampleRequest(route: RouteDefinition, demo: DemoFixture | undefined): ExampleRequest {
  const values = parameterValues(demo);
  const sample = (() => {
    const rule = machineRuleOf(route);
    return rule?.kind === "guarded" ? rule.sample : undefined;
  })();
  const params: Record<string, string> = {};
  const path = route.path.replace(/:([A-Za-z_]+)/g, (_match, name: string) => {
    params[name] = sample?.params?.[name] ?? values[name] ?? "example";
    return encodeURIComponent(params[name]!);
  });
  const headers: Record<string, string> = { accept: "application/json" };
  if (route.rules.onboardingToken && demo?.onboardingToken) headers.authorization = `Bearer ${demo.onboardingToken}`;
  const query = (fill(sample?.query ?? {}, values.machineId!) ?? {}) as Record<string, string>;
  if (!route.rules.jsonBody) return { path, params, query, headers };
  headers["content-type"] = "application/json";
  const body = sample?.body !== undefined ? fill(sample.body, values.machineId!) : (otherBodies(values.machineId!)[`${route.method} ${route.path}`] ?? {});
  return { path, params, query, headers, body };
}
