import type { MarketsMachineRepository } from "./machine.repository.js";

export interface MarketsDeps {
  machines: Pick<MarketsMachineRepository, "find">;
}
