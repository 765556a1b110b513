/**
 * The committed SDL files are what schema-registry consumers read and what the gateway runs on: they must match the
 * code. Run `npm run compose` after changing a subgraph.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { compose, SUPERGRAPH_PATH, subgraphSdlPath } from "../../gateway/compose.js";
import { SUBGRAPH_NAMES } from "../../subgraphs/index.js";

describe("committed schemas", async () => {
  const fresh = await compose();

  it.each(SUBGRAPH_NAMES)("subgraphs/%s/schema.graphql is up to date", async (name) => {
    expect(await readFile(subgraphSdlPath(name), "utf8"), "stale: run npm run compose").toBe(fresh.subgraphs[name]);
  });

  it("gateway/supergraph.graphql is up to date", async () => {
    expect(await readFile(SUPERGRAPH_PATH, "utf8"), "stale: run npm run compose").toBe(fresh.supergraph);
  });

  it("every subgraph contributes to the Machine entity keyed by machineId", () => {
    const machine = /type Machine\n([^{]*)\{([\s\S]*?)\n\}/.exec(fresh.supergraph)!;
    for (const graph of ["VERIFY", "RATINGS", "MARKETS"]) {
      expect(machine[1]).toContain(`@join__type(graph: ${graph}, key: "machineId")`);
    }
    expect(machine[2]).toMatch(/verification: .*@join__field\(graph: VERIFY\)/);
    for (const field of ["rating", "profile", "card", "monetization"]) {
      expect(machine[2]).toMatch(new RegExp(`${field}\\(deployment: RatingsDeployment! = V1\\): .*@join__field\\(graph: RATINGS\\)`));
    }
    expect(machine[2]).toMatch(/marketsRegistration: .*@join__field\(graph: MARKETS\)/);
  });
});
