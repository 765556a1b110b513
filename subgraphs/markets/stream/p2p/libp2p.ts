/**
 * Transport `libp2p`: TCP + Noise + Yamux (libp2p 2.x, which runs on Node 20), one stream of protocol
 * /peaqos/stream/chunk/1.0.0 per delivery connection, carrying exactly the frames of the `tcp` transport. A libp2p
 * stream is adapted to a Node Duplex (`StreamConnection`), so the seller's server (server.ts) and the buyer's client
 * (client.ts) serve and check both transports with the same code: same bounds, same refusals, same resume.
 *
 * A node takes its Ed25519 peer key when given one (the seller's, kept by peer-key.store.ts so its peer ID survives
 * restarts), else a fresh one (a buyer's); the seller announces its multiaddrs (`/ip4/…/tcp/…/p2p/<peerId>`)
 * and peer ID in its delivery capabilities, and the buyer dials the announced multiaddr, so Noise authenticates the
 * seller's peer ID on connect.
 */
import { Duplex } from "node:stream";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { tcp } from "@libp2p/tcp";
import { multiaddr } from "@multiformats/multiaddr";
import { createLibp2p, type Libp2p } from "libp2p";
import { P2pError } from "./errors.js";
import { P2P_PROTOCOL } from "./frames.js";
import type { DeliveryLimits } from "./limits.js";
import { createDeliveryHandler, type DeliveryHandler, type DeliveryServerOptions } from "./server.js";
import type { Connection } from "./wire.js";
import type { PeerKey } from "./peer-key.store.js";

type Libp2pStream = Awaited<ReturnType<Libp2p["dialProtocol"]>>;

/**
 * libp2p 2.x itself declares no engines, but `it-queue` (the peer store's lock, through `mortice`) calls
 * `Promise.withResolvers`, which Node has from 22 on. On Node 20 it is installed here, as the spec defines it, before
 * any node starts; where it exists this does nothing.
 */
if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== "function") {
  Object.defineProperty(Promise, "withResolvers", {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(this: PromiseConstructor) {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new this<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

/** A stream failure as the socket errors the peers already handle (a cut connection: ECONNRESET). */
function reset(error: unknown): Error {
  return Object.assign(new Error(`the libp2p stream failed: ${error instanceof Error ? error.message : String(error)}`), { code: "ECONNRESET" });
}

/**
 * A libp2p stream as a Node Duplex. Reading pulls from the stream only when the reader asks (like a paused socket), and
 * a write's callback runs once the muxer has taken its bytes (the next pull of the sink), so backpressure and the
 * progress deadline of writeWithProgress behave as on a socket. Ending the writable side closes the stream for writing;
 * destroying it before both sides ended resets the stream.
 */
export class StreamConnection extends Duplex implements Connection {
  bytesRead = 0;
  bytesWritten = 0;
  private readonly source: AsyncIterator<{ subarray(): Uint8Array }>;
  private readonly sinkDone: Promise<void>;
  private pulling = false;
  private outgoing: { chunk: Buffer; done: (error?: Error | null) => void } | null = null;
  private wake: (() => void) | null = null;
  private finished = false;
  private sinkClosed = false;
  private remoteEnded = false;

  constructor(private readonly stream: Libp2pStream) {
    super({ allowHalfOpen: true });
    this.source = stream.source[Symbol.asyncIterator]();
    this.sinkDone = stream.sink(this.outgoingBytes());
    this.sinkDone.catch((error: unknown) => this.destroy(reset(error)));
  }

  private async *outgoingBytes(): AsyncGenerator<Uint8Array> {
    for (;;) {
      while (!this.outgoing && !this.finished) await new Promise<void>((resolve) => (this.wake = resolve));
      const item = this.outgoing;
      if (!item) return;
      this.outgoing = null;
      yield item.chunk;
      this.bytesWritten += item.chunk.length;
      item.done();
    }
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.outgoing = { chunk, done: callback };
    this.poke();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.finished = true;
    this.poke();
    this.sinkDone.then(
      () => {
        callback();
        this.sinkClosed = true;
        // Ended by this side (closeGracefully): read on to the remote's end, then close, as a socket does on FIN.
        this.pull();
        this.closeIfDone();
      },
      (error: unknown) => callback(reset(error)),
    );
  }

  override _read(): void {
    this.pull();
  }

  private pull(): void {
    if (this.pulling || this.remoteEnded) return;
    this.pulling = true;
    this.source.next().then(
      ({ done, value }) => {
        this.pulling = false;
        if (done) {
          this.remoteEnded = true;
          this.push(null);
          return this.closeIfDone();
        }
        const bytes = value.subarray();
        this.bytesRead += bytes.length;
        this.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
        if (this.sinkClosed) this.pull();
      },
      (error: unknown) => this.destroy(reset(error)),
    );
  }

  /** Both directions closed cleanly: the connection is over ('close'). */
  private closeIfDone(): void {
    if (this.sinkClosed && this.remoteEnded && !this.destroyed) this.destroy();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.finished = true;
    this.poke();
    if (error || !this.sinkClosed || !this.remoteEnded) this.stream.abort(error ?? new Error("the connection was closed"));
    else void Promise.resolve(this.stream.close()).catch(() => undefined);
    callback(error);
  }
}

const listenAddress = (host: string, port: number) => `/${host.includes(":") ? "ip6" : "ip4"}/${host}/tcp/${port}`;

export interface Libp2pNodeOptions {
  /** Listen on this host and port (a seller); a buyer listens nowhere. */
  listen?: { host: string; port: number };
  /** The node's peer key (its peer ID); none: a fresh key. */
  privateKey?: PeerKey;
}

/** A started libp2p node speaking TCP + Noise + Yamux. */
export async function startLibp2pNode(options: Libp2pNodeOptions = {}): Promise<Libp2p> {
  return createLibp2p({
    ...(options.privateKey ? { privateKey: options.privateKey } : {}),
    addresses: { listen: options.listen ? [listenAddress(options.listen.host, options.listen.port)] : [] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    // Buyers on one host (a NAT, or tests on loopback) each connect once per delivery attempt.
    connectionManager: { inboundConnectionThreshold: 1_000, maxIncomingPendingConnections: 256 },
  });
}

/** The buyer's side: dials a seller's announced multiaddr and opens one chunk-protocol stream per connection asked. */
export interface Libp2pDialer {
  node: Libp2p;
  connect(address: string, timeoutMs?: number): Promise<Connection>;
  stop(): Promise<void>;
}

export async function startLibp2pDialer(): Promise<Libp2pDialer> {
  const node = await startLibp2pNode();
  return {
    node,
    async connect(address, timeoutMs = 10_000) {
      let target;
      try {
        target = multiaddr(address);
      } catch {
        throw new P2pError("DELIVERY_INCOMPLETE", `${address} is not a multiaddr`);
      }
      try {
        const stream = await node.dialProtocol(target, P2P_PROTOCOL, { signal: AbortSignal.timeout(timeoutMs) });
        return new StreamConnection(stream);
      } catch (error) {
        throw new P2pError("DELIVERY_INCOMPLETE", `cannot open ${P2P_PROTOCOL} to ${address}: ${(error as Error).message}`);
      }
    },
    stop: async () => {
      await node.stop();
    },
  };
}

export interface Libp2pDeliveryServer {
  node: Libp2p;
  peerId: string;
  /** The multiaddrs a buyer dials, each ending in `/p2p/<peerId>`. */
  addresses: string[];
  limits: DeliveryLimits;
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * The delivery server of transport `libp2p`: every inbound stream of the chunk protocol is one delivery connection of
 * the delivery handler (server.ts): the same bounds as the `tcp` server, and its connection cap when both share one
 * handler (`cli stream serve`).
 */
export async function startLibp2pDeliveryServer(
  options: DeliveryServerOptions,
  listen: { host?: string; port?: number; privateKey?: PeerKey } = {},
  handler: DeliveryHandler = createDeliveryHandler(options),
): Promise<Libp2pDeliveryServer> {
  const node = await startLibp2pNode({ listen: { host: listen.host ?? "127.0.0.1", port: listen.port ?? 0 }, privateKey: listen.privateKey });
  // Above the cap a stream is still taken, to be answered SELLER_BUSY like a TCP connection.
  await node.handle(P2P_PROTOCOL, ({ stream }) => handler.accept(new StreamConnection(stream)), { maxInboundStreams: handler.limits.maxConnections + 8 });
  return {
    node,
    peerId: node.peerId.toString(),
    addresses: node.getMultiaddrs().map((a) => a.toString()),
    limits: handler.limits,
    get connections() {
      return handler.connections;
    },
    async close() {
      handler.closeAll();
      await node.stop();
    },
  };
}
