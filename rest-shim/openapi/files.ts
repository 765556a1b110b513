/** The committed documents: docs/openapi/<listener>.json, written by `npm run openapi` (scripts/openapi.ts). */
import type { DemoFixture } from "../../subgraphs/shared/chain/demo-fixture.js";
import type { PlatformConfig } from "../../subgraphs/shared/config.js";
import type { ListenerName } from "../route-definition.js";
import { ROUTES } from "../routes.js";
import { buildOpenApiDocument } from "./document.js";

export const OPENAPI_DIR = "docs/openapi";
export const OPENAPI_LISTENERS: readonly ListenerName[] = ["http", "mcr2", "markets"];

/** [repository-relative file, text] per listener. Default limits: the committed file documents the defaults. */
export function openApiDocuments(config: PlatformConfig, demo: DemoFixture): Array<[string, string]> {
  return OPENAPI_LISTENERS.map((listener) => [
    `${OPENAPI_DIR}/${listener}.json`,
    `${JSON.stringify(buildOpenApiDocument(listener, ROUTES, config, demo), null, 2)}\n`,
  ]);
}
