/**
 * The outbound-URL guard: every blocked range in every spelling, the URL rules, and the answer rules against real
 * local servers (loopback is reachable only through an explicit allow-list, as operators would configure it).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { AddressPolicy } from "../../subgraphs/shared/net/address-policy.js";
import { OutboundClient, OutboundRefusal } from "../../subgraphs/shared/net/outbound.js";

const LIMITS = { timeoutMs: 2000, maxBytes: 1024 };

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundRefusal);
  return (error as OutboundRefusal).reason;
}

describe("address policy", () => {
  const policy = new AddressPolicy();
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["::ffff:10.0.0.1", "private"],
    ["169.254.1.1", "link_local"],
    ["fe80::1", "link_local"],
    ["169.254.169.254", "metadata"],
    ["::ffff:169.254.169.254", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["100.100.100.200", "metadata"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["ff02::1", "multicast"],
    ["0.0.0.0", "reserved"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    ["192.0.2.1", "reserved"],
    ["198.51.100.7", "reserved"],
    ["203.0.113.9", "reserved"],
    ["198.18.0.1", "reserved"],
    ["::", "reserved"],
    ["2001:db8::1", "reserved"],
    ["64:ff9b::7f00:1", "reserved"],
  ])("%s is refused as %s", (address, range) => {
    expect(policy.classify(address)).toBe(range);
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("%s is allowed", (address) => {
    expect(policy.classify(address)).toBeNull();
  });

  it("an allow-list entry opens exactly its addresses", () => {
    const allowing = new AddressPolicy(["127.0.0.1", "10.0.0.0/8"]);
    expect(allowing.classify("127.0.0.1")).toBeNull();
    expect(allowing.classify("::ffff:127.0.0.1")).toBeNull();
    expect(allowing.classify("10.200.0.1")).toBeNull();
    expect(allowing.classify("127.0.0.2")).toBe("loopback");
    expect(allowing.classify("192.168.0.1")).toBe("private");
  });

  it("OUTBOUND_ALLOW_CIDRS is read at start and a bad entry is refused with the setting's name", () => {
    expect(loadConfig({}).outboundAllowCidrs).toEqual([]);
    expect(loadConfig({ OUTBOUND_ALLOW_CIDRS: "127.0.0.1, 10.0.0.0/8" }).outboundAllowCidrs).toEqual(["127.0.0.1", "10.0.0.0/8"]);
    expect(() => loadConfig({ OUTBOUND_ALLOW_CIDRS: "localhost" })).toThrow(/OUTBOUND_ALLOW_CIDRS/);
  });
});

describe("URL rules (nothing is sent)", () => {
  const client = new OutboundClient();
  it.each([
    ["not a url", "invalid_url"],
    ["/relative/path", "invalid_url"],
    ["ftp://example.com/data", "scheme_not_allowed"],
    ["file:///etc/passwd", "scheme_not_allowed"],
    ["gopher://example.com/", "scheme_not_allowed"],
    ["http://user:secret@example.com/", "credentials_not_allowed"],
    ["http://127.0.0.1:8000/", "blocked_loopback"],
    ["http://127.1/", "blocked_loopback"],
    ["http://2130706433/", "blocked_loopback"],
    ["http://0177.0.0.1/", "blocked_loopback"],
    ["http://0x7f.0.0.1/", "blocked_loopback"],
    ["http://0x7f000001/", "blocked_loopback"],
    ["http://[::1]/", "blocked_loopback"],
    ["http://[::ffff:127.0.0.1]/", "blocked_loopback"],
    ["http://[0:0:0:0:0:ffff:7f00:1]/", "blocked_loopback"],
    ["http://10.0.0.1/", "blocked_private"],
    ["http://167772161/", "blocked_private"],
    ["http://[fe80::1]/", "blocked_link_local"],
    ["http://169.254.169.254/latest/meta-data/", "blocked_metadata"],
    ["http://2852039166/", "blocked_metadata"],
    ["http://metadata.google.internal/computeMetadata/v1/", "blocked_metadata"],
    ["http://METADATA.google.internal./", "blocked_metadata"],
    ["http://224.0.0.1/", "blocked_multicast"],
    ["http://0.0.0.0:8000/", "blocked_reserved"],
  ])("%s -> %s", (url, reason) => {
    const error = (() => {
      try {
        client.check(url);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(OutboundRefusal);
    expect((error as OutboundRefusal).reason).toBe(reason);
  });

  it("public URLs pass the check", () => {
    expect(client.check("https://example.com/data?x=1").hostname).toBe("example.com");
    expect(client.check("http://8.8.8.8:8080/").port).toBe("8080");
  });
});

describe("requests against a real local server", () => {
  let server: http.Server;
  let base: string;
  const seen: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.url ?? "");
      const json = (status: number, body: string, headers: Record<string, string> = {}) =>
        res.writeHead(status, { "content-type": "application/json", ...headers }).end(body);
      switch (req.url) {
        case "/object":
          return json(200, '{"temperature":21.5,"unit":"C"}');
        case "/array":
          return json(200, "[1,2,3]");
        case "/null":
          return json(200, "null");
        case "/garbage":
          return json(200, "{not json");
        case "/missing":
          return json(404, '{"error":"no"}');
        case "/redirect":
          return json(302, "{}", { location: "/object" });
        case "/declared-large":
          res.writeHead(200, { "content-type": "application/json", "content-length": "5000" });
          return res.end("{}".padEnd(5000, " "));
        case "/streamed-large": {
          // No Content-Length: the limit must be enforced while counting the stream.
          res.writeHead(200, { "content-type": "application/json" });
          res.write("{");
          const filler = " ".repeat(512);
          let sent = 0;
          const more = () => {
            if (sent++ > 16 || res.destroyed) return res.end("}");
            res.write(filler, () => setImmediate(more));
          };
          return more();
        }
        case "/echo": {
          const chunks: Buffer[] = [];
          req.on("data", (c: Buffer) => chunks.push(c));
          req.on("end", () => json(201, JSON.stringify({ method: req.method, auth: req.headers.authorization, body: Buffer.concat(chunks).toString() })));
          return;
        }
        case "/hang":
          return; // never answers
        default:
          return json(404, "{}");
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const allowed = new OutboundClient(new AddressPolicy(["127.0.0.1"]));

  it("the default policy refuses loopback before sending anything", async () => {
    const before = seen.length;
    expect(await refusal(new OutboundClient().fetchJsonObject(`${base}/object`, LIMITS))).toBe("blocked_loopback");
    expect(seen.length).toBe(before);
  });

  it("a host name resolving to a blocked address is refused at connection time (the address connected is checked)", async () => {
    const before = seen.length;
    const port = new URL(base).port;
    expect(await refusal(new OutboundClient().fetchJsonObject(`http://localhost:${port}/object`, LIMITS))).toBe("blocked_loopback");
    expect(seen.length).toBe(before);
  });

  it("an unresolvable host name is dns_failed", async () => {
    expect(await refusal(allowed.fetchJsonObject("http://no-such-host.invalid/", LIMITS))).toBe("dns_failed");
  });

  it("a closed port is connect_failed", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await refusal(allowed.fetchJsonObject(`http://127.0.0.1:${port}/`, LIMITS))).toBe("connect_failed");
  });

  it("an allowed JSON object is returned", async () => {
    expect(await allowed.fetchJsonObject(`${base}/object`, LIMITS)).toEqual({ temperature: 21.5, unit: "C" });
  });

  it.each([
    ["/array", "not_object"],
    ["/null", "not_object"],
    ["/garbage", "invalid_json"],
    ["/missing", "http_status"],
    ["/declared-large", "too_large"],
    ["/streamed-large", "too_large"],
  ])("%s -> %s", async (pathname, reason) => {
    expect(await refusal(allowed.fetchJsonObject(`${base}${pathname}`, LIMITS))).toBe(reason);
  });

  it("a redirect is refused and its target never requested", async () => {
    const before = seen.length;
    expect(await refusal(allowed.fetchJsonObject(`${base}/redirect`, LIMITS))).toBe("redirect_not_followed");
    expect(seen.slice(before)).toEqual(["/redirect"]);
  });

  it("a server that never answers is cut off at the deadline", async () => {
    expect(await refusal(allowed.fetchJsonObject(`${base}/hang`, { timeoutMs: 200, maxBytes: 1024 }))).toBe("timeout");
  });

  it("an IP-literal origin keeps its connection between calls; the literal is still judged on every call", async () => {
    const client = new OutboundClient(new AddressPolicy(["127.0.0.1"]));
    let connections = 0;
    const count = () => (connections += 1);
    server.on("connection", count);
    try {
      for (let i = 0; i < 3; i++) expect(await client.fetchJsonObject(`${base}/object`, LIMITS)).toEqual({ temperature: 21.5, unit: "C" });
      expect(connections).toBe(1);
      const before = seen.length;
      expect(await refusal(new OutboundClient().fetchJsonObject(`${base}/object`, LIMITS))).toBe("blocked_loopback");
      expect(seen.length).toBe(before);
    } finally {
      server.off("connection", count);
    }
  });

  it("request() sends method, headers and body and returns any status as is", async () => {
    const response = await allowed.request({
      url: `${base}/echo`,
      method: "POST",
      headers: { authorization: "Bearer provider-secret", "content-type": "application/json" },
      body: '{"task":1}',
      timeoutMs: 2000,
      maxResponseBytes: 4096,
    });
    expect(response.status).toBe(201);
    expect(JSON.parse(response.body.toString())).toEqual({ method: "POST", auth: "Bearer provider-secret", body: '{"task":1}' });
    const redirect = await allowed.request({ url: `${base}/redirect`, timeoutMs: 2000, maxResponseBytes: 4096 });
    expect(redirect.status).toBe(302);
  });
});

describe("allowed origins (the demo provider role all runs itself)", () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('{"ok":true}'));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("exempts exactly the listed scheme, address and port; every other loopback URL is still refused", async () => {
    const client = new OutboundClient(new AddressPolicy(), { allowedOrigins: [`http://127.0.0.1:${port}`] });
    expect(await client.fetchJsonObject(`http://127.0.0.1:${port}/x`, LIMITS)).toEqual({ ok: true });
    expect(await refusal(client.fetchJsonObject(`http://127.0.0.1:${port + 1}/x`, LIMITS))).toBe("blocked_loopback");
    expect(await refusal(client.fetchJsonObject(`http://127.0.0.2:${port}/x`, LIMITS))).toBe("blocked_loopback");
    expect(await refusal(client.fetchJsonObject(`http://localhost:${port}/x`, LIMITS))).toBe("blocked_loopback");
    expect(await refusal(client.fetchJsonObject(`https://127.0.0.1:${port}/x`, LIMITS))).toBe("blocked_loopback");
  });

  it("only IP-literal origins can be listed", () => {
    expect(() => new OutboundClient(new AddressPolicy(), { allowedOrigins: ["http://localhost:8300"] })).toThrow(/IP-literal/);
  });
});
