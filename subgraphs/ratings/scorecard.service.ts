/** GET /mcr/{did}: the machine a deployment knows by this DID, and its cached scorecard. */
import { addressDid, decimalDid, type Deployment } from "./identity/did.js";
import { RatingsErrors } from "./errors.js";
import type { MachineDirectory } from "./machine-directory.service.js";
import type { McrService } from "./scoring/mcr.service.js";
import type { McrScorecard } from "./scoring/mcr.type.js";
import { toScorecard } from "./scoring/mcr.view.js";

export class ScorecardService {
  constructor(
    private readonly directory: MachineDirectory,
    private readonly mcr: McrService,
    private readonly didMethod: string,
  ) {}

  scorecard(deployment: Deployment, did: string): Promise<McrScorecard> {
    return this.directory.read(deployment, async () => {
      const machine = await this.directory.byDid(deployment, did);
      return toScorecard(await this.mcr.score(machine.machineId), did, machine.machineId);
    });
  }

  /** The scorecard of a machine by ID, under the deployment's DID for it; MACHINE_NOT_FOUND when unknown. */
  byId(deployment: Deployment, machineId: bigint): Promise<McrScorecard> {
    return this.directory.read(deployment, async () => {
      const machine = await this.directory.byId(deployment, machineId);
      if (!machine?.wallet) throw RatingsErrors.machineNotFound();
      const did = deployment === "v2" ? decimalDid(machineId, this.didMethod) : addressDid(machine.wallet, this.didMethod);
      return toScorecard(await this.mcr.score(machineId), did, machineId);
    });
  }
}
