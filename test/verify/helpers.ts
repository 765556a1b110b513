/**
 * Shared helpers of the verify route tests (challenge, evidence, concurrency, fuzz, attestation flow): a platform on
 * PGlite or on a throw-away PostgreSQL database, clients for the two POST routes over real sockets (and over GraphQL),
 * evidence built with the integrator kit or crafted to fail one specific check, and chain actions with the demo keys.
 */
import canonicalize from "canonicalize";
import { Wallet } from "ethers";
import { expect } from "vitest";
import type { StartOptions } from "../../gateway/platform.js";
import { connectContract } from "../../subgraphs/shared/chain/contracts.js";
import type { DemoMachine } from "../../subgraphs/shared/chain/demo-fixture.js";
import { DEV_DEPLOYER_KEY } from "../../subgraphs/shared/chain/dev-keys.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { buildEvidence, controllerMessage, prepare, signPrehash } from "../../subgraphs/verify/evidence/kit.js";
import { encodeChipSignature, evidenceSchemaFor, trustBundleFor } from "../../subgraphs/verify/evidence/format.js";
import { toBase64url, toHex, bytesToBigInt } from "../../subgraphs/verify/evidence/encoding.js";
import type { ChipChallenge } from "../../subgraphs/verify/evidence/schema.js";
import { postHeaders, send, type SendOptions } from "../support/http.js";
import { graphql, startIsolatedPlatform, type IsolatedPlatform, type TestPlatform } from "../support/platform.js";
import { eventually } from "../support/wait.js";
import { minedReceipt } from "../../subgraphs/shared/chain/deploy.js";
import type { TransactionResponse } from "ethers";

export const CHALLENGE_FIELDS = [
  "chainId",
  "didController",
  "expiresAt",
  "machineDid",
  "machineId",
  "nonce",
  "profile",
  "protocol",
  "verifier",
] as const;

// ---------------------------------------------------------------------------------------------------------------
// Platform

export interface VerifyPlatform extends IsolatedPlatform {
  challengeUrl: string;
  evidenceUrl: string;
}

/** `startIsolatedPlatform` (generous limits, its own PGlite or PostgreSQL database) with the two POST routes' URLs. */
export async function startVerifyPlatform(env: Record<string, string> = {}, options: StartOptions = {}): Promise<VerifyPlatform> {
  const p = await startIsolatedPlatform(env, options);
  return { ...p, challengeUrl: `${p.http}/v1/verify/chip/challenge`, evidenceUrl: `${p.http}/v1/verify/chip/evidence` };
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP

export function postChallenge(p: VerifyPlatform, body: string | Uint8Array, options: Omit<SendOptions, "body"> = {}) {
  return send(p.challengeUrl, { ...options, headers: options.headers ?? postHeaders(), body });
}

export function postEvidence(p: VerifyPlatform, body: string | Uint8Array, options: Omit<SendOptions, "body"> = {}) {
  return send(p.evidenceUrl, { ...options, headers: options.headers ?? postHeaders(), body });
}

/** A fresh challenge for the machine and valid evidence answering it (default: demo machine 2, "active" #1). */
export async function freshEvidence(p: VerifyPlatform, machine: DemoMachine = p.machine("active", 1)) {
  const challenge = await issueChallenge(p, machine.machineId);
  return { challenge, machine, evidence: evidenceFor(challenge, machine) };
}

/** A fresh challenge for the machine, asserting the 201. */
export async function issueChallenge(p: VerifyPlatform, machineId: string, options: Omit<SendOptions, "body"> = {}): Promise<ChipChallenge> {
  const answer = await postChallenge(p, JSON.stringify({ machineId }), options);
  expect(answer.status, answer.text).toBe(201);
  return answer.json() as ChipChallenge;
}

// ---------------------------------------------------------------------------------------------------------------
// GraphQL

export const CREATE_CHALLENGE = `mutation ($id: String!) { createChipChallenge(machineId: $id) {
  chainId didController expiresAt machineDid machineId nonce profile protocol verifier } }`;
export const SUBMIT_EVIDENCE = `mutation ($evidence: String!) { submitChipEvidence(evidence: $evidence) { receiptId status } }`;

/** The first error code of a GraphQL answer (undefined on success), checking no stack trace leaks. */
export async function graphqlCode(p: TestPlatform, query: string, variables: Record<string, unknown>, authorization?: string) {
  const { body } = await graphql(p.graphql, query, variables, authorization ? { authorization } : {});
  if (body.errors) expect(body.errors[0]).not.toHaveProperty("extensions.stacktrace");
  return { code: body.errors?.[0]?.extensions?.code as string | undefined, data: body.data, errors: body.errors };
}

// ---------------------------------------------------------------------------------------------------------------
// Evidence

/** Valid evidence for a challenge of a demo machine: its chip, and its effective controller's key. */
export function evidenceFor(challenge: ChipChallenge, machine: DemoMachine, controllerPrivateKey = machine.controllerPrivateKey): string {
  return buildEvidence({
    challenge,
    leafCertPem: machine.chip.leafCertPem,
    chipPrivateKeyPem: machine.chip.privateKeyPem,
    controllerPrivateKey,
  });
}

/**
 * Evidence whose signatures come from the given keys, assembled like the kit's `finalize` but without its guard
 * (the kit refuses to emit a controller signature that does not recover to the challenge's controller).
 */
export function craftEvidence(input: {
  challenge: ChipChallenge;
  leafCertPem: string;
  /** Key that signs the chip prehash; any P-256 key, not necessarily the leaf's. */
  chipSigningKeyPem: string;
  controllerPrivateKey: string;
}): string {
  const prepared = prepare(input.challenge, input.leafCertPem);
  const raw = signPrehash(input.chipSigningKeyPem, prepared.prehash);
  const chipSignature = encodeChipSignature({ r: bytesToBigInt(raw.subarray(0, 32)), s: bytesToBigInt(raw.subarray(32)) });
  const controllerSignature = new Wallet(input.controllerPrivateKey).signMessageSync(controllerMessage(prepared, chipSignature));
  return canonicalize({
    certificate: {
      fingerprintSha256: prepared.transcript.certificateFingerprintSha256,
      leafDerBase64url: toBase64url(prepared.leafDer),
      publicKey: toHex(prepared.publicKey),
    },
    chipRef: prepared.chipRef,
    controllerProof: { scheme: "eip191-secp256k1", signature: controllerSignature },
    evidenceSchema: evidenceSchemaFor(input.challenge.verifier),
    profile: input.challenge.profile,
    proof: { chipSignature: toHex(chipSignature) },
    revocationStatus: "not_evaluated",
    transcript: prepared.transcript,
    trustBundle: trustBundleFor(input.challenge.profile),
  })!;
}

/** The canonical evidence with one member (dotted path) replaced; signatures are left as they were. */
export function withMember(evidence: string, memberPath: string, value: unknown): string {
  const root = JSON.parse(evidence);
  const parts = memberPath.split(".");
  let holder = root;
  for (const part of parts.slice(0, -1)) holder = holder[part];
  holder[parts.at(-1)!] = value;
  return canonicalize(root)!;
}

/** A well-formed, canonical file for the same challenge that differs from the valid one (a wrong fixed value). */
export const otherFileFor = (evidence: string) => withMember(evidence, "revocationStatus", "evaluated");

/** A labelled way to turn the valid evidence text into a body that must be refused. */
export type EvidenceEdit = [label: string, make: (evidence: string) => string | Uint8Array];

/** Same members, another spelling: pretty printing, member order, escapes, ... (each is 400 INVALID_REQUEST). */
export const NON_CANONICAL_FORMS: EvidenceEdit[] = [
  ["pretty printed", (e) => JSON.stringify(JSON.parse(e), null, 2)],
  ["root members reordered", (e) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(e)).reverse()))],
  [
    "transcript members reordered",
    (e) => {
      const root = JSON.parse(e);
      return JSON.stringify({ ...root, transcript: Object.fromEntries(Object.entries(root.transcript).reverse()) });
    },
  ],
  ["needless escape \\u0063 in a member name", (e) => e.replace('{"certificate":', '{"\\u0063ertificate":')],
  ["needless escape \\u0061 in a value", (e) => e.replace('"vendor-chip-ca306/1"', '"vendor-chip-c\\u0061306/1"')],
  ["escaped slash", (e) => e.replace("chip-evidence/1", "chip-evidence\\/1")],
  ["a number instead of a decimal string", (e) => e.replace('"chainId":"3338"', '"chainId":3338')],
  ["a number in exponent form", (e) => e.replace('"chainId":"3338"', '"chainId":3.338e3')],
  ["UTF-8 byte order mark", (e) => new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from(e)])],
  ["trailing newline", (e) => `${e}\n`],
  ["trailing CRLF", (e) => `${e}\r\n`],
  ["leading space", (e) => ` ${e}`],
  ["space after a colon", (e) => e.replace('"chipRef":', '"chipRef": ')],
  ["duplicate member", (e) => e.replace('{"certificate":', `{"certificate":${JSON.stringify(JSON.parse(e).certificate)},"certificate":`)],
  ["duplicate member in the transcript", (e) => e.replace('"chainId":"3338"', '"chainId":"3338","chainId":"3338"')],
  ["not UTF-8", (e) => new Uint8Array([...Buffer.from(e.slice(0, -2)), 0xff, ...Buffer.from(e.slice(-2))])],
];

const EVIDENCE_MEMBERS: Array<[holder: string, members: readonly string[]]> = [
  ["", ["certificate", "chipRef", "controllerProof", "evidenceSchema", "profile", "proof", "revocationStatus", "transcript", "trustBundle"]],
  ["certificate", ["fingerprintSha256", "leafDerBase64url", "publicKey"]],
  ["controllerProof", ["scheme", "signature"]],
  ["proof", ["chipSignature"]],
  ["transcript", [...CHALLENGE_FIELDS, "certificateFingerprintSha256"]],
];

/** Missing, extra, null and wrongly typed members at every level, canonical bytes otherwise (400 INVALID_REQUEST). */
export const WRONG_MEMBERS: EvidenceEdit[] = (() => {
  const edit = (label: string, holder: string, change: (object: any) => void): EvidenceEdit => [
    label,
    (evidence) => {
      const root = JSON.parse(evidence);
      change(holder ? root[holder] : root);
      return canonicalize(root)!;
    },
  ];
  const cases: EvidenceEdit[] = [];
  for (const [holder, members] of EVIDENCE_MEMBERS) {
    const where = holder || "root";
    for (const member of members) {
      cases.push(edit(`${where}.${member} missing`, holder, (object) => delete object[member]));
      cases.push(edit(`${where}.${member} null`, holder, (object) => (object[member] = null)));
      cases.push(
        edit(`${where}.${member} wrongly typed`, holder, (object) => {
          object[member] = typeof object[member] === "string" ? [object[member]] : JSON.stringify(object[member]);
        }),
      );
    }
    cases.push(edit(`${where} with an extra member`, holder, (object) => (object.extra = "x")));
  }
  cases.push(["an array around the evidence", (e) => canonicalize([JSON.parse(e)])!]);
  cases.push(["an object around the evidence", (e) => canonicalize({ evidence: JSON.parse(e) })!]);
  cases.push(["the evidence as a JSON string", (e) => JSON.stringify(e)]);
  return cases;
})();

// ---------------------------------------------------------------------------------------------------------------
// Chain actions with the demo keys

function adminAndProvider(p: TestPlatform) {
  const provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
  return { provider, admin: new Wallet(DEV_DEPLOYER_KEY, provider) };
}

async function transact(p: TestPlatform, signWith: (provider: ReturnType<typeof createProvider>) => Promise<TransactionResponse>) {
  const { provider } = adminAndProvider(p);
  try {
    // Not ethers' wait(): it can miss a transaction an automining chain mined before its first look.
    await minedReceipt(await signWith(provider));
  } finally {
    provider.destroy();
  }
}

/** The NFT owner sets a new DID controller; resolves once the read route shows it. */
export async function setController(p: TestPlatform, machine: DemoMachine, controller: string): Promise<void> {
  await transact(p, (provider) =>
    connectContract("MachineRegistry", p.platform.chain!.addresses, new Wallet(machine.ownerPrivateKey, provider)).setController(
      machine.machineId,
      controller,
    ),
  );
  await eventually(async () => {
    const body = await (await fetch(`${p.http}/v1/verify/machines/${machine.machineId}`)).json();
    return body.didController?.address === controller ? true : undefined;
  });
}

/** The admin deactivates the machine; resolves once the platform's chain reader has seen the block. */
export async function deactivateMachine(p: VerifyPlatform, machineId: string): Promise<void> {
  await transact(p, (provider) =>
    connectContract("MachineRegistry", p.platform.chain!.addresses, new Wallet(DEV_DEPLOYER_KEY, provider)).deactivate(machineId),
  );
  // Issuing a challenge for a deactivated machine is refused: that tells the reader has caught up.
  const probeHeaders = postHeaders();
  await eventually(async () => {
    const answer = await send(p.challengeUrl, { headers: probeHeaders, body: JSON.stringify({ machineId }) });
    return answer.status === 409 ? true : undefined;
  });
}

/**
 * Stops the embedded anvil node and waits until the platform's chain reader has noticed (the read route answers 503).
 * Each probe comes from its own loopback address, so probing spends no per-IP budget a test relies on.
 */
export async function stopChain(p: TestPlatform): Promise<void> {
  await p.platform.chain!.stop();
  let probe = 0;
  await eventually(async () => {
    probe += 1;
    const answer = await send(`${p.http}/v1/verify/machines/1`, { method: "GET", localAddress: `127.0.9.${probe % 250}` });
    return answer.status === 503 ? true : undefined;
  }, 15_000);
}

