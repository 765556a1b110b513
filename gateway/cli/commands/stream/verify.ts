/**
 * `cli stream verify <listingId>` (buyer, before paying): the listing's manifests and the machine's registered
 * signing keys (GET /stream/listings/:listingId/chunks) are checked with the formats library's verifyChain: each
 * manifest's shape, chunkId, signer (a key registered for the machine, the machine's own DID; a revoked key only for
 * chunks registered before its revocation, SIGNING_KEY_REVOKED otherwise) and Ed25519 signature, and the chain of
 * chunkIds; the manifests must be exactly the listing's chunks, in its order. The key a
 * manifest names in its own signature is never trusted by itself. A refusal names the check's code and the chunk
 * (exit 1); nothing is ordered or paid.
 */
import { verifyListing, type VerifiedListing } from "../../../../clients/typescript/src/stream/verify.js";
import { UsageError, parseOptions, printResult } from "../../command.js";
import { StreamApi, apiBase } from "./api.js";

export { verifyListing, type VerifiedListing };

export const VERIFY_USAGE = `Usage: cli stream verify <listingId> [--api http://127.0.0.1:<MARKETS_PORT>]
Checks every manifest of the listing (shape, chunkId, registered signer, signature) and the chain, before buying.`;

export async function verifyCommand(args: string[]): Promise<void> {
  const [listingId, ...rest] = args;
  if (listingId === "--help" || listingId === "-h") return void process.stdout.write(`${VERIFY_USAGE}\n`);
  if (listingId === undefined || listingId.startsWith("--")) throw new UsageError(`missing <listingId>\n\n${VERIFY_USAGE}`);
  const o = parseOptions(rest, { api: { type: "string" } }, VERIFY_USAGE);
  if (!o) return;
  const { listing, manifests } = await verifyListing(new StreamApi(apiBase(o.api)), listingId);
  printResult({
    step: "verify",
    listingId,
    machineId: listing.machineId,
    chunks: manifests.length,
    encryptedBytes: manifests.reduce((n, m) => n + m.encryptedSize, 0),
    signers: [...new Set(manifests.map((m) => m.signature.keyId))],
    verified: true,
  });
}
