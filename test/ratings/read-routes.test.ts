/**
 * Document 2's read routes on the 1.0 listener, through the REST shim over real sockets, against the demo fixture on
 * the embedded chain: every rating band and bond state, the profile's visibilities, metadata, operator listings,
 * machine cards, FastAPI's 422 lists, and every detail string these routes answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { getAddress } from "ethers";
import { DEMO_RATED_MACHINES } from "../../subgraphs/shared/chain/demo-ratings.js";
import { expectDetail, rated, startRatingsPlatform, transact, type RatingsPlatform } from "./helpers.js";
import { get } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";

let p: RatingsPlatform;
beforeAll(async () => {
  p = await startRatingsPlatform();
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const mcr = (did: string) => get(`${p.http}/mcr/${did}`);

/** The scorecard body exactly as FastAPI writes it (compact, documented order), with `last_updated` as answered. */
function scorecardText(fields: {
  did: string;
  machineId: string;
  score: number;
  rating: string;
  degraded?: boolean;
  bond?: string;
  flag?: boolean;
  counts: [number, number, number];
  trend: string;
  total: number;
  average: string;
  lastUpdated: number | null;
}): string {
  const [events, revenue, activity] = fields.counts;
  return (
    `{"did":${JSON.stringify(fields.did)},"machine_id":${fields.machineId},"mcr_score":${fields.score},"mcr":"${fields.rating}",` +
    `"mcr_degraded":${fields.degraded ?? false},"bond_status":"${fields.bond ?? "bonded"}","negative_flag":${fields.flag ?? false},` +
    `"event_count":${events},"revenue_event_count":${revenue},"activity_event_count":${activity},"revenue_trend":"${fields.trend}",` +
    `"total_revenue":${fields.total},"average_revenue_per_event":${fields.average},"last_updated":${fields.lastUpdated}}`
  );
}

describe("GET /mcr/{did}", () => {
  const expectations: Array<[id: number, score: number, rating: string, counts: [number, number, number], trend: string, total: number, average: string, extra?: object]> = [
    [7, 100, "AAA", [50, 50, 0], "up", 1_500_000, "30000.0"],
    [8, 85, "AA", [50, 50, 0], "up", 1_500_000, "30000.0"],
    [9, 82, "A", [50, 50, 0], "up", 1_500_000, "30000.0"],
    [10, 70, "BBB", [50, 50, 0], "up", 1_500_000, "30000.0", { flag: true }],
    [11, 56, "BB", [45, 0, 45], "insufficient", 0, "0.0"],
    [12, 37, "B", [20, 0, 20], "insufficient", 0, "0.0"],
    [13, 0, "NR", [11, 1, 10], "insufficient", 0, "0.0", { degraded: true }],
    [14, 0, "NR", [0, 0, 0], "insufficient", 0, "0.0", { bond: "unbonded" }],
    [15, 0, "Provisioned", [3, 0, 3], "insufficient", 0, "0.0"],
  ];

  it.each(expectations)("machine %i: score %i, %s, byte for byte", async (id, score, rating, counts, trend, total, average, extra) => {
    const machine = rated(p, id);
    const answer = await mcr(machine.did);
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/json");
    const lastUpdated = answer.json().last_updated;
    expect(lastUpdated === null ? counts[0] === 0 : Number.isInteger(lastUpdated)).toBe(true);
    expect(answer.text).toBe(
      scorecardText({ did: machine.did, machineId: String(id), score, rating, counts, trend, total, average, lastUpdated, ...extra }),
    );
  });

  it("every demo band is the one the fixture says", () => {
    expect(expectations.map(([id, , rating]) => [id, rating.replace("NR", "NR")])).toEqual(
      DEMO_RATED_MACHINES.map((spec) => [spec.id, spec.expectedRating.replace(" (unbonded)", "")]),
    );
  });

  it("takes the raw 0x address too, and echoes the DID exactly as supplied", async () => {
    const machine = rated(p, 7);
    const lower = machine.machineAddress.toLowerCase();
    const answer = await mcr(lower);
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ did: lower, machine_id: 7, mcr: "AAA" });
  });

  it.each([
    ["did:service:", 400, "Empty DID"],
    ["did:service:0x12", 400, "Invalid Ethereum address format"],
    ["0xZZ11B9d720a7ec8342c8723AAd1C49f9988e4011", 400, "Invalid Ethereum address format"],
    ["did:service:7", 400, "Invalid Ethereum address format"],
    ["did:other:0xd4211B9d720a7ec8342c8723AAd1C49f9988e401", 400, "Invalid Ethereum address format"],
    [`did:service:0x${"ab".repeat(20)}`, 404, "Machine not found"],
  ])("%s: %i %s", async (did, status, detail) => {
    expectDetail(await mcr(did), status, detail);
  });

  it("the 1.0 server does not know the 2.0 machine (registered in the machine registry only)", async () => {
    const v2 = p.demo.ratings.v2Machine;
    expectDetail(await mcr(`did:service:${v2.machineAddress}`), 404, "Machine not found");
    expectDetail(await get(`${p.http}/machines/${v2.machineId}`), 404, "Machine not found");
  });
});

describe("GET /machine/{did} and GET /metadata/{token_id}", () => {
  const profile = async (id: number) => {
    const answer = await get(`${p.http}/machine/${rated(p, id).did}`);
    expect(answer.status).toBe(200);
    return answer.json();
  };

  it("base fields and private visibility with a data_api", async () => {
    const machine = rated(p, 8);
    expect(await profile(8)).toEqual({
      schema_version: "1.0",
      name: `Machine #${machine.tokenId}`,
      peaqos: {
        machine_id: 8,
        did: machine.did,
        operator: p.demo.ratings.fleetOperator.did,
        mcr: "AA",
        mcr_score: 85,
        bond_status: "bonded",
        negative_flag: false,
        event_count: 50,
        data_visibility: "private",
        documentation_url: "https://docs.example/machines/8",
        data_api: "https://partner.example/machines/8",
      },
    });
  });

  it("private visibility without a data_api has no data_api member; no NFT reads `Machine (no NFT)`", async () => {
    const body = await profile(15);
    expect(body.name).toBe("Machine (no NFT)");
    expect(Object.keys(body.peaqos)).toEqual([
      "machine_id", "did", "operator", "mcr", "mcr_score", "bond_status", "negative_flag", "event_count", "data_visibility",
      "documentation_url",
    ]);
  });

  it("machines without a data_visibility attribute read private and operator null", async () => {
    const answer = await get(`${p.http}/machine/${p.demo.machines[2]!.legacyDid}`);
    const body = answer.json();
    expect(body.peaqos).toMatchObject({ machine_id: 3, data_visibility: "private", documentation_url: null });
    expect(body.peaqos.operator).toMatch(/^did:service:0x/);
  });

  it("onchain visibility lists the first events, oldest first, with USD values on revenue", async () => {
    const body = await profile(10);
    expect(body.peaqos.data_visibility).toBe("onchain");
    expect(body.peaqos.negative_flag).toBe(true);
    const events = body.peaqos.event_data;
    expect(events).toHaveLength(50);
    expect(Object.keys(events[0])).toEqual([
      "event_type", "value", "currency", "timestamp", "data_hash", "trust_level", "source_chain_id", "source_tx_hash",
      "metadata", "usd_value", "amount_status",
    ]);
    expect(events[0]).toMatchObject({ event_type: 0, value: 30000, currency: "USD", trust_level: 2, usd_value: 30000, amount_status: "ok", metadata: "0x" });
    // Submitted newest day last: day 1 .. day 50 ago means timestamps fall along the list.
    expect(events[0].timestamp).toBeGreaterThan(events[49].timestamp);
  });

  it("an activity event has no usd_value or amount_status", async () => {
    const answer = await get(`${p.http}/machine/${p.demo.machines[0]!.legacyDid}`);
    const events = answer.json().peaqos.event_data;
    const activity = events.find((e: { event_type: number }) => e.event_type === 1);
    expect(Object.keys(activity)).not.toContain("usd_value");
    expect(Object.keys(activity)).not.toContain("amount_status");
  });

  it("public visibility fetches the data_api live; a loopback URL is refused (blocked_loopback)", async () => {
    const body = await profile(7);
    expect(body.peaqos).toMatchObject({
      data_visibility: "public",
      data_api: "http://127.0.0.1/partner-data",
      partner_data: null,
      partner_data_error: "blocked_loopback",
    });
    expect(Object.keys(body.peaqos).slice(-3)).toEqual(["data_api", "partner_data", "partner_data_error"]);
  });

  it("public visibility without a data_api says not_configured", async () => {
    const answer = await get(`${p.http}/machine/${p.demo.machines[3]!.legacyDid}`);
    expect(answer.json().peaqos).toMatchObject({ data_visibility: "public", data_api: null, partner_data: null, partner_data_error: "not_configured" });
  });

  it("/metadata/{token_id} answers the same body for the machine's NFT token", async () => {
    const machine = rated(p, 9);
    const metadata = await get(`${p.http}/metadata/${machine.tokenId}`);
    const byDid = await get(`${p.http}/machine/${machine.did}`);
    expect(metadata.status).toBe(200);
    expect(metadata.text).toBe(byDid.text);
    // A token ID spelled as pydantic accepts it is the same token.
    expect((await get(`${p.http}/metadata/%20${machine.tokenId}.0`)).text).toBe(byDid.text);
  });

  it.each([
    ["999999", 404, "Token not found"],
  ])("/metadata/%s: %i %s", async (token, status, detail) => {
    expectDetail(await get(`${p.http}/metadata/${token}`), status, detail);
  });

  it("the 2.0 machine's token is not a 1.0 machine: 404 Machine not registered", async () => {
    expectDetail(await get(`${p.http}/metadata/${p.demo.ratings.v2Machine.tokenId}`), 404, "Machine not registered");
  });

  it.each([
    ["0", "greater_than_equal", "Input should be greater than or equal to 1", { ge: 1 }],
    ["-3", "greater_than_equal", "Input should be greater than or equal to 1", { ge: 1 }],
    ["abc", "int_parsing", "Input should be a valid integer, unable to parse string as an integer", undefined],
    ["1.5", "int_parsing", "Input should be a valid integer, unable to parse string as an integer", undefined],
    ["0x10", "int_parsing", "Input should be a valid integer, unable to parse string as an integer", undefined],
  ])("/metadata/%s: FastAPI's 422 (%s)", async (token, type, msg, ctx) => {
    const answer = await get(`${p.http}/metadata/${token}`);
    expect(answer.status).toBe(422);
    expect(answer.text).toBe(JSON.stringify({ detail: [{ type, loc: ["path", "token_id"], msg, input: token, ...(ctx ? { ctx } : {}) }] }));
  });
});

describe("GET /operator/{did}/machines", () => {
  const fleet = () => p.demo.ratings.fleetOperator;
  const listing = (query = "", did = fleet().did) => get(`${p.http}/operator/${did}/machines${query}`);

  it("pages the operator's machines attribute with full MCRs; total counts entries before dropping unknown IDs", async () => {
    const first = await listing("?limit=3");
    expect(first.status).toBe(200);
    expect(first.json()).toEqual({
      operator_did: fleet().did,
      machines: [7, 8, 9].map((id) => {
        const scores: Record<number, [number, string]> = { 7: [100, "AAA"], 8: [85, "AA"], 9: [82, "A"] };
        return { did: rated(p, id).did, machine_id: id, mcr_score: scores[id]![0], mcr: scores[id]![1], negative_flag: false };
      }),
      pagination: { offset: 0, limit: 3, total: 10 },
    });
    // The last page holds 15 and the unregistered 999, which is dropped: a short page.
    const last = (await listing("?offset=8&limit=5")).json();
    expect(last.machines.map((m: { machine_id: number }) => m.machine_id)).toEqual([15]);
    expect(last.pagination).toEqual({ offset: 8, limit: 5, total: 10 });
  });

  it("defaults to offset 0 and limit 20; takes the raw address", async () => {
    const body = (await listing("", fleet().address.toLowerCase())).json();
    expect(body.pagination).toEqual({ offset: 0, limit: 20, total: 10 });
    expect(body.operator_did).toBe(fleet().address.toLowerCase());
    expect(body.machines.map((m: { machine_id: number }) => m.machine_id)).toEqual([7, 8, 9, 10, 11, 12, 13, 14, 15]);
  });

  it("an operator without machines: 200, total 0, empty array", async () => {
    const nobody = `did:service:${getAddress(`0x${randomBytes(20).toString("hex")}`)}`;
    const answer = await listing("", nobody);
    expect(answer.text).toBe(JSON.stringify({ operator_did: nobody, machines: [], pagination: { offset: 0, limit: 20, total: 0 } }));
  });

  it.each([
    ["?offset=-1", [["greater_than_equal", "offset", "Input should be greater than or equal to 0", "-1", { ge: 0 }]]],
    ["?limit=0", [["greater_than_equal", "limit", "Input should be greater than or equal to 1", "0", { ge: 1 }]]],
    ["?limit=21", [["less_than_equal", "limit", "Input should be less than or equal to 20", "21", { le: 20 }]]],
    ["?limit=ten", [["int_parsing", "limit", "Input should be a valid integer, unable to parse string as an integer", "ten"]]],
    ["?limit=", [["int_parsing", "limit", "Input should be a valid integer, unable to parse string as an integer", ""]]],
    [
      "?limit=50&offset=x",
      [
        ["int_parsing", "offset", "Input should be a valid integer, unable to parse string as an integer", "x"],
        ["less_than_equal", "limit", "Input should be less than or equal to 20", "50", { le: 20 }],
      ],
    ],
  ] as const)("%s: FastAPI's 422 list", async (query, errors) => {
    const answer = await listing(query);
    expect(answer.status).toBe(422);
    const detail = errors.map(([type, name, msg, input, ctx]) => ({ type, loc: ["query", name], msg, input, ...(ctx ? { ctx } : {}) }));
    expect(answer.text).toBe(JSON.stringify({ detail }));
  });

  it("the last of repeated parameters counts, as in Starlette; other parameters are ignored", async () => {
    expect((await listing("?limit=50&limit=2&foo=bar")).json().pagination).toEqual({ offset: 0, limit: 2, total: 10 });
  });

  it.each([
    ["did:service:", "Empty DID"],
    ["did:service:0x1234", "Invalid Ethereum address format"],
  ])("%s: 400 %s", async (did, detail) => {
    expectDetail(await listing("", did), 400, detail);
  });
});

describe("GET /machines/{machine_id}", () => {
  it("answers the machine card with the registry read from the RPC at startup", async () => {
    const machine = rated(p, 7);
    const answer = await get(`${p.http}/machines/7`);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(
      JSON.stringify({
        type: "peaqos:registration:v1",
        name: "Machine #7",
        description: "peaqOS machine",
        did: machine.did,
        active: true,
        services: [{ name: "web", endpoint: "http://127.0.0.1/partner-data" }],
        data_visibility: "public",
        documentation_url: "https://docs.example/machines/7",
        operator: p.demo.ratings.fleetOperator.did,
        bond_status: "bonded",
        event_count: 50,
        registrations: [
          { type: "peaqos:registration:v1", machineId: 7, machineRegistry: `eip155:3338:${p.demo.contracts.IdentityRegistry}` },
        ],
      }),
    );
  });

  it("no data_api: no services; no documentation_url: an empty string; unbonded shows", async () => {
    const body = (await get(`${p.http}/machines/2`)).json();
    expect(body).toMatchObject({ services: [], documentation_url: "", data_visibility: "private" });
    expect((await get(`${p.http}/machines/14`)).json().bond_status).toBe("unbonded");
  });

  it("unknown ID: 404 Machine not found; bad ID: 422", async () => {
    expectDetail(await get(`${p.http}/machines/424242`), 404, "Machine not found");
    expectDetail(await get(`${p.http}/machines/0`), 404, "Machine not found");
    const answer = await get(`${p.http}/machines/seven`);
    expect(answer.status).toBe(422);
    expect(answer.json().detail[0]).toMatchObject({ type: "int_parsing", loc: ["path", "machine_id"], input: "seven" });
  });

  it("a machine whose wallet was unlinked: the card is 404 Machine wallet not found, its old DID unknown", async () => {
    // Machine 60: registered for this test, then its wallet unlinked by the admin.
    const wallet = getAddress(`0x${randomBytes(20).toString("hex")}`);
    await transact(p, "IdentityRegistry", (registry) => registry.registerAt(60, wallet, p.demo.ratings.fleetOperator.address, { value: 10n ** 18n }));
    await transact(p, "MachineNFT", (nft) => nft.mint(60, p.demo.ratings.fleetOwner.address));
    expect((await get(`${p.http}/machines/60`)).status).toBe(200);
    await transact(p, "IdentityRegistry", (registry) => registry.clearMachineAddress(60));
    expectDetail(await get(`${p.http}/machines/60`), 404, "Machine wallet not found");
    expectDetail(await get(`${p.http}/mcr/did:service:${wallet}`), 404, "Machine not found");
  });
});
