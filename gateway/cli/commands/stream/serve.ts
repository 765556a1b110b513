/**
 * `cli stream serve` (seller agent loop):
 * - polls the machine's delivery sessions (POST /stream/delivery-sessions/poll) and, for each one `requested`,
 *   re-wraps the bought chunks' keys to the buyer's X25519 key (formats library createBuyerAccess: opens the machine's
 *   own sealed key, checks it against the signed commitment, seals it to the buyer) and posts them
 *   (POST /stream/orders/:orderId/prepare-access, or POST /purchases/:purchaseId/prepare-access);
 * - unless --no-p2p, runs the peer-to-peer delivery server over the seller's own chunk store (written by
 *   `stream publish`) on both transports, `libp2p` (TCP + Noise + Yamux, p2p/libp2p.ts) and plain `tcp`
 *   (p2p/server.ts), announces them (PUT /machines/:machineId/delivery-capabilities) and checks every buyer's connect
 *   handoff with the platform (POST /stream/delivery-sessions/handoff/verify) before sending a byte.
 * One JSON line per prepared session and per delivery; --once does one poll round and exits (no p2p).
 */
import path from "node:path";
import { LocalChunkStorage, createBuyerAccess, fromHex } from "../../../../subgraphs/markets/stream/index.js";
import {
  P2P_ENCODING, P2P_PROTOCOL, P2pError, createDeliveryHandler, loadOrCreatePeerKey, PeerKeyError, startDeliveryServer, startLibp2pDeliveryServer, type ChunkRequestFrame, type DeliveryGrant, type DeliveryServerOptions,
} from "../../../../subgraphs/markets/stream/p2p/index.js";
import { loadConfig } from "../../../../subgraphs/shared/config.js";
import { CliError, UsageError, parseOptions, printResult, progress } from "../../command.js";
import { StreamApi, agentBody, agentHeaders, apiBase, loadSeller, type Seller } from "./api.js";
import { verifyListing } from "./verify.js";

export const SERVE_USAGE = `Usage: cli stream serve [--seller <file>] [--once] [--interval 1] [--no-p2p] [--p2p-host 127.0.0.1] [--p2p-port 0]
                        [--libp2p-port 0] [--peer-key <DATA_DIR>/stream-seller-peer.key] [--api http://127.0.0.1:<MARKETS_PORT>]
The seller's agent: prepares buyers' access for paid orders and purchases (keys re-wrapped to the buyer) and serves
purchases peer to peer (frames of /peaqos/stream/chunk/1.0.0 over libp2p on --libp2p-port and over plain TCP on
--p2p-port) after checking each buyer's connect handoff. The libp2p peer key is kept in --peer-key (created 0600 on
first serve), so the peer ID buyers pin stays the same across serves.`;

/** The seller's own copy of its ciphertext, which its delivery server reads: <DATA_DIR>/stream-seller-store. */
export const sellerStore = () => new LocalChunkStorage(path.join(loadConfig().dataDir, "stream-seller-store"));
/** Where the seller's libp2p peer key is kept unless --peer-key names a file. */
export const sellerPeerKeyFile = () => path.join(loadConfig().dataDir, "stream-seller-peer.key");
export const SELLER_BUCKET = "seller";
export const sellerRef = (chunkId: string) => `local:${SELLER_BUCKET}/${chunkId.slice("sha256:".length)}`;

interface Session {
  id: string;
  orderId?: string | null;
  purchaseId?: string | null;
  buyerId: string;
  buyerPublicKeyHex: string;
  chunkIds: string[];
  status: string;
}

/** Manifests of the machine's listings, by chunkId (fetched from the listing a session's order names). */
const manifestCache = new Map<string, import("../../../../subgraphs/markets/stream/index.js").ChunkManifest>();

async function manifestsFor(api: StreamApi, listingId: string, chunkIds: string[]) {
  if (chunkIds.some((id) => !manifestCache.has(id))) {
    for (const m of (await verifyListing(api, listingId)).manifests) manifestCache.set(m.chunkId, m);
  }
  return chunkIds.map((id) => {
    const m = manifestCache.get(id);
    if (!m) throw new CliError(`chunk ${id} is not in listing ${listingId}`);
    return m;
  });
}

async function prepare(api: StreamApi, seller: Seller, session: Session): Promise<void> {
  const owner = session.purchaseId ? `/purchases/${session.purchaseId}` : `/stream/orders/${session.orderId}`;
  const record = (await api.call("GET", owner)).item;
  const listingId: string = record.listingId ?? record.resource?.listingId;
  const buyerKey = fromHex(session.buyerPublicKeyHex ?? record.buyerPublicKeyHex, 32);
  if (!buyerKey) throw new CliError(`session ${session.id}: no buyer X25519 key`);
  const manifests = await manifestsFor(api, listingId, session.chunkIds ?? record.chunkIds);
  const items = manifests.map((m) => createBuyerAccess(m, seller.boxSecretKey, { recipientId: session.buyerId ?? record.buyerId, publicKey: buyerKey }));
  await api.call("POST", `${owner}/prepare-access`, { ...agentBody(seller), items });
  printResult({ step: "prepare-access", sessionId: session.id, ...(session.purchaseId ? { purchaseId: session.purchaseId } : { orderId: session.orderId }), chunks: items.length });
}

async function pollOnce(api: StreamApi, seller: Seller): Promise<number> {
  const answer = await api.call("POST", "/stream/delivery-sessions/poll", { ...agentBody(seller), statuses: ["requested"] });
  let prepared = 0;
  for (const session of (answer.items ?? []) as Session[]) {
    if (session.status !== "requested") continue;
    try {
      await prepare(api, seller, session);
      prepared += 1;
    } catch (error) {
      progress(`serve: session ${session.id} not prepared: ${(error as Error).message}`);
    }
  }
  return prepared;
}

/** The handoff check of the purchase flow's contract: the platform says whose the handoff is. */
function authorizer(api: StreamApi, seller: Seller) {
  const prepared = new Set<string>();
  return async (request: ChunkRequestFrame): Promise<DeliveryGrant> => {
    let item: any;
    try {
      item = (await api.call("POST", "/stream/delivery-sessions/handoff/verify", { ...agentBody(seller), handoffToken: request.handoff })).item;
    } catch (error) {
      const message = (error as Error).message;
      if (/STREAM_HANDOFF_EXPIRED/.test(message)) throw new P2pError("HANDOFF_EXPIRED", "the connect handoff has expired");
      if (/STREAM_HANDOFF_INVALID|PURCHASE_STATE_INVALID|VALIDATION_ERROR/.test(message)) throw new P2pError("HANDOFF_INVALID", "the connect handoff is not valid for a paid purchase");
      throw error;
    }
    if (item.purchaseId !== request.purchaseId || item.sessionId !== request.deliverySessionId || item.buyerId !== request.buyerId) {
      throw new P2pError("HANDOFF_INVALID", "the connect handoff was issued for another purchase, session or buyer");
    }
    const purchase = (await api.call("GET", `/purchases/${item.purchaseId}`)).item;
    const manifests = await manifestsFor(api, purchase.resource.listingId, item.chunkIds);
    // The purchase flow's sessions are not polled (they carry no order): the buyer's access is prepared when the
    // buyer first connects with a valid handoff, before any ciphertext is sent.
    if (!prepared.has(item.purchaseId)) {
      const buyerKey = fromHex(item.buyerPublicKeyHex ?? purchase.buyer.publicKey.publicKeyHex, 32)!;
      const items = manifests.map((m) => createBuyerAccess(m, seller.boxSecretKey, { recipientId: item.buyerId, publicKey: buyerKey }));
      await api.call("POST", `/purchases/${item.purchaseId}/prepare-access`, { ...agentBody(seller), items });
      prepared.add(item.purchaseId);
      printResult({ step: "prepare-access", purchaseId: item.purchaseId, sessionId: item.sessionId, chunks: items.length });
    }
    return { transportId: item.transportId ?? "tcp", chunks: manifests.map((m) => ({ manifest: m, storageRef: sellerRef(m.chunkId) })) };
  };
}

export async function serveCommand(args: string[]): Promise<void> {
  const o = parseOptions(
    args,
    { seller: { type: "string" }, once: { type: "boolean" }, interval: { type: "string" }, "no-p2p": { type: "boolean" }, "p2p-host": { type: "string" }, "p2p-port": { type: "string" }, "libp2p-port": { type: "string" }, "peer-key": { type: "string" }, api: { type: "string" } },
    SERVE_USAGE,
  );
  if (!o) return;
  const interval = 1000 * Number(o.interval ?? 1);
  if (!Number.isFinite(interval) || interval < 100) throw new UsageError(`--interval is seconds (>= 0.1)\n\n${SERVE_USAGE}`);
  const seller = await loadSeller(o.seller);
  const api = new StreamApi(apiBase(o.api)).with(agentHeaders(seller));
  if (o.once) {
    printResult({ step: "serve", prepared: await pollOnce(api, seller) });
    return;
  }
  let stop = false;
  const onSignal = () => void (stop = true);
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  const servers: Array<{ close(): Promise<void> }> = [];
  if (!o["no-p2p"]) {
    // The peer key first: a refused key file stops the serve before anything listens or is announced.
    const privateKey = await loadOrCreatePeerKey(o["peer-key"] ?? sellerPeerKeyFile()).catch((error: Error) => {
      throw error instanceof PeerKeyError ? new CliError(error.message) : error;
    });
    const options: DeliveryServerOptions = {
      storage: [sellerStore()],
      authorize: authorizer(api, seller),
      onAck: (ack) => printResult({ step: "delivered", purchaseId: ack.purchaseId, deliverySessionId: ack.deliverySessionId, buyerId: ack.buyerId, transportId: ack.transportId }),
      log: (line, fields) => progress(`${line} ${JSON.stringify(fields ?? {})}`),
      limits: loadConfig().streamP2p,
      // Refusals and cut connections (cap, request size or deadline, a buyer that stopped reading), for the operator.
      onClosed: (report) => {
        if (report.outcome !== "delivered" && report.outcome !== "closed") progress(`serve: p2p connection ${report.outcome} ${JSON.stringify(report)}`);
      },
    };
    const host = o["p2p-host"] ?? "127.0.0.1";
    // One handler for both transports: one connection cap (STREAM_P2P_MAX_CONNECTIONS) over TCP connections and libp2p streams.
    const handler = createDeliveryHandler(options);
    const tcp = await startDeliveryServer(options, { host, port: Number(o["p2p-port"] ?? 0) }, handler);
    servers.push(tcp);
    const libp2p = await startLibp2pDeliveryServer(options, { host, port: Number(o["libp2p-port"] ?? 0), privateKey }, handler);
    servers.push(libp2p);
    const address = `${tcp.host}:${tcp.port}`;
    const capability = { version: "1", features: ["resume"], protocols: [P2P_PROTOCOL], encoding: P2P_ENCODING };
    await api
      .call("PUT", `/machines/${seller.data.machineId}/delivery-capabilities`, {
        ...agentBody(seller),
        capabilities: [
          { transportId: "libp2p", ...capability, params: { addresses: libp2p.addresses.slice(0, 8), peerId: libp2p.peerId } },
          { transportId: "tcp", ...capability, params: { addresses: [address] } },
        ],
        resourceTypes: ["stream.listing"],
      })
      .catch((error: Error) => progress(`serve: delivery capabilities not announced: ${error.message}`));
    printResult({ step: "serve", p2p: address, libp2p: libp2p.addresses, peerId: libp2p.peerId, transports: ["libp2p", "tcp"], protocol: P2P_PROTOCOL });
  } else {
    printResult({ step: "serve", p2p: null });
  }
  while (!stop) {
    await pollOnce(api, seller).catch((error: Error) => progress(`serve: poll failed: ${error.message}`));
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
  for (const server of servers) await server.close();
}
