/**
 * `npm run graphql:generate`: typed documents for the example operations (operations.graphql) from the committed
 * supergraph, with graphql-codegen's client preset, into generated/. test/clients/graphql.test.ts checks they are
 * current and runs them against the gateway.
 */
import type { CodegenConfig } from "@graphql-codegen/cli";

const config: CodegenConfig = {
  schema: "gateway/supergraph.graphql",
  documents: ["clients/graphql/operations.graphql"],
  generates: {
    "clients/graphql/generated/": {
      preset: "client",
      presetConfig: { fragmentMasking: false },
      config: { useTypeImports: true, emitLegacyCommonJSImports: false, scalars: { JSONObject: "Record<string, unknown>" } },
    },
  },
  silent: true,
};
export default config;
