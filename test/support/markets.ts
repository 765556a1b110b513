/**
 * Helpers for document 3 suites: REST calls on the markets listener, and market machines in a given state.
 *
 * `seedMarketMachine` writes the machine row the way the machine service leaves it after a verified create (the
 * identity flow itself is proven by the machine suites); suites of other families use it to get an active,
 * identity-verified machine (or one that is not) without repeating the signing dance.
 */
import { randomBytes } from "node:crypto";
import { withMachineSession } from "./machine-sessions.js";
import type { Database } from "../../subgraphs/shared/db/index.js";
import { MachineGuard, type IdentityVerdicts } from "../../subgraphs/markets/common/machine.guard.js";
import { MarketsStore } from "../../subgraphs/markets/common/store.js";

export interface MarketsResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/**
 * One request to `<markets>/api/v1<path>`; a JSON body is sent with its content type, and the machine's session where
 * the route asks for it (support/machine-sessions.ts).
 */
export async function marketsCall(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<MarketsResponse> {
  const sent = withMachineSession(method, path, body, headers);
  const response = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: body === undefined ? sent : { "content-type": "application/json", ...sent },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

export interface SeededMachine {
  id: string;
}

export async function seedMarketMachine(
  db: Database,
  state: { status?: string; identityVerified?: boolean; onChainMachineId?: string } = {},
): Promise<SeededMachine> {
  const id = `mach_${randomBytes(12).toString("hex")}`;
  const now = new Date();
  const onChain = state.onChainMachineId ?? String(1_000_000 + Math.floor(Math.random() * 1_000_000));
  await db.prisma.marketMachine.create({
    data: {
      id,
      displayName: "Test machine",
      status: state.status ?? "active",
      ownerId: "owner-test",
      identityRef: `peaqos:machine:${onChain}:${id}`,
      onChainMachineId: onChain,
      identityProof: state.identityVerified === false ? undefined : { method: "eip191", seeded: true },
      identityVerified: state.identityVerified ?? true,
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
  return { id };
}

/**
 * The chain's answer for the identities `seedMarketMachine` invents, in suites that run the markets services on a
 * database alone: they hold while the suite says so. The chain side of global rule 1 (a controller change stopping a
 * machine) is proven against the embedded chain by the machine-guard and machine-session suites.
 */
export const seededIdentities = { holds: true };
const SEEDED_VERDICTS: IdentityVerdicts = {
  controls: async () => seededIdentities.holds,
  resolves: async () => seededIdentities.holds,
};

/** A markets store over `db` whose guard reads seeded identities (database-only suites). */
export function seededStore(db: Database): MarketsStore {
  return new MarketsStore(db, () => {}, new MachineGuard(SEEDED_VERDICTS));
}
