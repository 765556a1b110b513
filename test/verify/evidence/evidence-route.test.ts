/**
 * POST /v1/verify/chip/evidence (document 1) against the real platform over real sockets, row by row of the
 * challenge state table, and the same codes over GraphQL `submitChipEvidence`.
 *
 * "Not consumed" is proved twice: the challenge row is read back after every rejected request (through the platform's
 * own database handle, so on PGlite too) and is unchanged, and a client's view agrees: the valid file is then accepted.
 * "Final" likewise: the same bytes get the same error again and the valid file gets 409 NONCE_REPLAY.
 * Expiry, cleanup and the retryable 503s need platforms of their own (evidence-expiry.test.ts); a database outage
 * has its own file (evidence-outage.test.ts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Wallet } from "ethers";
import { createDemoVendor } from "../../../subgraphs/shared/crypto/vendor-ca.js";
import { buildEvidence } from "../../../subgraphs/verify/evidence/kit.js";
import type { ChipChallenge } from "../../../subgraphs/verify/evidence/schema.js";
import { SUBMIT_EVIDENCE, craftEvidence, deactivateMachine, evidenceFor, freshEvidence as freshEvidenceOn, graphqlCode, issueChallenge, NON_CANONICAL_FORMS, otherFileFor, postEvidence, setController, startVerifyPlatform, withMember, WRONG_MEMBERS, type VerifyPlatform } from "../helpers.js";
import { rawRequest, BEARER, ONBOARDING_TOKEN, postHeaders, send } from "../../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../../support/platform.js";
import { challengeRow, evidenceRowsFor, expectNoEcho, expectReceipt, expectVerifyError } from "../../support/verify.js";

let p: VerifyPlatform;
beforeAll(async () => {
  p = await startVerifyPlatform({ VERIFY_OPEN_CHALLENGES_PER_MACHINE: "1000" });
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const walkthroughMachine = () => p.machine("active", 1); // machine 2: controller = NFT owner, no chip record

/** A fresh challenge for machine 2 and its valid evidence. */
const freshEvidence = (q: VerifyPlatform = p) => freshEvidenceOn(q);

async function expectFinalRejection(bad: string, valid: string, nonce: string) {
  const first = await postEvidence(p, bad);
  expectVerifyError(first, 400, "EVIDENCE_REJECTED");
  expectNoEcho(first, nonce);
  expectVerifyError(await postEvidence(p, bad), 400, "EVIDENCE_REJECTED");
  if (valid !== bad) expectVerifyError(await postEvidence(p, valid), 409, "NONCE_REPLAY");
  expect((await graphqlCode(p, SUBMIT_EVIDENCE, { evidence: bad }, BEARER)).code).toBe("EVIDENCE_REJECTED");
}

describe("issued -> consumed: 202 with a receipt", () => {
  it("accepts valid evidence with a UUID-shaped receipt, and the same bytes give the same receipt", async () => {
    const { evidence } = await freshEvidence();
    const receiptId = expectReceipt(await postEvidence(p, evidence));
    expectReceipt(await postEvidence(p, evidence), receiptId);
    expectReceipt(await postEvidence(p, evidence), receiptId);
    const { data, code } = await graphqlCode(p, SUBMIT_EVIDENCE, { evidence }, BEARER);
    expect(code).toBeUndefined();
    expect(data.submitChipEvidence).toEqual({ receiptId, status: "ACCEPTED" });
  });

  it("accepts evidence signed by a machine's own controller (not the NFT owner)", async () => {
    const machine = p.machine("active", 0);
    const challenge = await issueChallenge(p, machine.machineId);
    expectReceipt(await postEvidence(p, evidenceFor(challenge, machine)));
  });

  it("accepts Content-Type with charset=utf-8 and Accept ranges admitting JSON", async () => {
    for (const overrides of [{ "content-type": "application/json; charset=utf-8" }, { accept: undefined }, { accept: "*/*" }]) {
      const { evidence } = await freshEvidence();
      expectReceipt(await postEvidence(p, evidence, { headers: postHeaders(overrides) }));
    }
  });

  it("any other file for a consumed challenge: 409 NONCE_REPLAY; the receipt stays", async () => {
    const { evidence, challenge } = await freshEvidence();
    const receiptId = expectReceipt(await postEvidence(p, evidence));
    const replay = await postEvidence(p, otherFileFor(evidence));
    expectVerifyError(replay, 409, "NONCE_REPLAY");
    expectNoEcho(replay, challenge.nonce, receiptId);
    // Evidence signed again for the same challenge by the same keys is byte-identical (deterministic signatures)...
    expect(evidenceFor(challenge, walkthroughMachine())).toBe(evidence);
    // ...but a file for the same nonce from another chip is a different submission.
    const otherChip = p.machine("active", 0).chip;
    const otherChipFile = buildEvidence({
      challenge,
      leafCertPem: otherChip.leafCertPem,
      chipPrivateKeyPem: otherChip.privateKeyPem,
      controllerPrivateKey: walkthroughMachine().controllerPrivateKey,
    });
    expectVerifyError(await postEvidence(p, otherChipFile), 409, "NONCE_REPLAY");
    expect((await graphqlCode(p, SUBMIT_EVIDENCE, { evidence: otherChipFile }, BEARER)).code).toBe("NONCE_REPLAY");
    expectReceipt(await postEvidence(p, evidence), receiptId);
  });

  it("a non-canonical file after 202 is still only INVALID_REQUEST, and the receipt stays", async () => {
    const { evidence } = await freshEvidence();
    const receiptId = expectReceipt(await postEvidence(p, evidence));
    expectVerifyError(await postEvidence(p, `${evidence}\n`), 400, "INVALID_REQUEST");
    expectReceipt(await postEvidence(p, evidence), receiptId);
  });
});

describe("404 CHALLENGE_NOT_FOUND", () => {
  it("for well-formed evidence answering a nonce that was never issued", async () => {
    const machine = walkthroughMachine();
    const real = await issueChallenge(p, machine.machineId);
    const invented: ChipChallenge = { ...real, nonce: `0x${"42".repeat(32)}` };
    const evidence = evidenceFor(invented, machine);
    const answer = await postEvidence(p, evidence);
    expectVerifyError(answer, 404, "CHALLENGE_NOT_FOUND");
    expectNoEcho(answer, invented.nonce);
    expect((await graphqlCode(p, SUBMIT_EVIDENCE, { evidence }, BEARER)).code).toBe("CHALLENGE_NOT_FOUND");
    // The real challenge was not touched.
    expectReceipt(await postEvidence(p, evidenceFor(real, machine)));
  });
});

describe("issued -> issued: 400 INVALID_REQUEST never consumes the challenge", () => {
  let challenge: ChipChallenge;
  let evidence: string;
  let issuedRow: Awaited<ReturnType<typeof challengeRow>>;
  beforeAll(async () => {
    ({ challenge, evidence } = await freshEvidence());
    issuedRow = await challengeRow(p, challenge.nonce);
    expect(issuedRow).toMatchObject({ state: "issued", submissionHash: null, receiptId: null, checkingUntil: null });
  });
  // Every test of this block leaves the challenge row exactly as it was issued: no state, submission or lease change.
  afterEach(async () => {
    expect(await challengeRow(p, challenge.nonce)).toEqual(issuedRow);
    expect(await evidenceRowsFor(p, challenge.nonce)).toEqual([]);
  });

  it.each([...NON_CANONICAL_FORMS, ...WRONG_MEMBERS])("%s", async (_label, make) => {
    const body = make(evidence);
    const answer = await postEvidence(p, body);
    expectVerifyError(answer, 400, "INVALID_REQUEST");
    expectNoEcho(answer, challenge.nonce);
    if (typeof body === "string") {
      expect((await graphqlCode(p, SUBMIT_EVIDENCE, { evidence: body }, BEARER)).code).toBe("INVALID_REQUEST");
    }
  });

  it.each([
    ["no Content-Type", { "content-type": undefined }],
    ["text/plain", { "content-type": "text/plain" }],
    ["charset=latin1", { "content-type": "application/json; charset=latin1" }],
    ["Content-Encoding gzip", { "content-encoding": "gzip" }],
    ["Content-Encoding identity", { "content-encoding": "identity" }],
  ])("wrong headers: %s", async (_label, overrides) => {
    expectVerifyError(await postEvidence(p, evidence, { headers: postHeaders(overrides) }), 400, "INVALID_REQUEST");
  });

  it.each([
    ["no token", undefined, 401, "ONBOARDING_AUTH_REQUIRED"],
    ["an invalid token", "Bearer not-the-token", 401, "ONBOARDING_AUTH_REQUIRED"],
    ["a Basic header", `Basic ${ONBOARDING_TOKEN}`, 401, "ONBOARDING_AUTH_REQUIRED"],
    ["two Authorization headers", [BEARER, BEARER], 401, "ONBOARDING_AUTH_REQUIRED"],
  ] as const)("%s: %i %s", async (_label, authorization, status, code) => {
    const answer = await postEvidence(p, evidence, { headers: postHeaders({ authorization: authorization as string | string[] | undefined }) });
    expectVerifyError(answer, status, code);
    expectNoEcho(answer, challenge.nonce, "not-the-token");
  });

  it("GraphQL without the onboarding token: ONBOARDING_AUTH_REQUIRED", async () => {
    expect((await graphqlCode(p, SUBMIT_EVIDENCE, { evidence })).code).toBe("ONBOARDING_AUTH_REQUIRED");
    expect((await graphqlCode(p, SUBMIT_EVIDENCE, { evidence }, "Bearer wrong")).code).toBe("ONBOARDING_AUTH_REQUIRED");
  });

  it("406 NOT_ACCEPTABLE when Accept excludes JSON", async () => {
    expectVerifyError(await postEvidence(p, evidence, { headers: postHeaders({ accept: "text/html" }) }), 406, "NOT_ACCEPTABLE");
  });

  it.each(["GET", "PUT", "DELETE"])("405 METHOD_NOT_ALLOWED for %s", async (method) => {
    const answer = await send(p.evidenceUrl, { method, headers: postHeaders(), body: method === "GET" ? undefined : evidence });
    expectVerifyError(answer, 405, "METHOD_NOT_ALLOWED");
    expect(answer.headers.allow).toBe("POST");
  });

  it.each(["/v1/verify/chip/evidence/", "/v1/verify/chip/evidences", "/v1/verify/evidence"])("404 VERIFY_ROUTE_NOT_FOUND for %s", async (routePath) => {
    expectVerifyError(await send(`${p.http}${routePath}`, { headers: postHeaders(), body: evidence }), 404, "VERIFY_ROUTE_NOT_FOUND");
  });

  it("16,384 bytes are read and parsed (non-canonical: 400); 16,385 are refused unparsed (413), declared or chunked", async () => {
    const padTo = (size: number) => `${evidence}${" ".repeat(size - Buffer.byteLength(evidence))}`;
    expectVerifyError(await postEvidence(p, padTo(16_384)), 400, "INVALID_REQUEST");
    expectVerifyError(await postEvidence(p, padTo(16_385)), 413, "REQUEST_TOO_LARGE");
    const chunked = postHeaders({ "transfer-encoding": "chunked" });
    expectVerifyError(await postEvidence(p, padTo(40_000), { headers: chunked }), 413, "REQUEST_TOO_LARGE");
    // GraphQL has no 413: the subgraph refuses the size itself.
    expect((await graphqlCode(p, SUBMIT_EVIDENCE, { evidence: padTo(16_385) }, BEARER)).code).toBe("INVALID_REQUEST");
  });

  it("401 before the body is read: an announced body that never comes gets the answer at once", async () => {
    const port = Number(new URL(p.http).port);
    const response = await rawRequest(port, [
      "POST /v1/verify/chip/evidence HTTP/1.1",
      `Host: 127.0.0.1:${port}`,
      "Content-Type: application/json",
      "Content-Length: 16000",
    ]);
    // The body is never sent: an answer at all proves the 401 was decided without reading it.
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body).detail.code).toBe("ONBOARDING_AUTH_REQUIRED");
  });

});

describe("a client's view of the same rule, in one test", () => {
  it("after one rejection of each kind (400, 401, 406, 413) the valid file is accepted", async () => {
    const { challenge, evidence } = await freshEvidence();
    expectVerifyError(await postEvidence(p, `${evidence}\n`), 400, "INVALID_REQUEST");
    expectVerifyError(await postEvidence(p, evidence, { headers: postHeaders({ authorization: undefined }) }), 401, "ONBOARDING_AUTH_REQUIRED");
    expectVerifyError(await postEvidence(p, evidence, { headers: postHeaders({ accept: "text/html" }) }), 406, "NOT_ACCEPTABLE");
    expectVerifyError(await postEvidence(p, `${evidence}${" ".repeat(16_385)}`), 413, "REQUEST_TOO_LARGE");
    expect(await challengeRow(p, challenge.nonce)).toMatchObject({ state: "issued", submissionHash: null });
    const receiptId = expectReceipt(await postEvidence(p, evidence));
    expect(await challengeRow(p, challenge.nonce)).toMatchObject({ state: "consumed", receiptId });
    expect((await evidenceRowsFor(p, challenge.nonce)).map((row) => row.receiptId)).toEqual([receiptId]);
  });
});

describe("issued -> rejected: 400 EVIDENCE_REJECTED is final", () => {
  it("wrong controller key", async () => {
    const { challenge, machine, evidence } = await freshEvidence();
    const bad = craftEvidence({
      challenge,
      leafCertPem: machine.chip.leafCertPem,
      chipSigningKeyPem: machine.chip.privateKeyPem,
      controllerPrivateKey: Wallet.createRandom().privateKey,
    });
    await expectFinalRejection(bad, evidence, challenge.nonce);
  });

  it("chip signature made by another key than the certificate's", async () => {
    const { challenge, machine, evidence } = await freshEvidence();
    const bad = craftEvidence({
      challenge,
      leafCertPem: machine.chip.leafCertPem,
      chipSigningKeyPem: p.machine("active", 0).chip.privateKeyPem,
      controllerPrivateKey: machine.controllerPrivateKey,
    });
    await expectFinalRejection(bad, evidence, challenge.nonce);
  });

  it("a certificate issued by another CA (self-consistent evidence otherwise)", async () => {
    const { challenge, machine, evidence } = await freshEvidence();
    const foreignChip = await (await createDemoVendor("another-chip-vendor")).issueChip("foreign-chip");
    const bad = buildEvidence({
      challenge,
      leafCertPem: foreignChip.leafCertPem,
      chipPrivateKeyPem: foreignChip.privateKeyPem,
      controllerPrivateKey: machine.controllerPrivateKey,
    });
    await expectFinalRejection(bad, evidence, challenge.nonce);
  });

  // docs/verify-evidence.md: a fixed value that differs but keeps its lexical form is a check failure. These members
  // are outside both signatures, so the fixed-value check is the only one that fails.
  it.each([
    ["evidenceSchema", "service.verify.chip-evidence/2"],
    ["profile", "vendor-chip-ca306/2"],
    ["trustBundle", "vendor-chip-ca306-roots/2"],
    ["revocationStatus", "evaluated"],
    ["controllerProof.scheme", "eip712-secp256k1"],
  ])("fixed value %s changed to %s", async (member, value) => {
    const { challenge, evidence } = await freshEvidence();
    await expectFinalRejection(withMember(evidence, member, value), evidence, challenge.nonce);
  });

  // Consistently signed evidence whose transcript differs from the stored challenge in one field.
  it.each([
    ["expiresAt", (c: ChipChallenge) => String(Number(c.expiresAt) - 1)],
    ["machineDid", (c: ChipChallenge) => `did:other:${c.machineId}`],
    ["didController (same address, lowercase)", (c: ChipChallenge) => c.didController.toLowerCase()],
    ["chainId", () => "1"],
  ] as const)("transcript %s differs from the challenge", async (field, change) => {
    const { challenge, machine, evidence } = await freshEvidence();
    const key = field.split(" ")[0] as keyof ChipChallenge;
    const bad = evidenceFor({ ...challenge, [key]: change(challenge) }, machine);
    await expectFinalRejection(bad, evidence, challenge.nonce);
  });

  it("the DID controller changed after the challenge (the NFT owner set a new one)", async () => {
    const machine = p.machine("active", 2); // machine 5: controller = NFT owner until now
    const challenge = await issueChallenge(p, machine.machineId);
    const signedByOldController = evidenceFor(challenge, machine);
    const newController = Wallet.createRandom();
    await setController(p, machine, newController.address);
    const signedByNewController = craftEvidence({
      challenge,
      leafCertPem: machine.chip.leafCertPem,
      chipSigningKeyPem: machine.chip.privateKeyPem,
      controllerPrivateKey: newController.privateKey,
    });
    await expectFinalRejection(signedByOldController, signedByNewController, challenge.nonce);
    // A new challenge names the new controller, whose evidence is accepted.
    const next = await issueChallenge(p, machine.machineId);
    expect(next.didController).toBe(newController.address);
    expectReceipt(await postEvidence(p, evidenceFor(next, machine, newController.privateKey)));
  });

  it("the machine was deactivated after the challenge", async () => {
    const machine = p.machine("active", 3); // machine 6
    const challenge = await issueChallenge(p, machine.machineId);
    const evidence = evidenceFor(challenge, machine);
    await deactivateMachine(p, machine.machineId);
    await expectFinalRejection(evidence, otherFileFor(evidence), challenge.nonce);
  });
});
