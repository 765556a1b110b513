/**
 * `cli stream buy <listingId> --flow purchase` (notes 3.4), with the buyer's pairing token (`--token` or
 * MARKET_PAIRING_TOKEN, from `cli market pair`):
 *   1. POST /purchases { resource: stream.listing, buyer: { publicKey x25519, deliveryCapabilities: libp2p and tcp },
 *      delivery.preferredTransports: [--transport] }: the platform negotiates a transport against the seller's live
 *      capabilities (`cli stream serve` announces both);
 *   2. POST /purchases/:id/payment-intent { rail: transfer }: its `payer` is the pairing's agent, the only address
 *      whose transfer pays the purchase; the stablecoin transfer from that agent's key (buy.ts walletOf), then
 *      POST /purchases/:id/payment-proof { rail: transfer, transactionHash };
 *   3. GET /purchases/:id/delivery: the p2p session (transport, peer addresses, a short-lived connect handoff);
 *      event buyer.connected; the chunks fetched from the seller peer to peer over the negotiated transport (a libp2p
 *      stream to the announced multiaddr, or a TCP connection to host:port) (p2p/client.ts: each manifest compared
 *      with the verified one, each chunk's size and SHA-256 checked before it is kept, resumed at its offset after an
 *      interrupted connection with a fresh handoff); event delivery.acknowledged;
 *   4. GET /purchases/:id/delivery again for the buyer access the seller prepared when the buyer connected; every
 *      chunk decrypted and checked into the files; event purchase.completed.
 */
import path from "node:path";
import { ChunkFiles, P2pError, downloadChunks, startLibp2pDialer, type DownloadOptions, type Libp2pDialer } from "../../../../subgraphs/markets/stream/p2p/index.js";
import { CliError, printResult, progress } from "../../command.js";
import { sendTransfer } from "../market/pay.js";
import type { BuyContext } from "./buy.js";
import { waitFor, walletOf } from "./buy.js";
import { decryptDataset } from "../../../../clients/typescript/src/stream/fetch.js";
import { progressBar } from "./progress.js";

const hostPort = (address: string) => {
  const match = /^([^:]+|\[[^\]]+\]):(\d{1,5})$/.exec(address);
  if (!match) throw new CliError(`peer address ${address} is not host:port`);
  return { host: match[1].replace(/^\[|\]$/g, ""), port: Number(match[2]) };
};

/** Where the session's transport connects: a libp2p stream to the first announced multiaddr, or TCP to host:port. */
async function peerOf(session: { transportId: string; peer: { addresses: string[] } }, dialer: () => Promise<Libp2pDialer>): Promise<Pick<DownloadOptions, "host" | "port" | "connect">> {
  const address = session.peer.addresses[0];
  if (session.transportId === "tcp") return hostPort(address);
  if (session.transportId === "libp2p") {
    const node = await dialer();
    return { connect: () => node.connect(address) };
  }
  throw new CliError(`the purchase negotiated transport ${session.transportId}, which this CLI does not speak`);
}

export async function buyByPurchase(c: BuyContext): Promise<void> {
  if (!c.token) throw new CliError("the purchase flow needs the buyer's pairing token: --token or MARKET_PAIRING_TOKEN (cli market pair)");
  const api = c.api.with({ "x-agent-pairing-token": c.token });
  const { verified, buyer } = c;
  const purchase = (
    await api.call("POST", "/purchases", {
      resource: { type: "stream.listing", listingId: verified.listing.id },
      buyer: {
        publicKey: { type: "x25519", publicKeyHex: buyer.publicKeyHex },
        deliveryCapabilities: ["libp2p", "tcp"].map((transportId) => ({ transportId, version: "1", features: ["resume"] })),
      },
      delivery: { acceptableModes: ["p2p"], preferredTransports: [c.transport] },
    })
  ).item;
  printResult({ step: "purchase", purchaseId: purchase.id, status: purchase.status, transportId: purchase.delivery?.transportId ?? null, price: purchase.price });
  if (purchase.status !== "payment_pending") throw new CliError(`purchase ${purchase.id} ${purchase.status}: ${purchase.failure?.code ?? "no delivery transport in common"} (is \`cli stream serve\` running for the seller?)`);
  const intent = (await api.call("POST", `/purchases/${purchase.id}/payment-intent`, { rail: "transfer" })).item.paymentIntent;
  const wallet = walletOf(intent.payer);
  progress(`pay: ${intent.amount} ${intent.currency} = ${intent.amountRaw} raw units of ${intent.destination.token} to ${intent.destination.payTo}`);
  const txHash = await sendTransfer(wallet, intent.destination.token, intent.destination.payTo, BigInt(intent.amountRaw));
  printResult({ step: "transfer", txHash });
  const paid = (await api.call("POST", `/purchases/${purchase.id}/payment-proof`, { rail: "transfer", transactionHash: txHash })).item;
  printResult({ step: "pay", purchaseId: purchase.id, status: paid.status });

  const manifests = verified.manifests.filter((m) => paid.resource.selection.chunkIds.includes(m.chunkId));
  const files = new ChunkFiles(path.join(c.outDir, ".stream-chunks"));
  const total = manifests.reduce((n, m) => n + m.encryptedSize, 0);
  const bar = progressBar("download", total);
  let connected = false;
  let result: Awaited<ReturnType<typeof downloadChunks>> | null = null;
  let transportId = purchase.delivery?.transportId ?? c.transport;
  // One libp2p node for the whole download (started on first use), stopped however it ends.
  let libp2p: Promise<Libp2pDialer> | null = null;
  const dialer = () => (libp2p ??= startLibp2pDialer());
  try {
    for (let attempt = 1; !result; attempt++) {
      // A fresh descriptor per connection: each read issues a new handoff (the previous one stops verifying).
      const descriptor = await api.call("GET", `/purchases/${purchase.id}/delivery`);
      const session = descriptor.delivery;
      if (!connected) {
        await api.call("POST", `/purchases/${purchase.id}/events`, { type: "buyer.connected", actor: { type: "buyer", id: paid.buyer.id }, data: { transportId: session.transportId } });
        connected = true;
      }
      transportId = session.transportId;
      const peer = await peerOf(session, dialer);
      try {
        result = await downloadChunks({
          ...peer,
          purchaseId: purchase.id,
          deliverySessionId: session.sessionId,
          buyerId: paid.buyer.id,
          handoff: session.handoff.token,
          transportId: session.transportId,
          manifests,
          dir: files.dir,
          onProgress: (done) => bar(done),
        });
        if (Object.keys(result.resumedFrom).length > 0) printResult({ step: "resume", purchaseId: purchase.id, resumedFrom: result.resumedFrom });
      } catch (error) {
        if (error instanceof P2pError && error.code === "DELIVERY_INCOMPLETE" && attempt < 5) {
          progress(`download interrupted (${error.message}); resuming`);
          continue;
        }
        if (error instanceof P2pError) throw new CliError(`peer-to-peer delivery refused: ${error.message}`);
        if (error instanceof Error && "code" in error && typeof (error as { code: unknown }).code === "string" && /_MISMATCH$/.test((error as { code: string }).code)) {
          throw new CliError(`chunk refused before decryption: ${error.message}`);
        }
        throw error;
      }
    }
  } finally {
    const started = libp2p as Promise<Libp2pDialer> | null;
    if (started) await (await started).stop();
  }
  printResult({ step: "download", purchaseId: purchase.id, chunks: result.files.size, encryptedBytes: total, transport: transportId });
  await api.call("POST", `/purchases/${purchase.id}/events`, { type: "delivery.acknowledged", actor: { type: "buyer", id: paid.buyer.id }, data: { transportId } });
  const withAccess = await waitFor(
    async () => {
      const d = await api.call("GET", `/purchases/${purchase.id}/delivery`);
      if (!Array.isArray(d.access) || d.access.length < manifests.length) throw new CliError("ACCESS_NOT_PREPARED");
      return d;
    },
    /ACCESS_NOT_PREPARED/,
    c.waitMs,
    `purchase ${purchase.id}`,
  );
  const written = await decryptDataset(manifests, result.files, withAccess.access, buyer, c.outDir);
  await api.call("POST", `/purchases/${purchase.id}/events`, { type: "purchase.completed", actor: { type: "buyer", id: paid.buyer.id }, data: {} });
  printResult({ step: "decrypt", purchaseId: purchase.id, files: written.files, bytes: written.bytes, outDir: c.outDir });
}
