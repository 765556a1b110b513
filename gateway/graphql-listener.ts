/**
 * Serves an ApolloServer (the gateway, or one subgraph in the split topology) at `/graphql` over node:http.
 * Only what GraphQL over HTTP needs: JSON bodies up to a limit, GET for queries, 404 elsewhere.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { HeaderMap, type ApolloServer } from "@apollo/server";
import { CLIENT_IP_HEADER, type SubgraphContext } from "../subgraphs/shared/context.js";

const MAX_BODY_BYTES = 256 * 1024;

export interface GraphQLListenerOptions {
  host: string;
  port: number;
  /**
   * Trust `x-client-ip` from the caller: subgraphs behind our gateway, and the gateway behind the rest shim in the split
   * topology. The public listener of role `all` uses the socket address.
   */
  trustForwardedClientIp: boolean;
}

export interface RunningListener {
  url: string;
  close(): Promise<void>;
}

function readBody(req: http.IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function contextFor(req: http.IncomingMessage, trustForwardedClientIp: boolean): SubgraphContext {
  const forwarded = req.headers[CLIENT_IP_HEADER];
  return {
    authorization: req.headers.authorization,
    clientIp: trustForwardedClientIp && typeof forwarded === "string" ? forwarded : req.socket.remoteAddress,
  };
}

export async function listenGraphQL(
  server: ApolloServer<SubgraphContext>,
  options: GraphQLListenerOptions,
): Promise<RunningListener> {
  const httpServer = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== "/graphql") {
      res.writeHead(404, { "content-type": "application/json; charset=utf-8" }).end('{"error":"not found"}');
      return;
    }
    try {
      const text = req.method === "POST" ? await readBody(req) : "";
      if (text === null) {
        res.writeHead(413, { "content-type": "application/json; charset=utf-8" }).end('{"error":"request too large"}');
        return;
      }
      const headers = new HeaderMap();
      for (const [key, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value);
      }
      let body: unknown = undefined;
      if (text) {
        try {
          body = JSON.parse(text);
        } catch {
          res.writeHead(400, { "content-type": "application/json; charset=utf-8" }).end('{"error":"invalid JSON"}');
          return;
        }
      }
      const result = await server.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: req.method ?? "GET", headers, search: url.search, body },
        context: async () => contextFor(req, options.trustForwardedClientIp),
      });
      const responseHeaders: Record<string, string> = {};
      for (const [key, value] of result.headers) responseHeaders[key] = value;
      res.writeHead(result.status ?? 200, responseHeaders);
      if (result.body.kind === "complete") {
        res.end(result.body.string);
      } else {
        for await (const chunk of result.body.asyncIterator) res.write(chunk);
        res.end();
      }
    } catch {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json; charset=utf-8" });
      res.end('{"error":"internal error"}');
    }
  });
  httpServer.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(options.port, options.host, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}/graphql`,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      }),
  };
}
