/**
 * The public profile's live data_api fetch through GET /machine/{did}: one request per refusal reason, each
 * answered as its documented `partner_data_error`, against a real local server (reached only because this suite's
 * platform allows 127.0.0.1 explicitly; every other loopback spelling stays refused).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { toUtf8Bytes } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/processes.js";
import { rated, startRatingsPlatform, transact, type RatingsPlatform } from "./helpers.js";
import { get } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";

const MAX_BYTES = 1_048_576;

let p: RatingsPlatform;
let partner: http.Server;
let base: string;
let closedPort: number;

beforeAll(async () => {
  partner = http.createServer((req, res) => {
    switch (req.url) {
      case "/ok":
        return res.writeHead(200, { "content-type": "application/json" }).end('{"uptime":0.99,"jobs":[1,2]}');
      case "/exactly-1mb":
        return res.writeHead(200).end(`{"p":"${"x".repeat(MAX_BYTES - 8)}"}`);
      case "/redirect":
        return res.writeHead(302, { location: "/ok" }).end();
      case "/status":
        return res.writeHead(500).end('{"error":"down"}');
      case "/text":
        return res.writeHead(200).end("not json");
      case "/array":
        return res.writeHead(200).end("[1,2,3]");
      case "/streamed-large": {
        // Chunked, no Content-Length: only counting while streaming can stop it.
        res.writeHead(200, { "content-type": "application/json" });
        res.write(`{"p":"${"x".repeat(MAX_BYTES)}`);
        return res.end('"}');
      }
      case "/declared-large":
        return res.writeHead(200, { "content-length": String(MAX_BYTES + 1) }).end();
      case "/slow":
        return void setTimeout(() => res.writeHead(200).end("{}"), 6_000).unref();
      default:
        return res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => partner.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(partner.address() as AddressInfo).port}`;
  closedPort = await freePort();
  p = await startRatingsPlatform({ OUTBOUND_ALLOW_CIDRS: "127.0.0.1/32" });
}, PLATFORM_START_TIMEOUT_MS);
afterAll(async () => {
  await p?.close();
  partner?.closeAllConnections();
  await new Promise((resolve) => partner?.close(resolve));
});

/** Points the public demo machine's data_api at `url` and reads its profile's partner members. */
async function partnerMembers(url: string) {
  const machine = rated(p, 7);
  await transact(p, "DidRegistry", (dids) => dids.updateAttribute(machine.machineAddress, toUtf8Bytes("data_api"), toUtf8Bytes(url), 0));
  const answer = await get(`${p.http}/machine/${machine.did}`);
  expect(answer.status).toBe(200);
  const { data_api, partner_data, partner_data_error } = answer.json().peaqos;
  expect(data_api).toBe(url);
  return { partner_data, partner_data_error };
}

describe("public visibility: the data_api answer", () => {
  it("a JSON object is embedded as partner_data", async () => {
    expect(await partnerMembers(`${base}/ok`)).toEqual({ partner_data: { uptime: 0.99, jobs: [1, 2] }, partner_data_error: null });
  });

  it("exactly 1 MB is accepted", async () => {
    const { partner_data, partner_data_error } = await partnerMembers(`${base}/exactly-1mb`);
    expect(partner_data_error).toBeNull();
    expect(partner_data.p).toHaveLength(MAX_BYTES - 8);
  });
});

describe("every refusal has its own partner_data_error", () => {
  /** `BASE` and `PORT` stand for the local server; `CLOSED` for a port nothing listens on. */
  const cases: Array<[reason: string, url: string]> = [
    ["invalid_url", "not a url"],
    ["scheme_not_allowed", "ftp://127.0.0.1/data"],
    ["scheme_not_allowed", "file:///etc/passwd"],
    ["credentials_not_allowed", "http://user:secret@127.0.0.1:PORT/ok"],
    ["blocked_loopback", "http://127.0.0.2:PORT/ok"],
    ["blocked_loopback", "http://[::1]:PORT/ok"],
    ["blocked_loopback", "http://2130706434:PORT/ok"],
    ["blocked_loopback", "http://0177.0.0.2:PORT/ok"],
    ["blocked_loopback", "http://[::ffff:127.0.0.2]:PORT/ok"],
    ["blocked_private", "http://10.1.2.3/data"],
    ["blocked_private", "http://[::ffff:192.168.0.1]/data"],
    ["blocked_private", "http://[fd12::1]/data"],
    ["blocked_link_local", "http://169.254.10.10/data"],
    ["blocked_link_local", "http://[fe80::1]/data"],
    ["blocked_metadata", "http://169.254.169.254/latest/meta-data/"],
    ["blocked_metadata", "http://metadata.google.internal/computeMetadata/v1/"],
    ["blocked_multicast", "http://224.0.0.1/data"],
    ["blocked_reserved", "http://240.0.0.1/data"],
    ["blocked_reserved", "http://0.0.0.0/data"],
    ["dns_failed", "http://no-such-host.invalid/data"],
    ["connect_failed", "http://127.0.0.1:CLOSED/data"],
    ["redirect_not_followed", "BASE/redirect"],
    ["http_status", "BASE/status"],
    ["invalid_json", "BASE/text"],
    ["not_object", "BASE/array"],
    ["too_large", "BASE/declared-large"],
    ["too_large", "BASE/streamed-large"],
    ["timeout", "BASE/slow"],
  ];

  it.each(cases)("%s: %s", async (reason, template) => {
    const url = template.replace("BASE", base).replace("PORT", new URL(base).port).replace("CLOSED", String(closedPort));
    expect(await partnerMembers(url)).toEqual({ partner_data: null, partner_data_error: reason });
  });
});
