/**
 * Second-chain lookup (1.0 deployment only): a base58 32-byte key, resolved through the binding registry to the bound
 * EVM identity, then exactly the /mcr/{did} or /operator/{did}/machines payload for `did:<method>:<evm address>`.
 * Scoring reads only the primary chain; nothing is written anywhere. Settled outcomes (bound, not_bound,
 * binding_revoked) are kept ALTCHAIN_CACHE_TTL seconds (spec: 60); a node failure is never kept.
 */
import { isAddress, type Address } from "@solana/kit";
import type { Clock } from "../../shared/clock.js";
import { DomainError } from "../../shared/errors.js";
import { addressDid } from "../identity/did.js";
import type { OperatorService } from "../operator.service.js";
import type { ScorecardService } from "../scorecard.service.js";
import type { AltchainMcr, AltchainOperatorMachines } from "./altchain.type.js";
import { AltchainUnavailableError, type BindingClient, type BindingOutcome } from "./binding-client.js";

const error = (code: string, message: string) => () => new DomainError(code, message);

export const AltchainErrors = {
  invalidAddress: error("INVALID_ALTCHAIN_ADDRESS", "Invalid altchain address"),
  notBound: error("ALTCHAIN_NOT_BOUND", "Altchain address not bound"),
  bindingRevoked: error("ALTCHAIN_BINDING_REVOKED", "Altchain binding revoked"),
  unavailable: error("ALTCHAIN_UNAVAILABLE", "Altchain unavailable"),
} as const;

const MAX_CACHED = 10_000;

export class AltchainService {
  private readonly cache = new Map<string, { outcome: BindingOutcome; expiresAtMs: number }>();

  constructor(
    /** Null when no second-chain node is configured (production without ALTCHAIN_RPC_URL): every lookup is 503. */
    private readonly client: BindingClient | null,
    private readonly cacheTtlSeconds: number,
    private readonly clock: Clock,
    private readonly scorecards: ScorecardService,
    private readonly operators: OperatorService,
    private readonly didMethod: string,
  ) {}

  async mcr(altchainAddress: string): Promise<AltchainMcr> {
    const evmAddress = await this.boundEvmAddress(altchainAddress);
    const scorecard = await this.scorecards.scorecard("v1", addressDid(evmAddress, this.didMethod));
    return { altchainAddress, evmAddress, scorecard };
  }

  async operatorMachines(altchainAddress: string, offset: number, limit: number): Promise<AltchainOperatorMachines> {
    const evmAddress = await this.boundEvmAddress(altchainAddress);
    const listing = await this.operators.listing("v1", addressDid(evmAddress, this.didMethod), offset, limit);
    return { altchainAddress, evmAddress, listing };
  }

  /** The EVM identity the key is bound to; the resolution step's errors otherwise (cached as described above). */
  async boundEvmAddress(altchainAddress: string): Promise<string> {
    if (!isAddress(altchainAddress)) throw AltchainErrors.invalidAddress();
    const outcome = await this.resolve(altchainAddress);
    if (outcome.kind === "not_bound") throw AltchainErrors.notBound();
    if (outcome.kind === "binding_revoked") throw AltchainErrors.bindingRevoked();
    return outcome.evmAddress;
  }

  private async resolve(key: Address): Promise<BindingOutcome> {
    const now = this.clock.now();
    const cached = this.cache.get(key);
    if (cached && cached.expiresAtMs > now) return cached.outcome;
    if (!this.client) throw AltchainErrors.unavailable();
    let outcome: BindingOutcome;
    try {
      outcome = await this.client.resolve(key);
    } catch (failure) {
      if (failure instanceof AltchainUnavailableError) throw AltchainErrors.unavailable();
      throw failure;
    }
    if (this.cacheTtlSeconds > 0) {
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(key, { outcome, expiresAtMs: now + this.cacheTtlSeconds * 1000 });
    }
    return outcome;
  }
}
