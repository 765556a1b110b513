/**
 * Machine sessions for the document 3 suites: every machine-bound write needs the machine's authority
 * (docs/markets-identity.md "Machine sessions"). A suite that binds or seeds a machine opens a real session for it
 * (a controller-signed identity challenge), and the suites' request helpers send it as `Authorization: Bearer` on the
 * routes whose table entry asks for it, unless the request names its own `authorization` (an empty one sends none):
 * the suites that prove the refusals say exactly what they send.
 */
import { Wallet } from "ethers";
import { randomBytes } from "node:crypto";
import { callerRuleOf, SESSION_KINDS } from "../../rest-shim/routes/markets/http.js";
import { MARKETS_ROUTES } from "../../rest-shim/routes/markets/index.js";
import type { DemoMachine } from "../../subgraphs/shared/chain/demo-fixture.js";
import { transact } from "../ratings/helpers.js";
import { rpc } from "./chain.js";
import type { TestPlatform } from "./platform.js";

const sessions = new Map<string, string>();

/** The session token a suite opened for `machineId` (market machine IDs are random, so one map serves every suite). */
export const sessionOf = (machineId: string) => sessions.get(machineId);

const sessionRoutes = MARKETS_ROUTES.filter((route) => {
  const caller = callerRuleOf(route);
  return caller !== undefined && SESSION_KINDS.has(caller.kind);
}).map((route) => ({
  method: route.method,
  pattern: new RegExp(`^${route.path.replace(/:[A-Za-z]+/g, "[^/?]+")}(\\?.*)?$`),
}));

/**
 * The headers of a markets request with the machine's session added where the route asks for the machine's
 * authority and the suite holds a session for the machine its path or body names.
 */
export function withMachineSession(method: string, path: string, body: unknown, headers: Record<string, string>): Record<string, string> {
  if ("authorization" in headers) {
    const { authorization, ...rest } = headers;
    return authorization === "" ? rest : headers;
  }
  const full = path.startsWith("/api/v1") ? path : `/api/v1${path}`;
  if (!sessionRoutes.some((route) => route.method === method && route.pattern.test(full))) return headers;
  const named = /\/machines\/(mach_[0-9a-f]{24})/.exec(full)?.[1] ?? bodyMachineId(body);
  const token = named === undefined ? undefined : sessions.get(named);
  return token === undefined ? headers : { ...headers, authorization: `Bearer ${token}` };
}

function bodyMachineId(body: unknown): string | undefined {
  let value = body;
  if (typeof body === "string") {
    try {
      value = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  const id = (value as { machineId?: unknown } | null)?.machineId;
  return typeof id === "string" ? id : undefined;
}

/** Opens a session for `machineId` with a challenge of `identityRef` signed by `key`, and remembers it. */
export async function openMachineSession(p: TestPlatform, machineId: string, identityRef: string, key: string): Promise<string> {
  const post = (path: string, body: unknown) =>
    fetch(`${p.markets}/api/v1${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const challenge = await post("/machine-identity/challenges", { identityRef });
  if (challenge.status !== 201) throw new Error(`identity challenge: ${challenge.status} ${await challenge.text()}`);
  const { challengeId, message } = (await challenge.json()).item;
  const signature = await new Wallet(key).signMessage(message);
  const opened = await post("/machine-identity/sessions", { machineId, identityProof: { challengeId, signature } });
  if (opened.status !== 201) throw new Error(`machine session: ${opened.status} ${await opened.text()}`);
  const token = (await opened.json()).item.sessionToken as string;
  sessions.set(machineId, token);
  return token;
}

/** Next on-chain machine ID a suite registers (far above the demo fixture's). */
let nextOnChainId = 700_000 + Math.floor(Math.random() * 100_000) * 10;

export interface FreshIdentity {
  machineId: string;
  did: string;
  controllerAddress: string;
  controllerPrivateKey: string;
}

/** A machine registered on the platform's chain now, its new owner (the controller) holding a fresh key. */
export async function registerFreshIdentity(p: TestPlatform): Promise<FreshIdentity> {
  const id = nextOnChainId++;
  const owner = Wallet.createRandom();
  const device = Wallet.createRandom();
  await transact(p, "MachineRegistry", (registry) =>
    registry.registerMachine!(id, device.address, owner.address, owner.address, 0, p.demo.chainId, `0x${"00".repeat(32)}`),
  );
  // Gas for the owner's own transactions (a controller change, say).
  await rpc(p, "anvil_setBalance", [owner.address, "0x56bc75e2d63100000"]);
  return { machineId: String(id), did: `did:${p.config.namespace.didMethod}:${id}`, controllerAddress: owner.address, controllerPrivateKey: owner.privateKey };
}

export interface SeedState {
  status?: string;
  identityVerified?: boolean;
  /** A demo machine to bind instead of a freshly registered one. */
  demo?: DemoMachine;
}

/**
 * A market machine row the way the machine service leaves it after a verified create (the identity flow itself is
 * proven by the machine suites), bound to a real identity on the platform's chain, with a session of its controller.
 */
/**
 * A stored identity proof of the shape a real verification writes (every field the MachineIdentityProof type
 * declares non-null), so the record reads and writes through GraphQL and REST like one bound with a signed challenge.
 * Its challenge ID names no challenge row: nothing reads the challenge back once the proof is stored.
 */
function seededProof(p: TestPlatform, identity: FreshIdentity, now: Date) {
  return {
    method: "eip191",
    identityRef: identity.did,
    signerAddress: identity.controllerAddress,
    challengeId: `mic_${randomBytes(12).toString("hex")}`,
    verifiedAt: now.toISOString(),
    challengeExpiresAt: now.toISOString(),
    controllerAddresses: [identity.controllerAddress],
    resolutionSource: `${p.config.namespace.didMethod}-mcr`,
  };
}

export async function seedBoundMachine(p: TestPlatform, state: SeedState = {}): Promise<{ id: string; identity: FreshIdentity }> {
  const identity: FreshIdentity = state.demo
    ? { machineId: state.demo.machineId, did: state.demo.did, controllerAddress: state.demo.controllerAddress, controllerPrivateKey: state.demo.controllerPrivateKey }
    : await registerFreshIdentity(p);
  const id = `mach_${randomBytes(12).toString("hex")}`;
  const now = new Date();
  const verified = state.identityVerified ?? true;
  await p.platform.database!.prisma.marketMachine.create({
    data: {
      id,
      displayName: "Test machine",
      status: state.status ?? "active",
      ownerId: identity.controllerAddress,
      identityRef: identity.did,
      onChainMachineId: identity.machineId,
      identityProof: verified ? seededProof(p, identity, now) : undefined,
      identityVerified: verified,
      machineType: "robot",
      runtimeProfile: "default",
      capabilities: [],
      policyIds: [],
      skillKeys: [],
      labels: {},
      createdAt: now,
      updatedAt: now,
    },
  });
  await openMachineSession(p, id, identity.did, identity.controllerPrivateKey);
  return { id, identity };
}
