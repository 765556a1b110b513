/**
 * Machine identity challenges and proofs (document 3, Authentication 1; docs/markets-identity.md).
 *
 * A challenge binds the service, the identityRef (as the caller spelled it) and the machine ID it names, the
 * identity's controllers read from the chain at the node's head, a challenge ID, a nonce and its issue and expiry
 * times. A proof `{challengeId, signature}` is good once, before expiry, for that machine (any spelling of its
 * identityRef), when the EIP-191 signer of the challenge's message is a controller of the identity NOW (read again at
 * the head): a controller change between challenge and proof makes it invalid.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../../../shared/clock.js";
import type { MarketsTx } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import { challengeMessage, parseIdentityRef, recoverSigner, type IdentityResolver } from "./identity.resolution.js";
import type { IdentityProofInput, MachineIdentityChallenge, MachineIdentityProof } from "../market-machine.type.js";
import type { MarketsStore } from "../../common/store.js";

const CHALLENGE_ID = /^mic_[0-9a-f]{24}$/;

/** A proof that passed every check but is not consumed yet: `consume(tx)` inside the write that uses it. */
export interface VerifiedProof {
  proof: MachineIdentityProof;
  consume(tx: MarketsTx): Promise<void>;
}

export class IdentityChallengeService {
  constructor(
    private readonly store: MarketsStore,
    private readonly resolver: IdentityResolver,
    private readonly namespace: string,
    private readonly ttlSeconds: number,
    private readonly clock: Clock,
  ) {}

  /**
   * The decimal on-chain ID an identityRef names, an address read at the chain head: VALIDATION_ERROR for text that
   * is none of the forms, NOT_FOUND for an address that is no machine's.
   */
  async onChainIdOf(identityRef: string): Promise<string> {
    const target = parseIdentityRef(identityRef, this.namespace);
    if (target === null) throw MarketsErrors.validation();
    if (target.kind === "machineId") return target.machineId;
    const id = await this.resolver.machineIdOfAddress(target.address);
    if (id === null) throw MarketsErrors.notFound();
    return id;
  }

  /** Does `identityRef` (any form) name the on-chain machine `onChainMachineId`? VALIDATION_ERROR for no form. */
  async names(identityRef: string, onChainMachineId: string): Promise<boolean> {
    const target = parseIdentityRef(identityRef, this.namespace);
    if (target === null) throw MarketsErrors.validation();
    if (target.kind === "machineId") return target.machineId === onChainMachineId;
    return (await this.resolver.machineIdOfAddress(target.address)) === onChainMachineId;
  }

  async create(identityRef: string): Promise<MachineIdentityChallenge> {
    const onChainMachineId = await this.onChainIdOf(identityRef);
    const resolution = await this.resolver.atHead(onChainMachineId);
    if (!resolution.resolves) throw MarketsErrors.notFound();
    const issuedAt = new Date(this.clock.now());
    const expiresAt = new Date(issuedAt.getTime() + this.ttlSeconds * 1000);
    const challengeId = `mic_${randomBytes(12).toString("hex")}`;
    const message = challengeMessage({
      namespace: this.namespace,
      identityRef,
      onChainMachineId,
      controllers: resolution.controllers,
      chainId: resolution.chainId,
      challengeId,
      nonce: `0x${randomBytes(32).toString("hex")}`,
      issuedAt,
      expiresAt,
    });
    await this.store.read((prisma) =>
      prisma.marketIdentityChallenge.create({
        data: { id: challengeId, identityRef, onChainMachineId, message, controllerAddresses: resolution.controllers, issuedAt, expiresAt },
      }),
    );
    return {
      challengeId,
      identityRef,
      message,
      expiresAt: expiresAt.toISOString(),
      verificationMethod: "eip191",
      controllerAddresses: resolution.controllers,
    };
  }

  /**
   * Checks a proof for the machine `identityRef` names (outside any transaction: it reads the chain); a caller that
   * already resolved it passes `onChainMachineId`. Order: unknown or used challenge, or one issued for another
   * machine -> INVALID; past expiresAt -> EXPIRED; bad signature or signer not a current controller -> INVALID. A
   * challenge issued for any spelling of the machine's identityRef proves it (they are one identity); the stored
   * proof names the identityRef the controller signed.
   */
  async verify(identityRef: string, input: IdentityProofInput, onChainMachineId?: string): Promise<VerifiedProof> {
    if (!CHALLENGE_ID.test(input.challengeId)) throw MarketsErrors.identityProofInvalid();
    onChainMachineId ??= await this.onChainIdOf(identityRef);
    const challenge = await this.store.read((prisma) => prisma.marketIdentityChallenge.findUnique({ where: { id: input.challengeId } }));
    if (!challenge || challenge.consumedAt !== null || challenge.onChainMachineId !== onChainMachineId) throw MarketsErrors.identityProofInvalid();
    const now = new Date(this.clock.now());
    if (now.getTime() >= challenge.expiresAt.getTime()) throw MarketsErrors.identityProofExpired();
    const signer = recoverSigner(challenge.message, input.signature);
    if (signer === null) throw MarketsErrors.identityProofInvalid();
    const resolution = await this.resolver.atHead(challenge.onChainMachineId);
    if (!resolution.resolves || !resolution.controllers.includes(signer)) throw MarketsErrors.identityProofInvalid();
    return {
      proof: {
        method: "eip191",
        identityRef: challenge.identityRef,
        signerAddress: signer,
        challengeId: challenge.id,
        verifiedAt: now.toISOString(),
        challengeExpiresAt: challenge.expiresAt.toISOString(),
        controllerAddresses: resolution.controllers,
        resolutionSource: `${this.namespace}-mcr`,
      },
      // Single use across replicas: only the first transaction to flip consumedAt may use the proof.
      async consume(tx) {
        const { count } = await tx.marketIdentityChallenge.updateMany({
          where: { id: challenge.id, consumedAt: null },
          data: { consumedAt: now },
        });
        if (count !== 1) throw MarketsErrors.identityProofInvalid();
      },
    };
  }

  /**
   * Is a stored proof still good at the pinned block (cached per block)? False when the identity no longer resolves
   * or its signer is no longer a controller.
   */
  async stillControls(onChainMachineId: string, signerAddress: string, atHead = false): Promise<boolean> {
    const resolution = atHead ? await this.resolver.atHead(onChainMachineId) : await this.resolver.atPinnedBlock(onChainMachineId);
    return resolution.resolves && resolution.controllers.includes(signerAddress);
  }

  /** With verification off: does the identity resolve on chain now? */
  async resolvesNow(onChainMachineId: string): Promise<boolean> {
    return (await this.resolver.atHead(onChainMachineId)).resolves;
  }

  /** Deletes challenges that expired more than `graceSeconds` ago, used or not (the cleanup job); returns the count. */
  async cleanup(graceSeconds: number): Promise<number> {
    const before = new Date(this.clock.now() - graceSeconds * 1000);
    const { count } = await this.store.read((prisma) => prisma.marketIdentityChallenge.deleteMany({ where: { expiresAt: { lt: before } } }));
    return count;
  }
}
