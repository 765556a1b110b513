/**
 * The machine's authority for the CLI's machine-bound writes (docs/markets-identity.md "Machine sessions"): a fresh
 * identity challenge of the machine's identityRef, signed by a controller key, opens a session whose token the CLI
 * sends as `Authorization: Bearer`. The key: `--key`, else MACHINE_CONTROLLER_PRIVATE_KEY, else the demo controller of
 * `<DATA_DIR>/demo.json` for that identity (the embedded demo chain). One session per machine and process.
 */
import { Wallet } from "ethers";
import { readDemoFixture } from "../../subgraphs/shared/chain/demo-fixture.js";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { CliError } from "./command.js";
import { marketsClient, send } from "./platform.js";

const opened = new Map<string, Promise<string>>();

export interface OpenedSession {
  sessionId: string;
  machineId: string;
  controllerAddress: string;
  sessionToken: string;
  issuedAt: string;
  expiresAt: string;
}

/** The controller key for `identityRef`: given, from the environment, or the demo fixture's. */
function controllerKey(identityRef: string, given: string | undefined): string {
  const key = given ?? process.env.MACHINE_CONTROLLER_PRIVATE_KEY;
  if (key) return key;
  const demo = readDemoFixture(loadConfig().dataDir);
  const machine = demo?.machines.find((m) => m.did === identityRef || m.did.replace(/^did:([^:]+):/, "$1:machine:") === identityRef);
  if (!machine) throw new CliError(`no controller key for ${identityRef}: give --key or MACHINE_CONTROLLER_PRIVATE_KEY`);
  return machine.controllerPrivateKey;
}

/** The session token for `machineId` on the markets API at `apiBase` (the listener's origin, `http://host:port`). */
export function machineSession(apiBase: string, machineId: string, key?: string): Promise<string> {
  const cacheKey = `${apiBase} ${machineId}`;
  let session = opened.get(cacheKey);
  if (!session) {
    session = openMachineSession(apiBase, machineId, key).then((item) => item.sessionToken);
    opened.set(cacheKey, session);
    session.catch(() => opened.delete(cacheKey));
  }
  return session;
}

/** A new session for `machineId`: the answer of `POST /machine-identity/sessions`. */
export async function openMachineSession(apiBase: string, machineId: string, key: string | undefined): Promise<OpenedSession> {
  const client = marketsClient(apiBase);
  const record = await send(client, "GET", `/machines/${encodeURIComponent(machineId)}`);
  const recordBody = record.body;
  if (record.status !== 200) throw new CliError(`machine ${machineId}: ${record.status} ${recordBody?.error?.code ?? ""}`);
  const identityRef = recordBody.item.identityRef as string | null;
  if (!identityRef) throw new CliError(`machine ${machineId} has no identityRef: no controller can act for it`);
  const wallet = new Wallet(controllerKey(identityRef, key));
  const challenge = await send(client, "POST", "/machine-identity/challenges", { body: { identityRef } });
  if (challenge.status !== 201) throw new CliError(`identity challenge refused: ${challenge.status} ${challenge.body?.error?.code ?? ""}`);
  const signature = await wallet.signMessage(challenge.body.item.message);
  const session = await send(client, "POST", "/machine-identity/sessions", { body: { machineId, identityProof: { challengeId: challenge.body.item.challengeId, signature } } });
  if (session.status !== 201) throw new CliError(`machine session refused: ${session.status} ${session.body?.error?.code ?? ""}`);
  return session.body.item as OpenedSession;
}
