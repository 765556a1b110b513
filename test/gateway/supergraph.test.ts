/**
 * The committed SDL files are what schema-registry consumers read and what the gateway runs on: they must match the
 * code. Run `npm run compose` after changing a subgraph.
 */
import { readFile } from "node:fs/promises";
import { getNamedType, isEnumType, isObjectType, type GraphQLEnumType, type GraphQLObjectType } from "graphql";
import { describe, expect, it } from "vitest";
import { compose, SUPERGRAPH_PATH, subgraphSdlPath } from "../../gateway/compose.js";
import { supergraphSchema } from "../../rest-shim/openapi/graphql-shapes.js";
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

/**
 * What typed clients read from the supergraph: root fields answer object types, statuses are UPPER_CASE enums,
 * and each remaining `JSONObject` field says why its members are free-form.
 */
describe("a schema tools can type", () => {
  const schema = supergraphSchema();
  const objectFields = Object.values(schema.getTypeMap())
    .filter((type): type is GraphQLObjectType => isObjectType(type) && !type.name.startsWith("__"))
    .flatMap((type) => Object.values(type.getFields()).map((field) => ({ at: `${type.name}.${field.name}`, type, field })));

  it("no Query or Mutation field answers JSONObject", () => {
    const roots = [schema.getQueryType()!, schema.getMutationType()!];
    const untyped = objectFields.filter(({ type, field }) => roots.includes(type) && getNamedType(field.type).name === "JSONObject");
    expect(untyped.map(({ at }) => at)).toEqual([]);
    expect(objectFields.filter(({ type }) => roots.includes(type)).length).toBeGreaterThan(100);
  });

  it("every status field answers an enum whose values are UPPER_CASE", () => {
    // httpStatus fields are HTTP status codes (Int), not states.
    const statuses = objectFields.filter(({ field }) => /(^s|S)tatus$/.test(field.name) && getNamedType(field.type).name !== "Int");
    expect(statuses.length).toBeGreaterThan(30);
    const notEnum = statuses.filter(({ field }) => !isEnumType(getNamedType(field.type))).map(({ at }) => at);
    expect(notEnum).toEqual([]);
    for (const { field } of statuses) {
      const values = (getNamedType(field.type) as GraphQLEnumType).getValues().map((value) => value.name);
      expect(values.filter((name) => !/^[A-Z][A-Z0-9_]*$/.test(name))).toEqual([]);
    }
  });

  it("each JSONObject field of an object type describes why it is free-form", () => {
    const json = objectFields.filter(({ field }) => getNamedType(field.type).name === "JSONObject");
    expect(json.length).toBeGreaterThan(0);
    expect(json.filter(({ field }) => !field.description?.trim()).map(({ at }) => at)).toEqual([]);
  });
});
