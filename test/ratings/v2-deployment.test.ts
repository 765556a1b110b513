/**
 * The 2.0 deployment from the same build, on its own listener (MCR2_PORT): decimal-ID DIDs, address DIDs refused,
 * second-chain routes absent, and the operator route served from the ownership index synced to the finalized block.
 * The sync job is off here (MCR2_INDEX_SYNC_MS=0), so the suite holds the index behind for real and moves it itself.
 */
import { AbiCoder, keccak256, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectDetail, rated, startRatingsPlatform, transact, type RatingsPlatform } from "./helpers.js";
import { rpc } from "../support/chain.js";
import { get } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";

const BATCH = 40;

let p: RatingsPlatform;
beforeAll(async () => {
  p = await startRatingsPlatform({ MCR2_INDEX_SYNC_MS: "0", MCR2_INDEX_BATCH_BLOCKS: String(BATCH), MCR2_INDEX_MAX_LAG_BLOCKS: "5" });
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const index = () => p.platform.services.ratings!.ownershipIndex;
const owner = () => p.demo.ratings.fleetOwner;
const ownerListing = (query = "") => get(`${p.mcr2}/operator/${owner().did}/machines${query}`);

async function finalizedBlock(): Promise<number> {
  const block = (await rpc(p, "eth_getBlockByNumber", ["finalized", false])) as { number: string };
  return Number(BigInt(block.number));
}

describe("the operator route while the ownership index catches up", () => {
  it("before any sync: 503 naming the sync position", async () => {
    const finalized = await finalizedBlock();
    expect(finalized).toBeGreaterThan(BATCH);
    expectDetail(await ownerListing(), 503, `Operator index syncing: synced to block 0 of finalized block ${finalized}`);
  });

  it("each sync step moves the position by one batch, and the answer says so", async () => {
    const step = await index().syncStep();
    expect(step.syncedBlock).toBe(BATCH);
    expectDetail(await ownerListing(), 503, `Operator index syncing: synced to block ${BATCH} of finalized block ${step.finalizedBlock}`);
  });

  it("caught up: the owner's machines from the index, with machine IDs as decimal strings", async () => {
    const position = await index().sync();
    expect(position.syncedBlock).toBe(position.finalizedBlock);
    const v2 = p.demo.ratings.v2Machine;
    const answer = await ownerListing();
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(
      JSON.stringify({
        operator_did: owner().did,
        machines: [{ did: v2.did, machine_id: v2.machineId, mcr_score: 0, mcr: "Provisioned", negative_flag: false }],
        pagination: { offset: 0, limit: 20, total: 1 },
      }),
    );
    // Machines 1-6 are in the machine registry too: each demo owner owns one.
    const ownerOfOne = p.demo.machines[0]!;
    const one = (await get(`${p.mcr2}/operator/did:service:${ownerOfOne.ownerAddress}/machines`)).json();
    expect(one.machines.map((m: { machine_id: string }) => m.machine_id)).toEqual(["1"]);
  });

  it("a new registration and an NFT transfer show once finalized and indexed; a small lag is still served", async () => {
    const machineId = BigInt(keccak256(AbiCoder.defaultAbiCoder().encode(["string", "string"], ["demo-robot", "test-robot-2"])));
    const wallet = Wallet.createRandom().address;
    await transact(p, "MachineRegistry", (registry) =>
      registry.registerMachine(machineId, wallet, p.demo.ratings.fleetOperator.address, owner().address, 0, 3338, `0x${"00".repeat(32)}`),
    );
    // Up to MCR2_INDEX_MAX_LAG_BLOCKS behind, the index still answers (without the new machine).
    expect((await ownerListing()).json().pagination.total).toBe(1);
    await rpc(p, "anvil_mine", ["0x3"]);
    await index().sync();
    const body = (await ownerListing()).json();
    expect(body.pagination.total).toBe(2);
    expect(body.machines.map((m: { machine_id: string }) => m.machine_id)).toContain(machineId.toString());

    const tokenId = await tokenOf(machineId);
    const buyer = Wallet.createRandom().address;
    await transact(p, "MachineNFT", (nft) => nft.transferFrom(owner().address, buyer, tokenId), owner().privateKey);
    await rpc(p, "anvil_mine", ["0x3"]);
    await index().sync();
    expect((await ownerListing()).json().pagination.total).toBe(1);
    const bought = (await get(`${p.mcr2}/operator/did:service:${buyer}/machines`)).json();
    expect(bought.machines.map((m: { machine_id: string }) => m.machine_id)).toEqual([machineId.toString()]);
  });

  it("more than the allowed lag behind the finalized block: 503 again until the next sync", async () => {
    await rpc(p, "anvil_mine", ["0xa"]);
    const answer = await ownerListing();
    expect(answer.status).toBe(503);
    expect(answer.json().detail).toMatch(/^Operator index syncing: synced to block \d+ of finalized block \d+$/);
    await index().sync();
    expect((await ownerListing()).status).toBe(200);
  });
});

/** The machine's NFT token, as its 2.0 profile names it (`Machine #<token>`). */
async function tokenOf(machineId: bigint): Promise<bigint> {
  const profile = (await get(`${p.mcr2}/machine/did:service:${machineId}`)).json();
  return BigInt(profile.name.slice("Machine #".length));
}

describe("2.0 addressing", () => {
  const v2 = () => p.demo.ratings.v2Machine;

  it("GET /mcr/did:<m>:<decimal id> with the machine ID as a string", async () => {
    const answer = await get(`${p.mcr2}/mcr/did:service:1`);
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ did: "did:service:1", machine_id: "1", mcr: "Provisioned", event_count: 5 });
    expect((await get(`${p.mcr2}/mcr/${v2().did}`)).json()).toMatchObject({ machine_id: v2().machineId, bond_status: "bonded", event_count: 0 });
  });

  it.each([
    ["an address DID", () => rated(p, 7).did, 400, "Invalid machine DID format"],
    ["a raw address", () => rated(p, 7).machineAddress, 400, "Invalid machine DID format"],
    ["a bare decimal", () => "1", 400, "Invalid machine DID format"],
    ["a leading zero", () => "did:service:01", 400, "Invalid machine DID format"],
    ["2^256", () => `did:service:${1n << 256n}`, 400, "Invalid machine DID format"],
    ["an empty DID", () => "did:service:", 400, "Empty DID"],
    ["a machine only 1.0 knows", () => "did:service:7", 404, "Machine not found"],
  ])("%s: %i %s", async (_label, did, status, detail) => {
    expectDetail(await get(`${p.mcr2}/mcr/${did()}`), status, detail);
  });

  it("the machine card by decimal ID names the machine registry", async () => {
    const body = (await get(`${p.mcr2}/machines/${v2().machineId}`)).json();
    expect(body).toMatchObject({ did: v2().did, bond_status: "bonded" });
    expect(body.registrations).toEqual([
      { type: "peaqos:registration:v1", machineId: v2().machineId, machineRegistry: `eip155:3338:${p.demo.contracts.MachineRegistry}` },
    ]);
  });

  it("profiles and metadata resolve through the machine registry", async () => {
    const profile = (await get(`${p.mcr2}/machine/${v2().did}`)).json();
    expect(profile).toMatchObject({ name: `Machine #${v2().tokenId}`, peaqos: { machine_id: v2().machineId, did: v2().did } });
    expect((await get(`${p.mcr2}/metadata/${v2().tokenId}`)).text).toBe((await get(`${p.mcr2}/machine/${v2().did}`)).text);
    expectDetail(await get(`${p.mcr2}/metadata/${rated(p, 7).tokenId}`), 404, "Machine not registered");
  });

  it("second-chain routes are disabled on 2.0", async () => {
    const key = p.demo.ratings.altchainBindings[0]!.altchainKey;
    expectDetail(await get(`${p.mcr2}/altchain/mcr/${key}`), 404, "Not Found");
    expectDetail(await get(`${p.mcr2}/altchain/operator/${key}/machines`), 404, "Not Found");
    expect((await get(`${p.http}/altchain/mcr/${key}`)).status).toBe(200);
  });

  it("the probes answer on the 2.0 listener too", async () => {
    expect((await get(`${p.mcr2}/health`)).text).toBe('{"status":"ok"}');
    expect((await get(`${p.mcr2}/ready`)).status).toBe(200);
  });
});
