import { Arg, Int, Query, Resolver } from "type-graphql";
import type { RatingsDeps } from "../deps.js";
import { AltchainMcr, AltchainOperatorMachines } from "./altchain.type.js";

/** The second-chain lookup; 1.0 deployment only (the 2.0 listener does not route to it). */
@Resolver()
export class AltchainResolver {
  constructor(private readonly deps: RatingsDeps) {}

  @Query(() => AltchainMcr, { description: "GET /altchain/mcr/{altchain_addr}: base58 32-byte key." })
  altchainMcr(@Arg("altchainAddress", () => String) altchainAddress: string): Promise<AltchainMcr> {
    return this.deps.altchain.mcr(altchainAddress);
  }

  @Query(() => AltchainOperatorMachines, { description: "GET /altchain/operator/{altchain_addr}/machines" })
  altchainOperatorMachines(
    @Arg("altchainAddress", () => String) altchainAddress: string,
    @Arg("offset", () => Int, { defaultValue: 0 }) offset: number,
    @Arg("limit", () => Int, { defaultValue: 20 }) limit: number,
  ): Promise<AltchainOperatorMachines> {
    return this.deps.altchain.operatorMachines(altchainAddress, offset, limit);
  }
}
