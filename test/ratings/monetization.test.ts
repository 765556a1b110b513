/**
 * The signed monetization toggle (document 2, docs/monetization.md) through the REST shim on both deployments: the
 * canonical message, every signer role, every code, body rules (FastAPI 422 for invalid JSON, strict types), the
 * freshness window, strictly newer decisions under parallel requests, the compatibility signal and the CLI. Every
 * refused request leaves the state as it was (read back through GET).
 */
import { randomBytes } from "node:crypto";
import { getAddress, Wallet, type Signer } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoWallet } from "../../subgraphs/shared/chain/dev-keys.js";
import { buildMonetizationMessage, signMonetizationDecision } from "../../subgraphs/ratings/monetization/monetization.message.js";
import { graphql, PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";
import { expectCoded, expectDetail, rated, startRatingsPlatform, transact, type RatingsPlatform } from "./helpers.js";
import { runCli } from "../support/cli.js";
import { manualClock } from "../support/clock.js";
import { get, putJson, type HttpAnswer } from "../support/http.js";

let p: RatingsPlatform;
/** The platform's clock, standing still: a test's "now" is the server's now, so the window's edges are exact. */
const clock = manualClock();
beforeAll(async () => {
  p = await startRatingsPlatform({}, { clock });
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const now = () => Math.floor(clock.now() / 1000);
const fleetOwner = () => new Wallet(p.demo.ratings.fleetOwner.privateKey);
const fleetOperator = () => new Wallet(p.demo.ratings.fleetOperator.privateKey);

/** A PUT body signed by `signer` for the deployment's registry (or the one given). */
async function decision(
  signer: Signer,
  machineId: string,
  optedIn: boolean,
  options: { timestamp?: number; deployment?: "v1" | "v2"; registry?: string; chainId?: number } = {},
): Promise<string> {
  const registry = options.registry ?? p.demo.contracts[options.deployment === "v2" ? "MachineRegistry" : "IdentityRegistry"];
  const body = await signMonetizationDecision(signer, {
    namespace: "service",
    registry,
    chainId: options.chainId ?? p.demo.chainId,
    machineId,
    optedIn,
    timestamp: options.timestamp ?? now(),
  });
  return JSON.stringify(body);
}

const url = (key: string, base = p.http) => `${base}/machine/${key}/monetization`;
const put = (key: string, body: string | Uint8Array, base = p.http, headers: Record<string, string> = {}) => putJson(url(key, base), body, headers);
const state = async (key: string, base = p.http) => {
  const answer = await get(url(key, base));
  expect(answer.status).toBe(200);
  return answer.json();
};

function expectState(answer: HttpAnswer, machineId: number | string, status: string, signer: string, timestamp: number): void {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers["content-type"]).toBe("application/json");
  expect(answer.text).toBe(
    `{"machine_id":${JSON.stringify(machineId)},"status":"${status}","signer":"${signer}","updated_at":${timestamp}}`,
  );
}

describe("the canonical message", () => {
  it("is six LF-separated lines, no trailing newline, registry lowercased", () => {
    const message = buildMonetizationMessage({
      namespace: "service",
      registry: "0xAbC0000000000000000000000000000000000DeF",
      chainId: 3338,
      machineId: "42",
      optedIn: false,
      timestamp: 1_711_900_000,
    });
    expect(message).toBe(
      "service monetization decision v1\nregistry: 0xabc0000000000000000000000000000000000def\nchain_id: 3338\nmachine_id: 42\nopted_in: false\ntimestamp: 1711900000",
    );
  });
});

describe("GET /machine/{key}/monetization", () => {
  it("PENDING with null signer and time when nothing is stored, by decimal ID or by DID", async () => {
    const machine = rated(p, 9);
    const pending = '{"machine_id":9,"status":"PENDING","signer":null,"updated_at":null}';
    expect((await get(url("9"))).text).toBe(pending);
    expect((await get(url(machine.did))).text).toBe(pending);
  });

  it.each([
    ["a raw address", () => rated(p, 9).machineAddress],
    ["a leading zero", () => "09"],
    ["a sign", () => "+9"],
    ["a decimal DID on the 1.0 server", () => "did:service:9"],
    ["another DID method", () => `did:other:${rated(p, 9).machineAddress}`],
  ])("%s: 400 INVALID_REQUEST", async (_label, key) => {
    expectCoded(await get(url(key())), 400, "INVALID_REQUEST");
  });

  it("an unknown machine: 404 MACHINE_NOT_FOUND", async () => {
    expectCoded(await get(url("424242")), 404, "MACHINE_NOT_FOUND");
    expectCoded(await get(url(`did:service:${getAddress(`0x${randomBytes(20).toString("hex")}`)}`)), 404, "MACHINE_NOT_FOUND");
  });
});

describe("PUT /machine/{key}/monetization: who may sign", () => {
  it("the NFT owner opts in; the applied decision is what GET answers", async () => {
    const t = now();
    expectState(await put("8", await decision(fleetOwner(), "8", true, { timestamp: t })), 8, "OPTED_IN", fleetOwner().address, t);
    expect(await state("8")).toEqual({ machine_id: 8, status: "OPTED_IN", signer: fleetOwner().address, updated_at: t });
  });

  it("the operator opts out, with the key given as the machine's DID (the message names the resolved ID)", async () => {
    const t = now() + 1;
    const body = await decision(fleetOperator(), "8", false, { timestamp: t });
    expectState(await put(rated(p, 8).did, body), 8, "OPTED_OUT", fleetOperator().address, t);
  });

  it("the machine's own wallet and a delegated event submitter may sign (event submission's authorization set)", async () => {
    const machineKey = demoWallet("machine-11");
    const signedAt = now();
    expectState(await put("11", await decision(machineKey, "11", true, { timestamp: signedAt })), 11, "OPTED_IN", machineKey.address, signedAt);
    const delegate = Wallet.createRandom();
    expectCoded(await put("11", await decision(delegate, "11", false, { timestamp: now() + 2 })), 403, "UNAUTHORIZED_SIGNER");
    await transact(p, "EventRegistry", (events) => events.setSubmitter(11, delegate.address, true), p.demo.ratings.fleetOperator.privateKey);
    const t = now() + 3;
    expectState(await put("11", await decision(delegate, "11", false, { timestamp: t })), 11, "OPTED_OUT", delegate.address, t);
  });

  it("anyone else, or a message for another registry or chain: 403 UNAUTHORIZED_SIGNER, state unchanged", async () => {
    const before = await state("12");
    expectCoded(await put("12", await decision(Wallet.createRandom(), "12", true)), 403, "UNAUTHORIZED_SIGNER");
    expectCoded(await put("12", await decision(fleetOwner(), "12", true, { registry: p.demo.contracts.MachineRegistry })), 403, "UNAUTHORIZED_SIGNER");
    expectCoded(await put("12", await decision(fleetOwner(), "12", true, { chainId: 1 })), 403, "UNAUTHORIZED_SIGNER");
    expectCoded(await put("12", await decision(fleetOwner(), "13", true)), 403, "UNAUTHORIZED_SIGNER");
    expect(await state("12")).toEqual(before);
  });

  it("a well-formed signature that recovers to nothing: 400 INVALID_SIGNATURE", async () => {
    const body = JSON.stringify({ opted_in: true, timestamp: now(), signature: `0x${"00".repeat(65)}` });
    expectCoded(await put("12", body), 400, "INVALID_SIGNATURE");
  });
});

describe("PUT: the machine's state", () => {
  it("opt-in of a deactivated machine: 409 MACHINE_DEACTIVATED; opt-out skips the check", async () => {
    const owner = new Wallet(p.demo.machines[2]!.ownerPrivateKey);
    expectCoded(await put("3", await decision(owner, "3", true)), 409, "MACHINE_DEACTIVATED");
    expect((await state("3")).status).toBe("PENDING");
    const signedAt = now();
    expectState(await put("3", await decision(owner, "3", false, { timestamp: signedAt })), 3, "OPTED_OUT", owner.address, signedAt);
  });

  it("opt-in of an unbonded machine: 409 MACHINE_NOT_BONDED", async () => {
    expectCoded(await put("14", await decision(fleetOwner(), "14", true)), 409, "MACHINE_NOT_BONDED");
    expect((await state("14")).status).toBe("PENDING");
  });

  it("opt-in of a machine not yet activated (registration pending): 409 MACHINE_NOT_ACTIVATED", async () => {
    const wallet = getAddress(`0x${randomBytes(20).toString("hex")}`);
    await transact(p, "IdentityRegistry", (r) => r.registerAt(61, wallet, p.demo.ratings.fleetOperator.address, { value: 10n ** 18n }));
    expectCoded(await put("61", await decision(fleetOperator(), "61", true)), 409, "MACHINE_NOT_ACTIVATED");
    const signedAt = now();
    expectState(await put("61", await decision(fleetOperator(), "61", false, { timestamp: signedAt })), 61, "OPTED_OUT", fleetOperator().address, signedAt);
  });

  it("an unknown machine: 404 MACHINE_NOT_FOUND", async () => {
    expectCoded(await put("424242", await decision(fleetOwner(), "424242", true)), 404, "MACHINE_NOT_FOUND");
  });
});

describe("PUT: freshness and strictly newer decisions", () => {
  it("outside the window (300 s past, 30 s future): 409 STALE_SIGNATURE, nothing stored; both edges are inside", async () => {
    expectCoded(await put("9", await decision(fleetOwner(), "9", true, { timestamp: now() - 301 })), 409, "STALE_SIGNATURE");
    expectCoded(await put("9", await decision(fleetOwner(), "9", true, { timestamp: now() + 31 })), 409, "STALE_SIGNATURE");
    expect((await state("9")).status).toBe("PENDING");
    const oldest = now() - 300;
    expectState(await put("9", await decision(fleetOwner(), "9", true, { timestamp: oldest })), 9, "OPTED_IN", fleetOwner().address, oldest);
    const newest = now() + 30;
    expectState(await put("9", await decision(fleetOwner(), "9", false, { timestamp: newest })), 9, "OPTED_OUT", fleetOwner().address, newest);
  });

  it("the window moves with the server's clock: a decision signed 31 s ahead is accepted 1 s later", async () => {
    const ahead = now() + 31;
    const body = await decision(fleetOwner(), "7", false, { timestamp: ahead });
    expectCoded(await put("7", body), 409, "STALE_SIGNATURE");
    expect((await state("7")).status).toBe("PENDING");
    clock.advance(1_000);
    expectState(await put("7", body), 7, "OPTED_OUT", fleetOwner().address, ahead);
  });

  it("the same or an older timestamp than the applied decision: 409 STALE_SIGNATURE, the applied one stays", async () => {
    const applied = await state("9");
    const same = await decision(fleetOwner(), "9", false, { timestamp: applied.updated_at });
    expectCoded(await put("9", same), 409, "STALE_SIGNATURE");
    expectCoded(await put("9", await decision(fleetOwner(), "9", false, { timestamp: applied.updated_at - 1 })), 409, "STALE_SIGNATURE");
    expect(await state("9")).toEqual(applied);
  });

  it("ten decisions in parallel: the newest is applied, whatever the order they arrive in", async () => {
    const base = now() - 100;
    const bodies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => decision(i % 2 ? fleetOwner() : fleetOperator(), "10", i % 2 === 0, { timestamp: base + i })),
    );
    const answers = await Promise.all(bodies.reverse().map((body) => put("10", body)));
    for (const answer of answers) expect([200, 409]).toContain(answer.status);
    expect(answers.filter((a) => a.status === 409).every((a) => a.json().detail.code === "STALE_SIGNATURE")).toBe(true);
    expect(await state("10")).toEqual({ machine_id: 10, status: "OPTED_OUT", signer: fleetOwner().address, updated_at: base + 9 });
  });
});

describe("PUT: the body", () => {
  const good = () => decision(fleetOwner(), "12", true);

  it.each([
    ["", { type: "missing", loc: ["body"], msg: "Field required", input: null }],
    ["{", { type: "json_invalid", loc: ["body", 1], msg: "JSON decode error", input: {}, ctx: { error: "Expecting property name enclosed in double quotes" } }],
    ['{"opted_in": tru}', { type: "json_invalid", loc: ["body", 13], msg: "JSON decode error", input: {}, ctx: { error: "Expecting value" } }],
    ['{"opted_in": true,}', { type: "json_invalid", loc: ["body", 18], msg: "JSON decode error", input: {}, ctx: { error: "Expecting property name enclosed in double quotes" } }],
    ['{"a":1}x', { type: "json_invalid", loc: ["body", 7], msg: "JSON decode error", input: {}, ctx: { error: "Extra data" } }],
    ['{"a":"\u00e9\\x"}', { type: "json_invalid", loc: ["body", 7], msg: "JSON decode error", input: {}, ctx: { error: "Invalid \\escape" } }],
    ['["a" "b"]', { type: "json_invalid", loc: ["body", 5], msg: "JSON decode error", input: {}, ctx: { error: "Expecting ',' delimiter" } }],
  ])("%j: 422 with FastAPI's validation list", async (body, error) => {
    const answer = await put("12", body);
    expect(answer.status).toBe(422);
    expect(answer.text).toBe(JSON.stringify({ detail: [error] }));
  });

  it.each([
    ["opted_in as a string", (b: any) => ({ ...b, opted_in: "true" })],
    ["opted_in as a number", (b: any) => ({ ...b, opted_in: 1 })],
    ["timestamp as a string", (b: any) => ({ ...b, timestamp: String(b.timestamp) })],
    ["timestamp 0", (b: any) => ({ ...b, timestamp: 0 })],
    ["a negative timestamp", (b: any) => ({ ...b, timestamp: -5 })],
    ["no signature", ({ signature: _s, ...b }: any) => b],
    ["a short signature", (b: any) => ({ ...b, signature: b.signature.slice(0, 100) })],
    ["a signature without 0x", (b: any) => ({ ...b, signature: `00${b.signature.slice(2)}` })],
    ["an array", (b: any) => [b]],
    ["null", () => null],
  ])("%s: 400 INVALID_REQUEST, state unchanged", async (_label, edit) => {
    const before = await state("12");
    expectCoded(await put("12", JSON.stringify(edit(JSON.parse(await good())))), 400, "INVALID_REQUEST");
    expect(await state("12")).toEqual(before);
  });

  it("a float timestamp (1.0 spelling) is not a JSON integer: 400 INVALID_REQUEST", async () => {
    const body = JSON.parse(await good());
    expectCoded(await put("12", `{"opted_in":true,"timestamp":${body.timestamp}.0,"signature":"${body.signature}"}`), 400, "INVALID_REQUEST");
  });

  it("bytes that are not UTF-8, another content type, an oversize body", async () => {
    expectCoded(await put("12", Buffer.from([0x7b, 0xff, 0x7d])), 400, "INVALID_REQUEST");
    expectCoded(await put("12", await good(), p.http, { "content-type": "text/plain" }), 400, "INVALID_REQUEST");
    expectCoded(await put("12", `{"pad":"${"x".repeat(5000)}"}`), 413, "REQUEST_TOO_LARGE");
  });

  it("extra members are ignored and a UTF-8 BOM is skipped, as the upstream reads JSON", async () => {
    const body = JSON.parse(await good());
    const text = JSON.stringify({ note: "hi", ...body });
    const answer = await put("12", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]));
    expectState(answer, 12, "OPTED_IN", fleetOwner().address, body.timestamp);
  });
});

describe("the 2.0 deployment", () => {
  const v2 = () => p.demo.ratings.v2Machine;

  it("decisions are per deployment: the 2.0 machine with the machine registry in the message, machine IDs as strings", async () => {
    const t = now();
    const body = await decision(fleetOwner(), v2().machineId, true, { deployment: "v2", timestamp: t });
    expectState(await put(v2().machineId, body, p.mcr2), v2().machineId, "OPTED_IN", fleetOwner().address, t);
    expect(await state(v2().did, p.mcr2)).toMatchObject({ machine_id: v2().machineId, status: "OPTED_IN" });
    expectCoded(await get(url(v2().machineId)), 404, "MACHINE_NOT_FOUND");
  });

  it("machine 1 is known to both with separate state; a 1.0 signature does not pass on 2.0", async () => {
    const owner = new Wallet(p.demo.machines[0]!.ownerPrivateKey);
    const v1Body = await decision(owner, "1", true);
    expect((await put("1", v1Body)).status).toBe(200);
    expect((await state("1", p.mcr2)).status).toBe("PENDING");
    expectCoded(await put("1", v1Body, p.mcr2), 403, "UNAUTHORIZED_SIGNER");
    expectCoded(await get(url(p.demo.machines[0]!.legacyDid, p.mcr2)), 400, "INVALID_REQUEST");
  });
});

describe("the compatibility signal and other doors", () => {
  it("GET /.well-known/service-monetization on each deployment", async () => {
    const signal = (await get(`${p.http}/.well-known/service-monetization`)).json();
    expect(signal).toEqual({
      api: "service-monetization",
      version: 1,
      deployment: "1.0",
      chain_id: 3338,
      registry: p.demo.contracts.IdentityRegistry.toLowerCase(),
      message_template:
        "{namespace} monetization decision v1\nregistry: {registry}\nchain_id: {chain_id}\nmachine_id: {machine_id}\nopted_in: {opted_in}\ntimestamp: {timestamp}",
      freshness: { max_age_seconds: 300, max_future_seconds: 30 },
    });
    const v2 = (await get(`${p.mcr2}/.well-known/service-monetization`)).json();
    expect(v2).toMatchObject({ deployment: "2.0", registry: p.demo.contracts.MachineRegistry.toLowerCase() });
    expectDetail(await get(`${p.http}/.well-known/peaq-monetization`), 404, "Not Found");
  });

  it("the CLI prints a PUT body the server accepts", async () => {
    const run = await runCli(p, ["monetization", "sign", "--machine", "13", "--opt-out"]);
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.parse(run.stdout);
    expect(Object.keys(body)).toEqual(["opted_in", "timestamp", "signature"]);
    // The CLI signs at its own (wall-clock) now: the platform's clock is brought to that second.
    clock.set(body.timestamp * 1000);
    expectState(await put("13", run.stdout), 13, "OPTED_OUT", fleetOwner().address, body.timestamp);
    expect((await runCli(p, ["monetization", "sign", "--machine", "13", "--opt-in", "--opt-out"])).code).toBe(2);
  });

  it("GraphQL: the same mutation, and one query reads verification, rating, card and monetization of a machine", async () => {
    const owner = new Wallet(p.demo.machines[1]!.ownerPrivateKey);
    const signed = JSON.parse(await decision(owner, "2", false));
    const { body } = await graphql(
      p.graphql,
      `mutation ($d: MonetizationDecisionInput!) { setMachineMonetization(key: "2", decision: $d) { machineId status signer } }`,
      { d: { optedIn: false, timestamp: signed.timestamp, signature: signed.signature } },
    );
    expect(body.data.setMachineMonetization).toEqual({ machineId: "2", status: "OPTED_OUT", signer: owner.address });
    const read = await graphql(
      p.graphql,
      `{ machine(machineId: "2") {
          verification { verification { chip { status } } }
          rating { mcr eventCount } card { name } monetization { status updatedAt }
          v2: monetization(deployment: V2) { status }
        } }`,
    );
    expect(read.body.data.machine).toEqual({
      verification: { verification: { chip: { status: "UNVERIFIED" } } },
      rating: { mcr: "PROVISIONED", eventCount: 5 },
      card: { name: "Machine #2" },
      monetization: { status: "OPTED_OUT", updatedAt: signed.timestamp },
      v2: { status: "PENDING" },
    });
  });
});
