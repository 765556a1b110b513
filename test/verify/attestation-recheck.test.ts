/**
 * Accepted evidence proves a chip to the machine context its challenge bound. Before the operator attests it, and
 * again when the attestation is recorded, the platform rebuilds that context from the chain: a machine deactivated,
 * or given another DID controller, since then is refused (MACHINE_CONTEXT_CHANGED), the CLI sends no transaction and
 * the chip status stays as it was. Evidence left unattested for VERIFY_EVIDENCE_TTL_SECONDS expires.
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectContract } from "../../subgraphs/shared/chain/contracts.js";
import { DEV_DEPLOYER_KEY } from "../../subgraphs/shared/chain/dev-keys.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { deactivateMachine, evidenceFor, graphqlCode, issueChallenge, postEvidence, setController, startVerifyPlatform, type VerifyPlatform } from "./helpers.js";
import { runCli } from "../support/cli.js";
import { OPERATOR_TOKEN } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";
import { expectReceipt } from "../support/verify.js";
import { minedReceipt } from "../../subgraphs/shared/chain/deploy.js";

const OPERATOR_AUTH = `Bearer ${OPERATOR_TOKEN}`;
const TTL_SECONDS = 3600;
const ATTESTABLE = `query ($receiptId: String!) { attestableChipEvidence(receiptId: $receiptId) { receiptId machineId } }`;
const RECORD = `mutation ($receiptId: String!, $uid: String!) {
  recordChipAttestation(receiptId: $receiptId, attestationUid: $uid) { receiptId attestedAt } }`;
const PENDING = "query { pendingChipEvidence { receiptId attestedAt } }";

/** The subgraphs' clock runs `offsetMs` ahead of the system clock. */
const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs };

let p: VerifyPlatform;
beforeAll(async () => {
  p = await startVerifyPlatform({ VERIFY_EVIDENCE_TTL_SECONDS: String(TTL_SECONDS) }, { clock });
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

/** Evidence for a demo machine, accepted: its receipt. */
async function acceptedEvidence(machineId: string): Promise<string> {
  const machine = p.demo.machines.find((m) => m.machineId === machineId)!;
  const challenge = await issueChallenge(p, machineId);
  return expectReceipt(await postEvidence(p, evidenceFor(challenge, machine)));
}

/** The chip status code the registry holds (0 unverified, 1 verified, 2 expired, 3 revoked). */
async function chipStatus(machineId: string): Promise<number> {
  const provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
  try {
    return Number(await connectContract("AttestationRegistry", p.platform.chain!.addresses, provider).chipStatus(machineId));
  } finally {
    provider.destroy();
  }
}

/** A chip attestation sent straight to the registry for this evidence (what the CLI would send), and its uid. */
async function attestDirectly(receiptId: string): Promise<string> {
  const { data } = await graphqlCode(p, "query { pendingChipEvidence(limit: 500) { receiptId machineId chipRef evidenceHash } }", {}, OPERATOR_AUTH);
  const record = data.pendingChipEvidence.find((r: { receiptId: string }) => r.receiptId === receiptId);
  const provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
  try {
    const registry = connectContract("AttestationRegistry", p.platform.chain!.addresses, new Wallet(DEV_DEPLOYER_KEY, provider));
    const receipt = await minedReceipt(await registry.attestChip(record.machineId, record.chipRef, record.evidenceHash, 0));
    for (const entry of receipt.logs) {
      const parsed = registry.interface.parseLog(entry);
      if (parsed?.name === "ChipAttested") return parsed.args.uid as string;
    }
    throw new Error("no ChipAttested event");
  } finally {
    provider.destroy();
  }
}

const attestedAtOf = async (receiptId: string) => {
  const { data } = await graphqlCode(p, PENDING, {}, OPERATOR_AUTH);
  return data.pendingChipEvidence.find((r: { receiptId: string }) => r.receiptId === receiptId);
};

describe("machine deactivated after its evidence was accepted (machine 6)", () => {
  let receiptId: string;

  beforeAll(async () => {
    receiptId = await acceptedEvidence("6");
    expect((await graphqlCode(p, ATTESTABLE, { receiptId }, OPERATOR_AUTH)).code).toBeUndefined();
    await deactivateMachine(p, "6");
  });

  it("`evidence attest` refuses before sending anything; the chip status stays revoked", async () => {
    const before = await chipStatus("6");
    const run = await runCli(p, ["evidence", "attest", "--receipt", receiptId]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("MACHINE_CONTEXT_CHANGED");
    expect(run.stdout).toBe("");
    expect(await chipStatus("6")).toBe(before);
    expect(before).toBe(3);
  });

  it("recording an attestation sent by other means is refused too, and the evidence stays unattested", async () => {
    const uid = await attestDirectly(receiptId);
    expect((await graphqlCode(p, RECORD, { receiptId, uid }, OPERATOR_AUTH)).code).toBe("MACHINE_CONTEXT_CHANGED");
    expect(await attestedAtOf(receiptId)).toMatchObject({ receiptId, attestedAt: null });
  });
});

describe("DID controller changed after the evidence was accepted (machine 2)", () => {
  it("attestableChipEvidence and recordChipAttestation answer MACHINE_CONTEXT_CHANGED", async () => {
    const receiptId = await acceptedEvidence("2");
    const machine = p.demo.machines.find((m) => m.machineId === "2")!;
    await setController(p, machine, Wallet.createRandom().address);
    expect((await graphqlCode(p, ATTESTABLE, { receiptId }, OPERATOR_AUTH)).code).toBe("MACHINE_CONTEXT_CHANGED");
    const uid = await attestDirectly(receiptId);
    expect((await graphqlCode(p, RECORD, { receiptId, uid }, OPERATOR_AUTH)).code).toBe("MACHINE_CONTEXT_CHANGED");
    expect(await attestedAtOf(receiptId)).toMatchObject({ attestedAt: null });
  });
});

describe("evidence awaiting attestation expires after VERIFY_EVIDENCE_TTL_SECONDS", () => {
  it("no longer listed, attestable or recordable once the time has passed", async () => {
    const receiptId = await acceptedEvidence("5");
    const uid = await attestDirectly(receiptId);
    clock.offsetMs = (TTL_SECONDS - 5) * 1000;
    expect((await graphqlCode(p, ATTESTABLE, { receiptId }, OPERATOR_AUTH)).code).toBeUndefined();
    expect(await attestedAtOf(receiptId)).toBeDefined();

    clock.offsetMs = (TTL_SECONDS + 1) * 1000;
    expect(await attestedAtOf(receiptId)).toBeUndefined();
    expect((await graphqlCode(p, ATTESTABLE, { receiptId }, OPERATOR_AUTH)).code).toBe("EVIDENCE_EXPIRED");
    expect((await graphqlCode(p, RECORD, { receiptId, uid }, OPERATOR_AUTH)).code).toBe("EVIDENCE_EXPIRED");
    const run = await runCli(p, ["evidence", "attest", "--receipt", receiptId]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("EVIDENCE_EXPIRED");
    clock.offsetMs = 0;
  });
});
