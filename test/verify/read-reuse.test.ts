/**
 * The read route with answer reuse on (role `all`'s default, rest-shim/answer-reuse.ts) against the real chain: a
 * reused answer carries exactly the bytes of the uncached one (the shim's own operation run through the GraphQL
 * listener, which never reuses, serialised the way the shim serialises `data`), and a write by another process (the
 * operator CLI's attestation transaction) or a block that only moves the chain's clock is served at once after the
 * reader pins it, never the answer kept for the block before.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERIFY_OPERATIONS, verificationRecordJson } from "../../rest-shim/routes/verify.js";
import { restSpelling } from "../../rest-shim/routes/enum-spelling.js";
import { mineBlock } from "../support/chain.js";
import { runCli } from "../support/cli.js";
import { GENEROUS_LIMITS } from "../support/config.js";
import { get } from "../support/http.js";
import { eventually, graphql, PLATFORM_START_TIMEOUT_MS, startTestPlatform, type TestPlatform } from "../support/platform.js";
import { expectVerifyHeaders } from "../support/verify.js";

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform({ ...GENEROUS_LIMITS });
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const rest = (machineId: string) => get(`${p.http}/v1/verify/machines/${machineId}`, { headers: { accept: "application/json" } });

/** The uncached answer: the shim's own document through the GraphQL listener, written as the shim writes it (statuses in their REST spelling). */
async function uncachedBytes(machineId: string): Promise<Buffer> {
  const { status, body } = await graphql(p.graphql, VERIFY_OPERATIONS.verifyMachine.document, { machineId });
  expect(status).toBe(200);
  expect(body.errors).toBeUndefined();
  expect(body.data.machineVerification.verification.kyb.status).toMatch(/^[A-Z]+$/);
  return verificationRecordJson(restSpelling(VERIFY_OPERATIONS.verifyMachine, body.data));
}

/** Two REST answers in one block (the second reused) and the uncached answer: all the same bytes, no-store. */
async function expectSameBytes(machineId: string): Promise<any> {
  const first = await rest(machineId);
  const second = await rest(machineId);
  const uncached = await uncachedBytes(machineId);
  for (const answer of [first, second]) {
    expect(answer.status).toBe(200);
    expectVerifyHeaders(answer);
    expect(Buffer.from(answer.text, "utf8")).toEqual(uncached);
  }
  return second.json();
}

/** Until the REST answer shows `status` for the topic (the reader pins a new block within a poll); then its bytes. */
async function statusBecomes(machineId: string, topic: "kyb" | "chip", status: string): Promise<void> {
  await eventually(async () => {
    const answer = await rest(machineId);
    expect(answer.status).toBe(200);
    return answer.json().verification[topic].status === status ? true : undefined;
  });
  expect((await expectSameBytes(machineId)).verification[topic].status).toBe(status);
}

describe("read route answer reuse", () => {
  it("serves every demo machine's record with the uncached answer's bytes, reused or not", async () => {
    const served = p.demo.machines.filter((m) => m.state !== "second-chain");
    expect(served.length).toBeGreaterThan(3);
    for (const machine of served) expect((await expectSameBytes(machine.machineId)).machineId).toBe(machine.machineId);
  });

  it("serves a write by another process and a clock-only block as soon as the reader pins them", async () => {
    const machine = p.machine("active", 1); // its operator has no KYB record
    expect((await expectSameBytes(machine.machineId)).verification.kyb.status).toBe("unverified");
    const run = await runCli(p, ["attest", "kyb", "--operator", machine.operatorAddress, "--ttl", "600"]);
    expect(run.code, run.stderr).toBe(0);
    await statusBecomes(machine.machineId, "kyb", "verified");
    await mineBlock(p, 1200); // no transaction: only the block time passes the expiry
    await statusBecomes(machine.machineId, "kyb", "expired");
  });
});
