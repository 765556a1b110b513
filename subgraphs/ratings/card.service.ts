/**
 * Machine cards (GET /machines/{machine_id}): the ERC-8004 registration file the identity NFT's tokenURI points at.
 * `registrations[0].machineRegistry` names the chain ID read from the RPC when the subgraph started (the configured
 * CHAIN_ID, default 3338, if the node could not be asked then) and the deployment's registry contract.
 */
import { RatingsErrors } from "./errors.js";
import { addressDid, decimalDid, type Deployment } from "./identity/did.js";
import type { MachineDirectory } from "./machine-directory.service.js";
import { bondStatusOf } from "./scoring/mcr.view.js";
import type { MachineCard } from "./card.type.js";
import { visibilityOf } from "./profile.service.js";

/** Fixed values of the public notes. */
const REGISTRATION_TYPE = "peaqos:registration:v1";
const DESCRIPTION = "peaqOS machine";

export class CardService {
  constructor(
    private readonly directory: MachineDirectory,
    private readonly chainIdAtStartup: string,
    private readonly didMethod: string,
  ) {}

  card(deployment: Deployment, machineId: bigint): Promise<MachineCard> {
    return this.directory.read(deployment, async () => {
      const { chain } = this.directory;
      const machine = await this.directory.byId(deployment, machineId);
      if (!machine) throw RatingsErrors.machineNotFound();
      if (!machine.wallet) throw RatingsErrors.machineWalletNotFound();
      const wallet = machine.wallet;
      const [dataApi, visibility, documentationUrl, operator, bonded, eventCount] = await Promise.all([
        chain.didAttribute(wallet, "data_api"),
        chain.didAttribute(wallet, "data_visibility"),
        chain.didAttribute(wallet, "documentation_url"),
        chain.didAttribute(wallet, "operator"),
        chain.isStaked(machineId),
        chain.eventCount(machineId),
      ]);
      const registry = chain.address(deployment === "v2" ? "MachineRegistry" : "IdentityRegistry")!;
      return {
        type: REGISTRATION_TYPE,
        name: `Machine #${machineId}`,
        description: DESCRIPTION,
        did: deployment === "v2" ? decimalDid(machineId, this.didMethod) : addressDid(wallet, this.didMethod),
        active: true,
        services: dataApi === null ? [] : [{ name: "web", endpoint: dataApi }],
        dataVisibility: visibilityOf(visibility),
        documentationUrl: documentationUrl ?? "",
        operator,
        bondStatus: bondStatusOf(bonded),
        eventCount,
        registrations: [
          {
            type: REGISTRATION_TYPE,
            machineId: machineId.toString(),
            machineRegistry: `eip155:${this.chainIdAtStartup}:${registry}`,
          },
        ],
      };
    });
  }
}
