/**
 * Seller commands that take something off sale, with the machine agent's credential of the seller file:
 *   `cli stream deactivate <listingId>`   POST /machines/:machineId/stream/listings/:listingId/deactivate
 *   `cli stream reactivate <listingId>`   POST /machines/:machineId/stream/listings/:listingId/reactivate
 *   `cli stream revoke-key [<keyId>]`     POST /machines/:machineId/stream/signing-keys/:keyId/revoke
 * (default keyId: the seller file's own key). Each prints the listing's or key's new state as one JSON line; a
 * refusal names the platform's code (exit 1). After a revocation the platform refuses new chunks signed by that key
 * (SIGNING_KEY_REVOKED); revoking the seller file's own key therefore drops it from the file, so the next `publish`
 * generates and registers a new key and continues the chain under it.
 */
import { UsageError, parseOptions, printResult } from "../../command.js";
import { StreamApi, agentHeaders, apiBase, loadSeller, saveSeller } from "./api.js";

const OPTIONS = "[--seller <file>] [--api http://127.0.0.1:<MARKETS_PORT>]";

export const DEACTIVATE_USAGE = `Usage: cli stream deactivate <listingId> ${OPTIONS}
Takes the listing off sale: out of the listings and the service catalogue; new orders and purchases are refused.`;
export const REACTIVATE_USAGE = `Usage: cli stream reactivate <listingId> ${OPTIONS}
Puts a deactivated listing back on sale and in the service catalogue.`;
export const REVOKE_KEY_USAGE = `Usage: cli stream revoke-key [<keyId>] ${OPTIONS}
Revokes the machine's signing key (default: the seller file's key): no new chunk is accepted under it; chunks
registered before the revocation stay valid.`;

function argsOf(args: string[], usage: string, required: boolean) {
  const [first, ...rest] = args;
  if (first === "--help" || first === "-h") return void process.stdout.write(`${usage}\n`);
  const positional = first !== undefined && !first.startsWith("--") ? first : undefined;
  if (required && positional === undefined) throw new UsageError(`missing argument\n\n${usage}`);
  const o = parseOptions(positional === undefined ? args : rest, { seller: { type: "string" }, api: { type: "string" } }, usage);
  return o ? { positional, o } : undefined;
}

async function setListing(args: string[], action: "deactivate" | "reactivate", usage: string): Promise<void> {
  const parsed = argsOf(args, usage, true);
  if (!parsed) return;
  const seller = await loadSeller(parsed.o.seller);
  const api = new StreamApi(apiBase(parsed.o.api)).with(agentHeaders(seller));
  const listingId = parsed.positional!;
  const item = (await api.call("POST", `/machines/${seller.data.machineId}/stream/listings/${encodeURIComponent(listingId)}/${action}`, {})).item;
  printResult({ step: action, listingId: item.id, machineId: item.machineId, status: item.status });
}

export const deactivateCommand = (args: string[]) => setListing(args, "deactivate", DEACTIVATE_USAGE);
export const reactivateCommand = (args: string[]) => setListing(args, "reactivate", REACTIVATE_USAGE);

export async function revokeKeyCommand(args: string[]): Promise<void> {
  const parsed = argsOf(args, REVOKE_KEY_USAGE, false);
  if (!parsed) return;
  const seller = await loadSeller(parsed.o.seller);
  const api = new StreamApi(apiBase(parsed.o.api)).with(agentHeaders(seller));
  const keyId = parsed.positional ?? seller.data.keyId!;
  const item = (await api.call("POST", `/machines/${seller.data.machineId}/stream/signing-keys/${encodeURIComponent(keyId)}/revoke`, {})).item;
  const own = keyId === seller.data.keyId;
  if (own) {
    delete seller.data.keyId;
    delete seller.data.signingSecretKeyHex;
    seller.data.signingKeyRegistered = false;
    await saveSeller(seller);
  }
  printResult({ step: "revoke-key", machineId: item.machineId, keyId: item.keyId, status: item.status, revokedAt: item.revokedAt, sellerFileKeyDropped: own });
}
