/**
 * The chip verification walkthrough as a user does it, against one running platform: challenge over REST, evidence
 * built by the CLI from the challenge file, evidence POSTed, the operator lists and attests it with the CLI, and the
 * read route shows the chip verified. Then the operator's guard rails (attestation must match, operator token), and
 * the KYB topic driven by the CLI: verified, revoked, expired.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evidenceFor, graphqlCode, issueChallenge, postEvidence, type VerifyPlatform, startVerifyPlatform } from "./helpers.js";
import { mineBlock } from "../support/chain.js";
import { runCli } from "../support/cli.js";
import { BEARER, OPERATOR_TOKEN } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";
import { expectReceipt } from "../support/verify.js";
import { eventually } from "../support/wait.js";

let p: VerifyPlatform;
beforeAll(async () => {
  // The shipped block-watcher period (the test default is 50 ms): the walkthrough runs as a user's platform does.
  p = await startVerifyPlatform({ CHAIN_POLL_MS: "250" });
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const OPERATOR_AUTH = `Bearer ${OPERATOR_TOKEN}`;
const PENDING = "query { pendingChipEvidence { receiptId machineId chipRef evidenceHash acceptedAt attestedAt } }";
const RECORD = `mutation ($receiptId: String!, $uid: String!) {
  recordChipAttestation(receiptId: $receiptId, attestationUid: $uid) { receiptId attestedAt } }`;

async function verification(machineId: string): Promise<{ kyb: { status: string }; chip: { status: string } }> {
  const response = await fetch(`${p.http}/v1/verify/machines/${machineId}`, { headers: { accept: "application/json" } });
  expect(response.status).toBe(200);
  return (await response.json()).verification;
}

/** Waits until the read route shows `status` for the topic (the chain reader caches per block). */
const statusBecomes = (machineId: string, topic: "kyb" | "chip", status: string) =>
  eventually(async () => ((await verification(machineId))[topic].status === status ? true : undefined));

/** One JSON line per record on stdout; an empty list is the one line `[]`. */
const jsonLines = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => {
      const value = JSON.parse(line);
      return Array.isArray(value) ? value : [value];
    });

async function cli(args: string[], env: Record<string, string> = {}) {
  const run = await runCli(p, args, env);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout;
}

/** Evidence of a demo machine accepted by the route (built with the kit): its receipt. */
async function acceptedReceipt(machine = p.machine("active", 0)): Promise<string> {
  const challenge = await issueChallenge(p, machine.machineId);
  return expectReceipt(await postEvidence(p, evidenceFor(challenge, machine)));
}

/** `evidence attest`: the CLI attests the evidence on chain and records it; returns the attestation uid. */
async function attestWithCli(receiptId: string): Promise<string> {
  const [result] = jsonLines(await cli(["evidence", "attest", "--receipt", receiptId]));
  expect(result.receiptId).toBe(receiptId);
  expect(result.uid).toMatch(/^0x[0-9a-f]{64}$/);
  return result.uid;
}

const pendingReceipts = async () => jsonLines(await cli(["evidence", "pending"])).map((r) => r.receiptId);

describe("chip: challenge -> evidence (CLI) -> 202 -> operator attests (CLI) -> verified", () => {
  it("walks the whole way for machine 2, checking each step's visible state", async () => {
    const machineId = "2";
    expect((await verification(machineId)).chip.status).toBe("unverified");
    // Nothing pending yet: an empty JSON array (or "(none)" in table mode), never silence.
    expect(await cli(["evidence", "pending"])).toBe("[]\n");
    expect(await cli(["evidence", "pending", "--table"])).toBe("(none)\n");

    // The CLI builds the evidence file from the challenge file; the route accepts it byte for byte.
    const challenge = await issueChallenge(p, machineId);
    const challengeFile = path.join(p.dataDir, "challenge.json");
    await writeFile(challengeFile, JSON.stringify(challenge));
    const evidence = await cli(["evidence", "--challenge", challengeFile, "--machine", machineId]);
    expect(evidence.endsWith("}")).toBe(true); // no trailing newline
    const receiptId = expectReceipt(await postEvidence(p, evidence));
    // Accepted evidence is neither a verified status nor an on-chain record.
    expect((await verification(machineId)).chip.status).toBe("unverified");

    // `evidence pending` lists it.
    const record = jsonLines(await cli(["evidence", "pending"])).find((r) => r.receiptId === receiptId);
    expect(record).toMatchObject({ receiptId, machineId, attestedAt: null });
    expect(record.chipRef).toMatch(/^0x[0-9a-f]{64}$/);
    expect(record.evidenceHash).toMatch(/^0x[0-9a-f]{64}$/);
    // Table mode: a header, then one aligned row per record.
    const [header, row, ...more] = (await cli(["evidence", "pending", "--table"])).trimEnd().split("\n");
    expect(header!.split(/\s+/)).toEqual(["receiptId", "machineId", "chipRef", "evidenceHash", "acceptedAt", "attestedAt"]);
    expect(row!.split(/\s+/)).toEqual([receiptId, machineId, record.chipRef, record.evidenceHash, record.acceptedAt]);
    expect(more).toEqual([]);

    // `evidence attest` records the attestation on chain; the read route shows the chip verified.
    await attestWithCli(receiptId);
    await statusBecomes(machineId, "chip", "verified");
    expect((await verification(machineId)).kyb.status).toBe("unverified"); // the topics are independent

    // `evidence pending` no longer lists it (the list is empty again), nor does GraphQL.
    expect(await pendingReceipts()).not.toContain(receiptId);
    expect(await cli(["evidence", "pending"])).toBe("[]\n");
    const { data } = await graphqlCode(p, PENDING, {}, OPERATOR_AUTH);
    expect(data.pendingChipEvidence.map((r: { receiptId: string }) => r.receiptId)).not.toContain(receiptId);
  });
});

describe("the operator's guard rails", () => {
  it("recordChipAttestation refuses a uid the registry does not hold, or one for other data: ATTESTATION_MISMATCH", async () => {
    const machine = p.machine("active", 0);
    const receiptId = await acceptedReceipt(machine);
    const attestationUid = await attestWithCli(receiptId);
    const unknownUid = `0x${"ab".repeat(32)}`;
    expect((await graphqlCode(p, RECORD, { receiptId, uid: unknownUid }, OPERATOR_AUTH)).code).toBe("ATTESTATION_MISMATCH");
    // A real chip attestation of the same machine, but not for this evidence (the CLI's default evidence hash is zero).
    const [other] = jsonLines(await cli(["attest", "chip", "--machine", machine.machineId]));
    expect((await graphqlCode(p, RECORD, { receiptId, uid: other.uid }, OPERATOR_AUTH)).code).toBe("ATTESTATION_MISMATCH");
    // The matching one is still accepted (idempotent).
    const { code, data } = await graphqlCode(p, RECORD, { receiptId, uid: attestationUid }, OPERATOR_AUTH);
    expect(code).toBeUndefined();
    expect(data.recordChipAttestation.receiptId).toBe(receiptId);
  });

  it("recordChipAttestation refuses the evidence's own attestation once it is revoked: ATTESTATION_MISMATCH", async () => {
    const receiptId = await acceptedReceipt();
    const attestationUid = await attestWithCli(receiptId);
    // Before the revocation the matching uid is accepted again (idempotent) ...
    expect((await graphqlCode(p, RECORD, { receiptId, uid: attestationUid }, OPERATOR_AUTH)).code).toBeUndefined();
    await cli(["revoke", "--uid", attestationUid]);
    // ... after it, the same uid is refused (once the reader has seen the revocation's block).
    const code = await eventually(async () => {
      const answer = await graphqlCode(p, RECORD, { receiptId, uid: attestationUid }, OPERATOR_AUTH);
      return answer.code === undefined ? undefined : answer.code;
    });
    expect(code).toBe("ATTESTATION_MISMATCH");
  });

  it("operator operations need the operator token: ONBOARDING_AUTH_REQUIRED otherwise", async () => {
    const receiptId = await acceptedReceipt();
    for (const authorization of [undefined, BEARER, "Bearer not-the-operator-token"]) {
      expect((await graphqlCode(p, PENDING, {}, authorization)).code).toBe("ONBOARDING_AUTH_REQUIRED");
      expect((await graphqlCode(p, RECORD, { receiptId, uid: `0x${"cd".repeat(32)}` }, authorization)).code).toBe("ONBOARDING_AUTH_REQUIRED");
    }
    const run = await runCli(p, ["evidence", "pending"], { OPERATOR_TOKEN: "not-the-operator-token" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("ONBOARDING_AUTH_REQUIRED");
    expect(run.stderr).not.toContain("not-the-operator-token");
    // Nothing was recorded by the refused calls: the evidence is still pending.
    expect(await pendingReceipts()).toContain(receiptId);
  });
});

describe("client kit for integrators: explicit certificate, chip key and controller key", () => {
  it("builds evidence from key files that the route accepts", async () => {
    const machine = p.demo.machines.find((m) => m.machineId === "1")!;
    const challenge = await issueChallenge(p, machine.machineId);
    const files = {
      challenge: path.join(p.dataDir, "kit-challenge.json"),
      cert: path.join(p.dataDir, "kit-leaf.pem"),
      chipKey: path.join(p.dataDir, "kit-chip.pem"),
      controllerKey: path.join(p.dataDir, "kit-controller.key"),
    };
    await writeFile(files.challenge, JSON.stringify(challenge));
    await writeFile(files.cert, machine.chip.leafCertPem);
    await writeFile(files.chipKey, machine.chip.privateKeyPem);
    await writeFile(files.controllerKey, `${machine.controllerPrivateKey}\n`);
    const evidence = await cli([
      "evidence",
      "--challenge", files.challenge,
      "--cert", files.cert,
      "--chip-key", files.chipKey,
      "--controller-key", files.controllerKey,
    ]);
    expectReceipt(await postEvidence(p, evidence));
  });

  it("refuses mixed or missing key options with usage exit code 2, and a non-challenge file with exit code 1", async () => {
    const challengeFile = path.join(p.dataDir, "kit-usage-challenge.json");
    await writeFile(challengeFile, JSON.stringify(await issueChallenge(p, "1")));
    const mixed = await runCli(p, ["evidence", "--challenge", challengeFile, "--machine", "1", "--cert", challengeFile]);
    expect(mixed.code).toBe(2);
    const missing = await runCli(p, ["evidence", "--challenge", challengeFile, "--cert", challengeFile]);
    expect(missing.code).toBe(2);
    const notAChallenge = path.join(p.dataDir, "not-a-challenge.json");
    await writeFile(notAChallenge, '{"machineId":"1"}');
    const wrong = await runCli(p, ["evidence", "--challenge", notAChallenge, "--machine", "1"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe("");
  });
});

describe("KYB through the CLI", () => {
  it("`attest kyb` makes it verified and `revoke --uid` revoked", async () => {
    const machine = p.machine("active", 1); // operator without any KYB record
    expect((await verification(machine.machineId)).kyb.status).toBe("unverified");
    const [attested] = jsonLines(await cli(["attest", "kyb", "--operator", machine.operatorAddress]));
    await statusBecomes(machine.machineId, "kyb", "verified");
    await cli(["revoke", "--uid", attested.uid]);
    await statusBecomes(machine.machineId, "kyb", "revoked");
  });

  it("`attest kyb --ttl` expires once the chain's time passes the expiry", async () => {
    const machine = p.machine("deactivated"); // machine 3: its operator has no KYB record; the record is still served
    expect((await verification(machine.machineId)).kyb.status).toBe("unverified");
    const [attested] = jsonLines(await cli(["attest", "kyb", "--operator", machine.operatorAddress, "--ttl", "600"]));
    expect(Number(attested.expiresAt)).toBeGreaterThan(0);
    await statusBecomes(machine.machineId, "kyb", "verified");
    // The status is computed at the read block: move the chain's clock past the expiry and mine a block there.
    await mineBlock(p, 1200);
    await statusBecomes(machine.machineId, "kyb", "expired");
  });
});
