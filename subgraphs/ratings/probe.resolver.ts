import { Query, Resolver } from "type-graphql";
import { HealthReport, HealthStatus, ReadinessReport, ReadinessStatus } from "./probe.type.js";
import type { RatingsDeps } from "./deps.js";

@Resolver()
export class ProbeResolver {
  constructor(private readonly deps: RatingsDeps) {}

  @Query(() => HealthReport, { description: "GET /health" })
  health(): HealthReport {
    return { status: HealthStatus.OK };
  }

  @Query(() => ReadinessReport, { description: "GET /ready" })
  async readiness(): Promise<ReadinessReport> {
    const probe = await this.deps.chain.probe();
    const ready = probe.rpc_connected && Object.values(probe.contracts).every(Boolean);
    const { contracts } = probe;
    return {
      status: ready ? ReadinessStatus.READY : ReadinessStatus.NOT_READY,
      rpcConnected: probe.rpc_connected,
      contracts: {
        identityRegistry: contracts.identity_registry,
        identityStaking: contracts.identity_staking,
        eventRegistry: contracts.event_registry,
        machineNft: contracts.machine_nft,
        didRegistry: contracts.did_registry,
        adminFlags: contracts.admin_flags,
      },
    };
  }
}
