/**
 * The signed monetization toggle (docs/monetization.md). Order of checks for a PUT:
 *
 *   key format, body types (400 INVALID_REQUEST) -> freshness window (409 STALE_SIGNATURE) -> machine known to the
 *   deployment (404 MACHINE_NOT_FOUND) -> signature recovers (400 INVALID_SIGNATURE) -> signer authorized
 *   (403 UNAUTHORIZED_SIGNER) -> opt-in only: not deactivated, activated, bonded (409) -> strictly newer than the
 *   applied decision, decided by the database (409 STALE_SIGNATURE).
 *
 * Chain and store failures are 503 MACHINE_UNAVAILABLE, the code clients retry. Nothing is written on chain.
 */
import { verifyMessage } from "ethers";
import type { Clock } from "../../shared/clock.js";
import { ChainUnavailableError, DomainError, StoreUnavailableError } from "../../shared/errors.js";
import { REQUIRED_CONTRACTS, type MachineDirectory, type RatedMachine } from "../machine-directory.service.js";
import { parseMonetizationKey, type Deployment } from "../identity/did.js";
import { buildMonetizationMessage, MONETIZATION_MESSAGE_TEMPLATE } from "./monetization.message.js";
import type { MonetizationDecisionRow, MonetizationRepository } from "./monetization.repository.js";
import {
  MonetizationStatus,
  type MonetizationCompatibility,
  type MonetizationDecisionInput,
  type MonetizationState,
} from "./monetization.type.js";
import type { MonetizationConfig } from "../../shared/config/ratings.js";

const error = (code: string, message: string) => () => new DomainError(code, message);

export const MonetizationErrors = {
  invalidRequest: error("INVALID_REQUEST", "The request is not valid."),
  invalidSignature: error("INVALID_SIGNATURE", "The signature does not recover to an address."),
  unauthorizedSigner: error("UNAUTHORIZED_SIGNER", "The signer may not decide for this machine."),
  machineNotFound: error("MACHINE_NOT_FOUND", "No such machine in this deployment."),
  machineDeactivated: error("MACHINE_DEACTIVATED", "The machine is deactivated."),
  machineNotActivated: error("MACHINE_NOT_ACTIVATED", "The machine is not activated."),
  machineNotBonded: error("MACHINE_NOT_BONDED", "The machine is not bonded."),
  staleSignature: error("STALE_SIGNATURE", "The signed timestamp is stale or outside the freshness window."),
  machineUnavailable: error("MACHINE_UNAVAILABLE", "The machine state is unavailable; retry."),
  serviceUnavailable: error("SERVICE_UNAVAILABLE", "The service is not initialised."),
} as const;

const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

export class MonetizationService {
  constructor(
    private readonly directory: MachineDirectory,
    private readonly repository: MonetizationRepository,
    private readonly config: MonetizationConfig,
    private readonly namespace: string,
    private readonly chainIdAtStartup: string,
    private readonly clock: Clock,
    private readonly log: (error: unknown) => void,
  ) {}

  state(deployment: Deployment, key: string): Promise<MonetizationState> {
    return this.guard(deployment, async () => {
      const machine = await this.machine(deployment, key);
      return toState(machine.machineId, await this.repository.find(deployment, machine.machineId.toString()));
    });
  }

  decide(deployment: Deployment, key: string, input: MonetizationDecisionInput): Promise<MonetizationState> {
    return this.guard(deployment, async () => {
      const parsedKey = parseKey(deployment, key, this.namespace);
      const { optedIn, timestamp, signature } = input;
      if (typeof optedIn !== "boolean" || !Number.isSafeInteger(timestamp) || timestamp <= 0 || !SIGNATURE.test(signature)) {
        throw MonetizationErrors.invalidRequest();
      }
      const now = Math.floor(this.clock.now() / 1000);
      if (timestamp < now - this.config.maxAgeSeconds || timestamp > now + this.config.maxFutureSeconds) {
        throw MonetizationErrors.staleSignature();
      }
      const machine = await this.directory.byKey(deployment, parsedKey);
      if (!machine) throw MonetizationErrors.machineNotFound();
      const message = buildMonetizationMessage({
        namespace: this.namespace,
        registry: this.registry(deployment),
        chainId: this.chainIdAtStartup,
        machineId: machine.machineId,
        optedIn,
        timestamp,
      });
      let signer: string;
      try {
        signer = verifyMessage(message, signature);
      } catch {
        throw MonetizationErrors.invalidSignature();
      }
      if (!(await this.authorized(machine, signer))) throw MonetizationErrors.unauthorizedSigner();
      if (optedIn) await this.requireOptInAllowed(machine);
      const stored = await this.repository.applyIfNewer(
        { deployment, machineId: machine.machineId.toString(), optedIn, signer, timestamp: BigInt(timestamp) },
        new Date(this.clock.now()),
      );
      if (!stored) throw MonetizationErrors.staleSignature();
      return toState(machine.machineId, stored);
    });
  }

  compatibility(deployment: Deployment): MonetizationCompatibility {
    return {
      api: `${this.namespace}-monetization`,
      version: 1,
      deployment: deployment === "v2" ? "2.0" : "1.0",
      chainId: this.chainIdAtStartup,
      registry: (this.directory.chain.address(deployment === "v2" ? "MachineRegistry" : "IdentityRegistry") ?? "").toLowerCase(),
      messageTemplate: MONETIZATION_MESSAGE_TEMPLATE,
      maxAgeSeconds: this.config.maxAgeSeconds,
      maxFutureSeconds: this.config.maxFutureSeconds,
    };
  }

  private registry(deployment: Deployment): string {
    return this.directory.chain.address(deployment === "v2" ? "MachineRegistry" : "IdentityRegistry")!;
  }

  private async machine(deployment: Deployment, key: string): Promise<RatedMachine> {
    const machine = await this.directory.byKey(deployment, parseKey(deployment, key, this.namespace));
    if (!machine) throw MonetizationErrors.machineNotFound();
    return machine;
  }

  /** The NFT owner, the on-chain operator, event submission's authorization set, and on 2.0 the DID controller. */
  private async authorized(machine: RatedMachine, signer: string): Promise<boolean> {
    const { chain } = this.directory;
    if (machine.operator === signer) return true;
    const tokenId = await chain.tokenIdOf(machine.machineId);
    if (tokenId !== 0n && (await chain.ownerOfToken(tokenId)) === signer) return true;
    if (machine.deployment === "v2" && (await chain.machine(machine.machineId))?.effectiveController === signer) return true;
    return chain.isSubmitter(machine.machineId, signer);
  }

  private async requireOptInAllowed(machine: RatedMachine): Promise<void> {
    if (machine.deactivated) throw MonetizationErrors.machineDeactivated();
    if (!machine.activated) throw MonetizationErrors.machineNotActivated();
    if (!(await this.directory.chain.isStaked(machine.machineId))) throw MonetizationErrors.machineNotBonded();
  }

  private async guard<T>(deployment: Deployment, step: () => Promise<T>): Promise<T> {
    if (!this.directory.chain.configured(...REQUIRED_CONTRACTS[deployment])) throw MonetizationErrors.serviceUnavailable();
    try {
      return await step();
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (error instanceof ChainUnavailableError || error instanceof StoreUnavailableError) {
        this.log(error);
        throw MonetizationErrors.machineUnavailable();
      }
      throw error;
    }
  }
}

function parseKey(deployment: Deployment, key: string, namespace: string) {
  try {
    return parseMonetizationKey(key, deployment, namespace);
  } catch {
    throw MonetizationErrors.invalidRequest();
  }
}

function toState(machineId: bigint, row: MonetizationDecisionRow | null): MonetizationState {
  if (!row) return { machineId: machineId.toString(), status: MonetizationStatus.PENDING, signer: null, updatedAt: null };
  return {
    machineId: machineId.toString(),
    status: row.optedIn ? MonetizationStatus.OPTED_IN : MonetizationStatus.OPTED_OUT,
    signer: row.signer,
    updatedAt: Number(row.timestamp),
  };
}
