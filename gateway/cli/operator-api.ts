/**
 * The CLI's client for the platform's operator operations on the GraphQL gateway (the running platform owns the
 * database; the CLI never opens it). URL: GRAPHQL_URL, else http://HOST:GRAPHQL_PORT/graphql. Token: OPERATOR_TOKEN,
 * else the dev operator token in dev mode. Sent through the client package's gateway client.
 */
import { DEV_OPERATOR_TOKEN, loadConfig } from "../../subgraphs/shared/config.js";
// The client's modules, not its index: the index loads every flow (ethers, the evidence kit) and this path needs none.
import { ApiError } from "../../clients/typescript/src/errors.js";
import { createGatewayClient, type GatewayClient } from "../../clients/typescript/src/gateway.js";
import { CliError } from "./command.js";

export interface ChipEvidenceRecord {
  receiptId: string;
  machineId: string;
  chipRef: string;
  evidenceHash: string;
  acceptedAt: string;
  attestedAt: string | null;
}

const RECORD_FIELDS = "receiptId machineId chipRef evidenceHash acceptedAt attestedAt";

export class OperatorApi {
  private readonly url: string;
  private readonly gateway: GatewayClient;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    const config = loadConfig(env);
    this.url = env.GRAPHQL_URL ?? `http://${config.host}:${config.graphqlPort}/graphql`;
    this.gateway = createGatewayClient({ url: this.url, operatorToken: env.OPERATOR_TOKEN ?? config.operatorTokens[0] ?? DEV_OPERATOR_TOKEN, env: {} });
  }

  async pending(limit: number): Promise<ChipEvidenceRecord[]> {
    const data = await this.request<{ pendingChipEvidence: ChipEvidenceRecord[] }>(
      `query Pending($limit: Int!) { pendingChipEvidence(limit: $limit) { ${RECORD_FIELDS} } }`,
      { limit },
    );
    return data.pendingChipEvidence;
  }

  /** The evidence if the platform agrees it may be attested now; a CliError naming the platform's code otherwise. */
  async attestable(receiptId: string): Promise<ChipEvidenceRecord> {
    const data = await this.request<{ attestableChipEvidence: ChipEvidenceRecord }>(
      `query Attestable($receiptId: String!) { attestableChipEvidence(receiptId: $receiptId) { ${RECORD_FIELDS} } }`,
      { receiptId },
    );
    return data.attestableChipEvidence;
  }

  async recordAttestation(receiptId: string, attestationUid: string): Promise<ChipEvidenceRecord> {
    const data = await this.request<{ recordChipAttestation: ChipEvidenceRecord }>(
      `mutation Record($receiptId: String!, $uid: String!) {
        recordChipAttestation(receiptId: $receiptId, attestationUid: $uid) { ${RECORD_FIELDS} } }`,
      { receiptId, uid: attestationUid },
    );
    return data.recordChipAttestation;
  }

  private async request<T>(query: string, variables: Record<string, unknown>): Promise<T> {
    try {
      return await this.gateway.request<T>(query, variables, { signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      if (!(error instanceof ApiError)) throw new CliError(`the platform's GraphQL gateway at ${this.url} is not answering (is the platform running?)`);
      const named = (error.envelope?.errors as Array<{ extensions?: { code?: string } }> | undefined)?.[0]?.extensions?.code;
      if (!named) throw new CliError(`unexpected answer from ${this.url} (HTTP ${error.status})`);
      throw new CliError(`the platform answered ${error.code}`);
    }
  }
}
