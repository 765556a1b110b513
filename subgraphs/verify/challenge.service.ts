/**
 * Issues single-use chip challenges: the server resolves DID, effective controller and chain ID from the chain,
 * generates the nonce and the expiry, and stores only the nonce's SHA-256.
 */
import { hash } from "node:crypto";
import { pooledRandomBytes } from "../shared/crypto/random-pool.js";
import type { ChainReads } from "../shared/chain/types.js";
import type { PlatformConfig } from "../shared/config.js";
import { parseMachineId } from "../shared/machine-id.js";
import { ChallengeRepository, OpenChallengeCapExceeded } from "./challenge.repository.js";
import type { ChipChallenge } from "./challenge.type.js";
import { trustedNowMs, type Clock } from "./clock.js";
import { VerifyErrors } from "./errors.js";
import { readMachineContext } from "./machine-context.js";
import { inStore } from "./store.js";

export const nonceHashOf = (nonceHex: string) => hash("sha256", Buffer.from(nonceHex.slice(2), "hex"), "hex");

/** 32 fresh random bytes as `0x` lowercase hex, with their SHA-256 (what the store keeps). */
function newNonce(): { nonce: string; nonceHash: string } {
  const bytes = pooledRandomBytes(32);
  return { nonce: `0x${bytes.toString("hex")}`, nonceHash: hash("sha256", bytes, "hex") };
}

export class ChallengeService {
  constructor(
    private readonly repository: ChallengeRepository,
    private readonly chain: ChainReads,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
    private readonly log: (error: unknown) => void,
  ) {}

  async issue(machineIdText: unknown): Promise<ChipChallenge> {
    const machineId = parseMachineId(machineIdText);
    if (machineId === null) throw VerifyErrors.invalidRequest();
    const nowMs = trustedNowMs(this.clock, this.config.verify.clockFloorUnix);

    const lookup = await readMachineContext(this.chain, machineId, this.config.namespace.didMethod);
    if (lookup.kind === "notFound") throw VerifyErrors.machineNotFound();
    if (lookup.kind === "deactivated") throw VerifyErrors.machineDeactivated();
    if (lookup.kind === "chainUnavailable") throw VerifyErrors.chainUnavailable();

    const { nonce, nonceHash } = newNonce();
    const nowSeconds = BigInt(Math.floor(nowMs / 1000));
    const expiresAt = nowSeconds + BigInt(this.config.verify.challengeTtlSeconds);
    const challenge: ChipChallenge = {
      ...lookup.context,
      expiresAt: expiresAt.toString(),
      nonce,
      profile: this.config.vendor.profile,
      protocol: `${this.config.namespace.verifier}.chip-proof/1`,
      verifier: this.config.namespace.verifier,
    };
    await inStore(async () => {
      try {
        await this.repository.createWithinCaps(
          {
            ...lookup.context,
            id: crypto.randomUUID(),
            nonceHash,
            profile: challenge.profile,
            protocol: challenge.protocol,
            verifier: challenge.verifier,
            issuedAt: new Date(nowMs),
            expiresAt,
          },
          { perMachine: this.config.verify.openChallengesPerMachine, total: this.config.verify.openChallengesTotal },
          nowSeconds,
        );
      } catch (error) {
        if (error instanceof OpenChallengeCapExceeded) throw VerifyErrors.rateLimited();
        throw error;
      }
    }, this.log);
    return challenge;
  }

  /** The cleanup job: removes challenges that expired unused; afterwards their evidence gets CHALLENGE_NOT_FOUND. */
  async cleanup(): Promise<number> {
    const nowMs = trustedNowMs(this.clock, this.config.verify.clockFloorUnix);
    return this.repository.deleteExpiredUnused(BigInt(Math.floor(nowMs / 1000)), this.config.verify.cleanupGraceSeconds);
  }
}
