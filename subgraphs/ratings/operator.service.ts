/**
 * Operator listings (GET /operator/{did}/machines): one page of an operator's machines, each with its full MCR.
 *
 * - 1.0: the operator DID's `machines` attribute (a JSON array of machine IDs). `total` counts its integer entries;
 *   machines the registry does not know (or without a wallet) are dropped from the page, so a page may be short.
 * - 2.0: the ownership index (machines whose NFT the account owns), served only while it is at most
 *   MCR2_INDEX_MAX_LAG_BLOCKS behind the finalized block; otherwise 503 OPERATOR_INDEX_SYNCING.
 */
import { StoreUnavailableError } from "../shared/errors.js";
import { operatorIndexSyncing, RatingsErrors } from "./errors.js";
import { addressDid, decimalDid, parseAddressDid, type Deployment } from "./identity/did.js";
import type { MachineDirectory } from "./machine-directory.service.js";
import type { McrService } from "./scoring/mcr.service.js";
import { ratingOf } from "./scoring/mcr.view.js";
import type { OperatorMachine, OperatorMachines } from "./operator.type.js";
import type { OwnershipIndexService } from "./chain/ownership-index.service.js";

export const PAGE_LIMIT_MAX = 20;

export class OperatorService {
  constructor(
    private readonly directory: MachineDirectory,
    private readonly mcr: McrService,
    private readonly ownership: OwnershipIndexService,
    private readonly maxLagBlocks: number,
    private readonly didMethod: string,
  ) {}

  listing(deployment: Deployment, operatorDid: string, offset: number, limit: number): Promise<OperatorMachines> {
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 1 || limit > PAGE_LIMIT_MAX) {
      return Promise.reject(RatingsErrors.invalidPagination());
    }
    return this.directory.read(deployment, async () => {
      const operator = parseAddressDid(operatorDid, this.didMethod);
      const { total, machineIds } =
        deployment === "v2" ? await this.fromIndex(operator, offset, limit) : await this.fromDidAttribute(operator, offset, limit);
      const machines = await Promise.all(machineIds.map((id) => this.entry(deployment, id)));
      return {
        operatorDid,
        machines: machines.filter((m): m is OperatorMachine => m !== null),
        pagination: { offset, limit, total },
      };
    });
  }

  private async fromDidAttribute(operator: string, offset: number, limit: number) {
    const ids = machineIdsOf(await this.directory.chain.didAttribute(operator, "machines"));
    return { total: ids.length, machineIds: ids.slice(offset, offset + limit) };
  }

  private async fromIndex(operator: string, offset: number, limit: number) {
    try {
      const position = await this.ownership.position();
      if (position.finalizedBlock - position.syncedBlock > this.maxLagBlocks) {
        throw operatorIndexSyncing(position.syncedBlock, position.finalizedBlock);
      }
      const { total, machineIds } = await this.ownership.machinesOf(operator, offset, limit);
      return { total, machineIds: machineIds.map((id) => BigInt(id)) };
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw RatingsErrors.storeUnavailable();
      throw error;
    }
  }

  private async entry(deployment: Deployment, machineId: bigint): Promise<OperatorMachine | null> {
    const machine = await this.directory.byId(deployment, machineId);
    if (!machine?.wallet) return null;
    const score = await this.mcr.score(machineId);
    return {
      did: deployment === "v2" ? decimalDid(machineId, this.didMethod) : addressDid(machine.wallet, this.didMethod),
      machineId: machineId.toString(),
      mcrScore: score.mcrScore,
      mcr: ratingOf(score.mcr),
      negativeFlag: score.negativeFlag,
    };
  }
}

/** The `machines` attribute's valid entries: non-negative integers (anything else in the array is skipped). */
function machineIdsOf(attribute: string | null): bigint[] {
  if (attribute === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(attribute);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter((id): id is number => Number.isSafeInteger(id) && id >= 0).map((id) => BigInt(id));
}
