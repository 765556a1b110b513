import { randomBytes } from "node:crypto";
import type { Prisma } from "../../subgraphs/shared/db/index.js";

/** A freshly issued challenge with a unique nonce hash. */
export function challengeData(overrides: Partial<Prisma.VerifyChallengeCreateInput> = {}) {
  return {
    nonceHash: randomBytes(32).toString("hex"),
    machineId: "42",
    machineDid: "did:service:42",
    didController: "0x000000000000000000000000000000000000c0de",
    chainId: "3338",
    profile: "vendor-chip-ca306/1",
    protocol: "service.verify/chip/1",
    verifier: "service.verify",
    issuedAt: new Date("2026-05-01T12:00:00.456Z"),
    expiresAt: 1_777_000_000n,
    ...overrides,
  } satisfies Prisma.VerifyChallengeCreateInput;
}
