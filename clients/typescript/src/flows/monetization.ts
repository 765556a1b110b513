/**
 * The signed monetization toggle (document 2, docs/monetization.md) on either ratings deployment: read the
 * compatibility signal at GET /.well-known/<namespace>-monetization, refuse unless it is the message this client
 * builds (template, version, the deployment the client talks to, and the chain and registry the caller pinned), then
 * sign the message the signal describes (subgraphs/ratings/monetization/monetization.message.ts) and PUT it.
 */
import type { Signer } from "ethers";
import { MONETIZATION_MESSAGE_TEMPLATE, signMonetizationDecision } from "../../../../subgraphs/ratings/monetization/monetization.message.js";
import { ApiError, FlowError } from "../errors.js";
import type { Ratings2Client, VerifyClient } from "../clients.js";
import { report, type OnProgress } from "./progress.js";

export interface CompatibilitySignal {
  api: string;
  version: number;
  deployment: string;
  chain_id: number | string;
  registry: string;
  message_template: string;
  freshness: { max_age_seconds: number; max_future_seconds: number };
}

export interface MonetizationToggle {
  /** SERVICE_NAMESPACE of the platform (the DID method), e.g. `service`. */
  namespace: string;
  /** The decimal machine ID (the path key; the message names it). */
  machineId: string | bigint;
  optedIn: boolean;
  /** The machine's NFT owner, operator or a delegated event submitter. */
  signer: Signer;
  /** What the caller expects the signal to say; any difference refuses before signing. */
  expect?: { chainId?: number | string | bigint; registry?: string };
  /** Signing time (default: now). */
  timestamp?: number;
  onProgress?: OnProgress;
}

type RatingsClient = { client: VerifyClient; deployment: "1.0" } | { client: Ratings2Client; deployment: "2.0" };

/** The signal, checked; a FlowError MONETIZATION_SIGNAL_MISMATCH (or _MISSING) names what differs. */
export async function checkMonetizationSignal(ratings: RatingsClient, toggle: Pick<MonetizationToggle, "namespace" | "expect">): Promise<CompatibilitySignal> {
  const signalName = `${toggle.namespace}-monetization`;
  let signal: CompatibilitySignal;
  try {
    const answer = await (ratings.client.api as VerifyClient["api"]).GET("/.well-known/{signal}", { params: { path: { signal: signalName } } });
    signal = answer.data as unknown as CompatibilitySignal;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) throw new FlowError("MONETIZATION_SIGNAL_MISSING", `no compatibility signal at /.well-known/${signalName}`);
    throw error;
  }
  const mismatches: Record<string, unknown> = {};
  const differ = (what: string, got: unknown, want: unknown) => {
    if (String(got).toLowerCase() !== String(want).toLowerCase()) mismatches[what] = { expected: want, signal: got };
  };
  differ("api", signal.api, signalName);
  differ("version", signal.version, 1);
  differ("message_template", signal.message_template, MONETIZATION_MESSAGE_TEMPLATE);
  differ("deployment", signal.deployment, ratings.deployment);
  if (toggle.expect?.chainId !== undefined) differ("chain_id", signal.chain_id, BigInt(toggle.expect.chainId));
  if (toggle.expect?.registry !== undefined) differ("registry", signal.registry, toggle.expect.registry);
  if (Object.keys(mismatches).length > 0) {
    throw new FlowError("MONETIZATION_SIGNAL_MISMATCH", `the signal does not describe the message this client signs (${Object.keys(mismatches).join(", ")}); nothing was signed`, mismatches);
  }
  return signal;
}

/** Checks the signal, signs the decision and PUTs it: the machine's monetization state as the server answers it. */
export async function setMonetization(ratings: RatingsClient, toggle: MonetizationToggle): Promise<Record<string, unknown>> {
  const signal = await checkMonetizationSignal(ratings, toggle);
  report(toggle.onProgress, "signal", { deployment: signal.deployment, chainId: String(signal.chain_id), registry: signal.registry });
  const body = await signMonetizationDecision(toggle.signer, {
    namespace: toggle.namespace,
    registry: signal.registry,
    chainId: signal.chain_id,
    machineId: machineIdOf(toggle.machineId),
    optedIn: toggle.optedIn,
    timestamp: toggle.timestamp ?? Math.floor(Date.now() / 1000),
  });
  report(toggle.onProgress, "signed");
  const answer = await (ratings.client.api as VerifyClient["api"]).PUT("/machine/{key}/monetization", { params: { path: { key: String(toggle.machineId) } }, body });
  report(toggle.onProgress, "stored");
  return answer.data as Record<string, unknown>;
}

function machineIdOf(id: string | bigint): string {
  if (!/^[1-9]\d*$/.test(String(id))) throw new FlowError("MACHINE_ID_INVALID", `${id} is not a decimal machine ID`);
  return String(id);
}
