/**
 * `market`: an AI agent's journey on the markets API (document 3), for the `not-required` rail, signing with the
 * demo agent key of `<DATA_DIR>/demo.json` (or MARKET_AGENT_PRIVATE_KEY):
 *
 *   pair     challenge, sign (EIP-191), create: prints the pairing and its pairingToken
 *   search   POST /market/search: prints searchId and the best quote
 *   order    POST /market/orders from a quote
 *   pay      POST /market/orders/:id/payment-intent; `--rail wallet` also transfers and proves (gateway/cli/commands/market/pay.ts)
 *   execute  POST /market/orders/:id/execute
 *   confirm  POST /market/orders/:id/confirm
 *   resolve  POST /market/orders/:id/resolve: the operator ends a disputed order (gateway/cli/commands/market/resolve.ts)
 *   demo     all of the above in sequence (registering the demo provider as the machine's runtime endpoint first)
 *
 * stdout: one JSON line per step; progress on stderr. The pairing token goes in `--token` or MARKET_PAIRING_TOKEN.
 */
import { Wallet } from "ethers";
import { readDemoFixture } from "../../../../subgraphs/shared/chain/demo-fixture.js";
import { loadConfig } from "../../../../subgraphs/shared/config.js";
import { machineSession } from "../../machine-session.js";
import { marketsClient, send, type MarketsClient } from "../../platform.js";
import { payCommand } from "./pay.js";
import { resolveCommand } from "./resolve.js";
import { CliError, parseOptions, printResult, progress, required, UsageError, type CliCommandGroup, type CliSubcommand } from "../../command.js";

const COMMON = "[--api http://127.0.0.1:<MARKETS_PORT>]";
/** The machine's controller key for pair, search and demo (default: MACHINE_CONTROLLER_PRIVATE_KEY, or demo.json's). */
const KEY = "[--key <controller key>]";

/** The markets API for these commands (through the client package), with the agent's pairing token if given. */
class MarketsApi {
  private readonly client: MarketsClient;

  constructor(
    readonly base: string,
    token?: string,
  ) {
    this.client = marketsClient(base, { pairingToken: token });
  }

  async call(method: string, path: string, body?: unknown, expected: number[] = [200, 201], extra: Record<string, string> = {}): Promise<any> {
    const answer = await send(this.client, method, path, { body, headers: extra });
    if (!expected.includes(answer.status)) {
      throw new CliError(`${method} ${path}: ${answer.status} ${answer.body?.error?.code ?? ""}${answer.body?.error?.details ? ` ${JSON.stringify(answer.body.error.details)}` : ""}`);
    }
    return answer.body;
  }
}

function apiBase(api: string | undefined): string {
  const config = loadConfig();
  return api ?? `http://${config.host}:${config.marketsPort}`;
}

function agentWallet(): Wallet {
  const key = process.env.MARKET_AGENT_PRIVATE_KEY ?? readDemoFixture(loadConfig().dataDir)?.markets?.agent?.privateKey;
  if (!key) throw new CliError("no agent key: set MARKET_AGENT_PRIVATE_KEY, or start the platform so demo.json names the demo agent");
  return new Wallet(key);
}

const list = (raw: string | undefined) => (raw === undefined ? undefined : raw.split(",").map((s) => s.trim()).filter(Boolean));
const amount = (raw: string | undefined, flag: string) => {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new UsageError(`${flag} must be a number >= 0`);
  return value;
};

const tokenOf = (given: string | undefined, usage: string) => required(given ?? process.env.MARKET_PAIRING_TOKEN, "--token (or MARKET_PAIRING_TOKEN)", usage);

// ---- steps (each used alone and by `demo`) -------------------------------------------------------------------------

/** The machine's authority (a session signed by its controller) for the machine-bound writes below. */
async function asMachine(client: MarketsApi, machine: string, key: string | undefined): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await machineSession(client.base, machine, key)}` };
}

async function pair(client: MarketsApi, machine: string, policy: Record<string, unknown>, key?: string) {
  const wallet = agentWallet();
  const challenge = (await client.call("POST", `/machines/${machine}/agent-pairings/challenges`, { agentAddress: wallet.address, agentProvider: "cli", agentRole: "machine-market-buyer" })).item;
  const signature = await wallet.signMessage(challenge.message);
  const pairing = (
    await client.call("POST", `/machines/${machine}/agent-pairings`, {
      agentAddress: wallet.address,
      agentProvider: "cli",
      agentRole: "machine-market-buyer",
      delegationPolicy: policy,
      agentProof: { challengeId: challenge.challengeId, signature },
    }, [201], await asMachine(client, machine, key))
  ).item;
  return pairing;
}

async function search(client: MarketsApi, machine: string, skillKey: string, key?: string) {
  const result = (await client.call("POST", "/market/search", { machineId: machine, skillKey }, [200], await asMachine(client, machine, key))).item;
  if (result.quotes.length === 0) throw new CliError(`no quote for ${skillKey}`);
  return { searchId: result.searchId as string, quote: result.quotes[0] };
}

const PAIR_USAGE = `Usage: cli market pair --machine <mach_…> ${KEY} [--per-tx-limit N] [--daily-limit N] [--currency USD]
                       [--allowed-skills a,b] [--denied-skills a,b] [--allowed-service-ids a,b] [--denied-service-ids a,b] ${COMMON}
Pairs the demo agent (demo.json, or MARKET_AGENT_PRIVATE_KEY) with the machine, with the machine's authority (a session
signed by its controller): prints the pairing with its pairingToken.`;
const SEARCH_USAGE = `Usage: cli market search --machine <mach_…> [--skill oracle.price-feed] ${KEY} ${COMMON}`;
const ORDER_USAGE = `Usage: cli market order --machine <mach_…> --search <searchId> --quote <quoteId> [--input '{"pair":"ETH/USD"}'] [--token T] ${COMMON}`;
const ORDER_ACTION_USAGE = (action: string) => `Usage: cli market ${action} --order <ord_…> [--token T] ${COMMON}`;
const DEMO_USAGE = `Usage: cli market demo --machine <mach_…> [--pair ETH/USD] ${KEY} ${COMMON}
Runs pair, search, order, pay (not-required), execute and confirm against the demo provider of demo.json, which it
registers as the machine's runtime endpoint first.`;

const policyOf = (o: Record<string, string | undefined>) =>
  Object.fromEntries(
    Object.entries({
      perTransactionLimit: amount(o["per-tx-limit"], "--per-tx-limit"),
      dailySpendLimit: amount(o["daily-limit"], "--daily-limit"),
      currency: o.currency,
      allowedSkillKeys: list(o["allowed-skills"]),
      deniedSkillKeys: list(o["denied-skills"]),
      allowedServiceIds: list(o["allowed-service-ids"]),
      deniedServiceIds: list(o["denied-service-ids"]),
    }).filter(([, v]) => v !== undefined),
  );

const POLICY_OPTIONS = {
  "per-tx-limit": { type: "string" },
  "daily-limit": { type: "string" },
  currency: { type: "string" },
  "allowed-skills": { type: "string" },
  "denied-skills": { type: "string" },
  "allowed-service-ids": { type: "string" },
  "denied-service-ids": { type: "string" },
} as const;

function orderAction(name: string, summary: string, path: string, body?: unknown): CliSubcommand {
  const usage = ORDER_ACTION_USAGE(name);
  return {
    name,
    summary,
    usage,
    async run(args) {
      const o = parseOptions(args, { order: { type: "string" }, token: { type: "string" }, api: { type: "string" } }, usage);
      if (!o) return;
      const client = new MarketsApi(apiBase(o.api), tokenOf(o.token, usage));
      // Execute answers the provider's status with the order (a 4xx/5xx item is a failed execution, not a refusal).
      const answer = await client.call("POST", `/market/orders/${required(o.order, "--order", usage)}/${path}`, body, [200, 201, 202, 400, 401, 403, 404, 409, 500, 502, 503, 504]);
      if (!answer?.item) throw new CliError(`${name} refused: ${answer?.error?.code ?? "no answer"}`);
      const item = answer.item;
      printResult(item.order ? { step: name, orderId: item.order.id, status: item.order.status, httpStatus: item.run.httpStatus, result: item.outcome.result } : { step: name, ...item });
    },
  };
}

export const marketCommands: CliCommandGroup = {
  subcommands: [
    {
      name: "pair",
      summary: "pair the demo agent with a machine (signed challenge); prints the pairingToken",
      usage: PAIR_USAGE,
      async run(args) {
        const o = parseOptions(args, { machine: { type: "string" }, api: { type: "string" }, key: { type: "string" }, ...POLICY_OPTIONS }, PAIR_USAGE);
        if (!o) return;
        const pairing = await pair(new MarketsApi(apiBase(o.api)), required(o.machine, "--machine", PAIR_USAGE), policyOf(o), o.key);
        printResult({ step: "pair", pairingId: pairing.id, status: pairing.status, agentAddress: pairing.agentAddress, delegationPolicyHash: pairing.delegationPolicyHash, pairingToken: pairing.pairingToken });
      },
    },
    {
      name: "search",
      summary: "search the catalogue for a machine; prints searchId and the best quote",
      usage: SEARCH_USAGE,
      async run(args) {
        const o = parseOptions(args, { machine: { type: "string" }, skill: { type: "string" }, api: { type: "string" }, key: { type: "string" } }, SEARCH_USAGE);
        if (!o) return;
        const found = await search(new MarketsApi(apiBase(o.api)), required(o.machine, "--machine", SEARCH_USAGE), o.skill ?? "oracle.price-feed", o.key);
        printResult({ step: "search", searchId: found.searchId, quoteId: found.quote.id, serviceId: found.quote.serviceId, pricing: found.quote.pricing, expiresAt: found.quote.expiresAt });
      },
    },
    {
      name: "order",
      summary: "create an order from a quote",
      usage: ORDER_USAGE,
      async run(args) {
        const o = parseOptions(
          args,
          { machine: { type: "string" }, search: { type: "string" }, quote: { type: "string" }, input: { type: "string" }, token: { type: "string" }, api: { type: "string" } },
          ORDER_USAGE,
        );
        if (!o) return;
        let input: unknown = {};
        try {
          input = o.input === undefined ? {} : JSON.parse(o.input);
        } catch {
          throw new UsageError(`--input must be JSON\n\n${ORDER_USAGE}`);
        }
        const client = new MarketsApi(apiBase(o.api), tokenOf(o.token, ORDER_USAGE));
        const order = (
          await client.call("POST", "/market/orders", {
            machineId: required(o.machine, "--machine", ORDER_USAGE),
            searchId: required(o.search, "--search", ORDER_USAGE),
            quoteId: required(o.quote, "--quote", ORDER_USAGE),
            input,
          })
        ).item;
        printResult({ step: "order", orderId: order.id, status: order.status, rail: order.payment.defaultRail });
      },
    },
    payCommand((api, token) => new MarketsApi(apiBase(api), token ?? process.env.MARKET_PAIRING_TOKEN), agentWallet),
    orderAction("execute", "execute the order through its provider", "execute"),
    orderAction("confirm", "confirm delivery (closes the order)", "confirm"),
    resolveCommand,
    {
      name: "demo",
      summary: "pair, search, order, pay, execute and confirm in sequence against the demo provider",
      usage: DEMO_USAGE,
      async run(args) {
        const o = parseOptions(args, { machine: { type: "string" }, pair: { type: "string" }, api: { type: "string" }, key: { type: "string" } }, DEMO_USAGE);
        if (!o) return;
        const machine = required(o.machine, "--machine", DEMO_USAGE);
        const base = apiBase(o.api);
        const platform = new MarketsApi(base);
        const provider = readDemoFixture(loadConfig().dataDir)?.markets?.provider;
        if (!provider) throw new CliError("demo.json names no demo provider: start the platform with `npm start`");
        progress(`1/7 runtime endpoint: ${provider.providerKey} at ${provider.url}`);
        await platform.call(
          "PUT",
          `/machines/${machine}/runtime-endpoints/${provider.providerKey}`,
          { endpointBaseUrl: provider.url, authType: provider.authType, authToken: provider.authToken },
          [200, 201],
          await asMachine(platform, machine, o.key),
        );
        progress("2/7 pair: challenge signed by the demo agent");
        const pairing = await pair(platform, machine, { allowedSkillKeys: [provider.skillKey], perTransactionLimit: 1, dailySpendLimit: 10, currency: "USD" }, o.key);
        printResult({ step: "pair", pairingId: pairing.id, agentAddress: pairing.agentAddress, sessionExpiresAt: pairing.sessionExpiresAt });
        const agent = new MarketsApi(base, pairing.pairingToken);
        progress(`3/7 search: ${provider.skillKey}`);
        const found = await search(platform, machine, provider.skillKey, o.key);
        printResult({ step: "search", searchId: found.searchId, quoteId: found.quote.id, pricing: found.quote.pricing });
        progress("4/7 order");
        const order = (await agent.call("POST", "/market/orders", { machineId: machine, searchId: found.searchId, quoteId: found.quote.id, input: { pair: o.pair ?? "ETH/USD" } })).item;
        printResult({ step: "order", orderId: order.id, status: order.status, rail: order.payment.defaultRail });
        progress("5/7 pay: payment intent on the not-required rail");
        const intent = (await agent.call("POST", `/market/orders/${order.id}/payment-intent`, {})).item;
        printResult({ step: "pay", paymentStatus: intent.payment.status, orderStatus: intent.orderStatus });
        progress("6/7 execute through the demo provider");
        const executed = (await agent.call("POST", `/market/orders/${order.id}/execute`)).item;
        printResult({ step: "execute", status: executed.order.status, httpStatus: executed.run.httpStatus, result: executed.outcome.result });
        progress("7/7 confirm");
        const confirmed = (await agent.call("POST", `/market/orders/${order.id}/confirm`)).item;
        printResult({ step: "confirm", orderId: confirmed.id, status: confirmed.status });
      },
    },
  ],
};
