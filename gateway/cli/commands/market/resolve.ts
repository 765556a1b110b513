/**
 * `cli market resolve`: the arbiter ends a disputed market order (docs/markets-orders.md, "Resolving a dispute"):
 * POST /market/orders/:id/resolve { decision, reason } with the operator's token in `Authorization: Bearer`.
 * `release` pays the payee and confirms the order; `refund` returns the payment to the payer and cancels it; an
 * escrowed payment moves on chain. Token: `--operator-token`, else OPERATOR_TOKEN, else the first of
 * OPERATOR_TOKENS, else the dev operator token. Prints one JSON line; a refusal exits 1 naming the code.
 */
import { DEV_OPERATOR_TOKEN, loadConfig } from "../../../../subgraphs/shared/config.js";
import { marketsClient, send } from "../../platform.js";
import { CliError, parseOptions, printResult, required, UsageError, type CliSubcommand } from "../../command.js";

export const RESOLVE_USAGE = `Usage: cli market resolve --order <ord_…> --decision release|refund --reason <text> [--operator-token T]
                          [--api http://127.0.0.1:<MARKETS_PORT>]
Resolves a disputed order as the service operator: release pays the payee (order confirmed), refund returns the payment
to the payer (order cancelled). An escrowed payment is released or refunded on chain.`;

export const resolveCommand: CliSubcommand = {
  name: "resolve",
  summary: "resolve a disputed order as the operator (release to the payee or refund to the payer)",
  usage: RESOLVE_USAGE,
  async run(args) {
    const o = parseOptions(
      args,
      { order: { type: "string" }, decision: { type: "string" }, reason: { type: "string" }, "operator-token": { type: "string" }, api: { type: "string" } },
      RESOLVE_USAGE,
    );
    if (!o) return;
    const orderId = required(o.order, "--order", RESOLVE_USAGE);
    const decision = required(o.decision, "--decision", RESOLVE_USAGE);
    if (decision !== "release" && decision !== "refund") throw new UsageError(`--decision must be release or refund\n\n${RESOLVE_USAGE}`);
    const reason = required(o.reason, "--reason", RESOLVE_USAGE);
    const config = loadConfig();
    const token = o["operator-token"] ?? process.env.OPERATOR_TOKEN ?? config.operatorTokens[0] ?? DEV_OPERATOR_TOKEN;
    const base = o.api ?? `http://${config.host}:${config.marketsPort}`;
    const answer = await send(marketsClient(base), "POST", `/market/orders/${encodeURIComponent(orderId)}/resolve`, { body: { decision, reason }, headers: { authorization: `Bearer ${token}` } });
    const body = answer.body;
    if (answer.status !== 200 || !body?.item) throw new CliError(`POST /market/orders/${orderId}/resolve: ${answer.status} ${body?.error?.code ?? ""}`);
    const { order, payment } = body.item;
    printResult({
      step: "resolve",
      orderId: order.id,
      status: order.status,
      resolution: order.resolution,
      paymentStatus: payment?.status ?? null,
      txHash: payment?.details?.[decision]?.txHash ?? null,
    });
  },
};
