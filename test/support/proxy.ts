/**
 * A TCP proxy in front of a real server (anvil, the gateway) that counts connections and requests: how a test sees
 * connection reuse and request counts without replacing the server. `url` is the proxy's origin (no path).
 */
import net from "node:net";

export interface CountingProxy {
  url: string;
  /** Most connections open at the same time, and connections opened in all. */
  peakConnections: number;
  connections: number;
  /** Requests seen, by the name `namePattern` captures (default: the JSON-RPC method). */
  requests: Map<string, number>;
  reset(): void;
  close(): Promise<void>;
}

export async function countingProxy(targetUrl: string, namePattern = /"method":"([a-zA-Z_]+)"/g): Promise<CountingProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  let open = 0;
  const proxy: CountingProxy = {
    url: "",
    peakConnections: 0,
    connections: 0,
    requests: new Map(),
    reset() {
      this.peakConnections = open;
      this.connections = 0;
      this.requests = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = net.createServer((client) => {
    open++;
    proxy.connections++;
    proxy.peakConnections = Math.max(proxy.peakConnections, open);
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on("data", (chunk: Buffer) => {
      for (const [, method] of chunk.toString("latin1").matchAll(namePattern)) {
        proxy.requests.set(method!, (proxy.requests.get(method!) ?? 0) + 1);
      }
    });
    client.pipe(upstream).pipe(client);
    const closed = () => {
      if (sockets.delete(client)) open--;
      client.destroy();
      upstream.destroy();
    };
    client.on("close", closed).on("error", closed);
    upstream.on("close", closed).on("error", closed);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return proxy;
}
