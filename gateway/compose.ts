/**
 * Static composition: print each subgraph's SDL and compose the supergraph with @apollo/composition.
 * `npm run compose` writes `subgraphs/<name>/schema.graphql` and `gateway/supergraph.graphql`; a test fails when
 * the committed files are stale. The gateway runs on the committed supergraph, never composing at boot.
 */
import "reflect-metadata";
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { composeServices } from "@apollo/composition";
import { printSubgraphSchema } from "@apollo/subgraph";
import { parse } from "graphql";
import { SUBGRAPH_NAMES, schemaBuilders, type SubgraphName } from "../subgraphs/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SUPERGRAPH_PATH = path.join(root, "gateway", "supergraph.graphql");
export const subgraphSdlPath = (name: SubgraphName) => path.join(root, "subgraphs", name, "schema.graphql");

/** Default URL of each subgraph in the split topology (recorded in the supergraph; overridden by SUBGRAPH_<NAME>_URL). */
export const DEFAULT_SUBGRAPH_PORTS: Record<SubgraphName, number> = { verify: 4001, ratings: 4002, markets: 4003 };

export interface Composition {
  subgraphs: Record<SubgraphName, string>;
  supergraph: string;
}

export async function compose(): Promise<Composition> {
  const subgraphs = {} as Record<SubgraphName, string>;
  for (const name of SUBGRAPH_NAMES) subgraphs[name] = printSubgraphSchema(await schemaBuilders[name]()) + "\n";
  const result = composeServices(
    SUBGRAPH_NAMES.map((name) => ({
      name,
      url: `http://127.0.0.1:${DEFAULT_SUBGRAPH_PORTS[name]}/graphql`,
      typeDefs: parse(subgraphs[name]),
    })),
  );
  if (result.errors) throw new Error(`composition failed:\n${result.errors.map((e) => e.message).join("\n")}`);
  return { subgraphs, supergraph: result.supergraphSdl };
}

export function readCommittedSupergraph(): Promise<string> {
  return readFile(SUPERGRAPH_PATH, "utf8");
}

async function main(): Promise<void> {
  const { subgraphs, supergraph } = await compose();
  for (const name of SUBGRAPH_NAMES) {
    await writeFile(subgraphSdlPath(name), subgraphs[name]);
    console.error(`wrote ${path.relative(root, subgraphSdlPath(name))}`);
  }
  await writeFile(SUPERGRAPH_PATH, supergraph);
  console.error(`wrote ${path.relative(root, SUPERGRAPH_PATH)}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
