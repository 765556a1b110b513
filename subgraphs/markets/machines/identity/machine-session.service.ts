/**
 * Machine sessions: a machine's authority for its writes (docs/markets-identity.md "Machine sessions").
 *
 * - create: a controller of the machine's identity signs a fresh identity challenge (the one of
 *   `POST /machine-identity/challenges`); the proof is checked as a machine record's proof is (challenge unused and
 *   issued for the record's identityRef, before expiresAt, signer a controller at the chain head), the challenge is
 *   consumed, and a session row plus an HS256 bearer token bound to the machine and that controller are issued.
 * - authorize: every machine-bound write checks the token first (before global rule 1 and before any value of the
 *   request): missing -> MACHINE_IDENTITY_PROOF_REQUIRED; past its life -> MACHINE_IDENTITY_PROOF_EXPIRED; anything
 *   else wrong (signature, another machine, revoked, its controller no longer controlling the identity at the pinned
 *   block) -> MACHINE_IDENTITY_PROOF_INVALID. A session whose controller lost control is revoked for good.
 * - revoke: any live session of a machine ends any session of the same machine (itself included).
 *
 * With MACHINE_IDENTITY_VERIFICATION=off (development only) no authority is asked.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../../../shared/clock.js";
import type { IdentityVerificationMode } from "../../../shared/config/markets.js";
import { recordAuditEvent, type AuditActor } from "../../common/audit.repository.js";
import { MarketsErrors } from "../../common/errors.js";
import { MARKET_MACHINE_ID } from "../../common/machine.guard.js";
import type { MarketsStore } from "../../common/store.js";
import type { IdentityChallengeService } from "./identity-challenge.service.js";
import type { MachineSessionTokens } from "./machine-session.token.js";

export interface MachineProofInput {
  challengeId: string;
  signature: string;
}

export interface IssuedMachineSession {
  sessionId: string;
  machineId: string;
  controllerAddress: string;
  sessionToken: string;
  issuedAt: string;
  expiresAt: string;
}

/** Who acts for the machine: the controller behind the session, or the platform when authority is off. */
export interface MachineAuthority {
  sessionId: string | null;
  actor: AuditActor;
}

const SESSION_ID = /^msess_[0-9a-f]{24}$/;
const PLATFORM: MachineAuthority = { sessionId: null, actor: { type: "platform" } };

export class MachineSessionService {
  constructor(
    private readonly store: MarketsStore,
    private readonly challenges: IdentityChallengeService,
    private readonly tokens: MachineSessionTokens,
    private readonly mode: IdentityVerificationMode,
    private readonly clock: Clock,
  ) {}

  /** Is authority asked at all (MACHINE_IDENTITY_VERIFICATION=required)? */
  get required(): boolean {
    return this.mode === "required";
  }

  /** POST /machine-identity/sessions: a session for a controller-signed challenge of the machine's identity. */
  async create(machineId: string, proof: MachineProofInput): Promise<IssuedMachineSession> {
    if (!MARKET_MACHINE_ID.test(machineId)) throw MarketsErrors.notFound();
    const machine = await this.store.read((prisma) => prisma.marketMachine.findUnique({ where: { id: machineId } }));
    if (!machine) throw MarketsErrors.notFound();
    // A draft without an identity has no controller who could act for it.
    if (machine.identityRef === null) throw MarketsErrors.machineNotActivated();
    const verified = await this.challenges.verify(machine.identityRef, proof);
    const controllerAddress = verified.proof.signerAddress;
    const sessionId = `msess_${randomBytes(12).toString("hex")}`;
    const issued = await this.tokens.issue({ machineId, controllerAddress, jti: sessionId }, this.clock.now());
    await this.store.write(async (tx) => {
      await verified.consume(tx);
      await tx.marketMachineSession.create({
        data: { id: sessionId, machineId, controllerAddress, issuedAt: issued.issuedAt, expiresAt: issued.expiresAt },
      });
      await recordAuditEvent(tx, {
        kind: "machine.session-created",
        machineId,
        actor: { type: "machine", id: controllerAddress },
        occurredAt: issued.issuedAt,
        data: { sessionId, controllerAddress, expiresAt: issued.expiresAt.toISOString() },
      });
    });
    return {
      sessionId,
      machineId,
      controllerAddress,
      sessionToken: issued.token,
      issuedAt: issued.issuedAt.toISOString(),
      expiresAt: issued.expiresAt.toISOString(),
    };
  }

  /**
   * The machine's authority behind `token` for a write on `machineId`, checked before anything else of the request.
   * Reads the session row and the chain (cached per block); writes only to end a session whose controller lost
   * control of the identity.
   */
  async authorize(token: string | null | undefined, machineId: string): Promise<MachineAuthority> {
    if (!this.required) return PLATFORM;
    return (await this.check(token, machineId)).authority;
  }

  /** The authority of `token` for the machine it was issued for (a request that names no machine of its own). */
  async authorizeOwn(token: string | null | undefined): Promise<MachineAuthority> {
    if (!this.required) return PLATFORM;
    return (await this.check(token, null)).authority;
  }

  /** DELETE /machine-identity/sessions/:sessionId with a live session of the same machine. */
  async revoke(token: string | null | undefined, sessionId: string): Promise<void> {
    // The caller's own machine comes from its token (checked whatever the verification mode: it names the machine).
    const { authority, machineId } = await this.check(token, null);
    if (!SESSION_ID.test(sessionId)) throw MarketsErrors.notFound();
    const target = await this.store.read((prisma) => prisma.marketMachineSession.findUnique({ where: { id: sessionId } }));
    if (!target || target.machineId !== machineId) throw MarketsErrors.notFound();
    await this.end(sessionId, "revoked", authority.actor, machineId);
  }

  /** One check of `token`: for `machineId`, or (null) for the machine it was issued for. */
  private async check(token: string | null | undefined, machineId: string | null): Promise<{ authority: MachineAuthority; machineId: string }> {
    if (token === null || token === undefined || token === "") throw MarketsErrors.identityProofRequired();
    const now = this.clock.now();
    const claims = await this.tokens.verify(token, now);
    const machine = machineId ?? claims.machineId;
    if (claims.machineId !== machine || !SESSION_ID.test(claims.jti)) throw MarketsErrors.identityProofInvalid();
    const session = await this.store.read((prisma) =>
      prisma.marketMachineSession.findUnique({ where: { id: claims.jti }, include: { machine: { select: { onChainMachineId: true } } } }),
    );
    if (!session || session.machineId !== machine || session.revokedAt !== null) throw MarketsErrors.identityProofInvalid();
    if (session.controllerAddress !== claims.controllerAddress) throw MarketsErrors.identityProofInvalid();
    if (now >= session.expiresAt.getTime()) throw MarketsErrors.identityProofExpired();
    const onChainId = session.machine.onChainMachineId;
    if (onChainId === null || !(await this.challenges.stillControls(onChainId, session.controllerAddress))) {
      await this.end(session.id, "controller-changed", { type: "system" }, machine);
      throw MarketsErrors.identityProofInvalid();
    }
    return { authority: { sessionId: session.id, actor: { type: "machine", id: session.controllerAddress } }, machineId: machine };
  }

  /** Marks a session ended (once) with its audit event; a session already ended stays as it was. */
  private async end(sessionId: string, reason: string, actor: AuditActor, machineId: string): Promise<void> {
    const revokedAt = new Date(this.clock.now());
    await this.store.write(async (tx) => {
      const { count } = await tx.marketMachineSession.updateMany({ where: { id: sessionId, revokedAt: null }, data: { revokedAt, revokedReason: reason } });
      if (count === 1) await recordAuditEvent(tx, { kind: "machine.session-revoked", machineId, actor, occurredAt: revokedAt, data: { sessionId, reason } });
    });
  }

  /** Deletes sessions that expired more than `graceSeconds` ago (the cleanup job); returns the count. */
  async cleanup(graceSeconds: number): Promise<number> {
    const before = new Date(this.clock.now() - graceSeconds * 1000);
    const { count } = await this.store.read((prisma) => prisma.marketMachineSession.deleteMany({ where: { expiresAt: { lt: before } } }));
    return count;
  }
}
