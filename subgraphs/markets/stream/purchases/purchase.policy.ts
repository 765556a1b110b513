/**
 * A purchase is a spend of the buyer's pairing and of the pairing's machine, checked as a market order is
 * (orders/order.service.ts), inside the purchase's transaction with the pairing row locked by
 * PairingService.authenticate:
 *
 * 1. The pairing's delegation policy (orders/pairing.policy.ts `checkDelegation`) against the skill
 *    `stream-data-listing` and the listing's `data.stream` catalogue service ID: AGENT_POLICY_DENIED,
 *    AGENT_SPEND_LIMIT_EXCEEDED, AGENT_DAILY_LIMIT_EXCEEDED; the day's sum counts the pairing's orders and purchases.
 * 2. The policies of the buyer's machine (policies/policy.enforcement.ts) against the listing's catalogue service:
 *    MACHINE_POLICY_DENIED, MACHINE_SPEND_LIMIT_EXCEEDED, MACHINE_DAILY_LIMIT_EXCEEDED.
 */
import type { MarketsTx } from "../../common/audit.repository.js";
import type { AgentSession } from "../../orders/pairing.service.js";
import { checkDelegation } from "../../orders/pairing.policy.js";
import { serviceView } from "../../work/catalogue.service.js";
import { enforceMachinePolicies, policySubjectOf } from "../../policies/policy.enforcement.js";
import { STREAM_SERVICE_TYPE, STREAM_SKILL_KEY } from "../seller/listing.catalogue.js";

export async function checkPurchasePolicies(
  tx: MarketsTx,
  session: AgentSession,
  listing: { id: string; machineId: string; serviceId: string | null; priceCurrency: string },
  amount: string,
  now: Date,
): Promise<void> {
  const serviceId = listing.serviceId ?? `svc_stream_${listing.id}`;
  const spend = { amount, currency: listing.priceCurrency };
  await checkDelegation(tx, session.pairing.id, session.policy, { skillKey: STREAM_SKILL_KEY, serviceId }, spend, now);
  const row = await tx.marketsService.findUnique({ where: { id: serviceId } });
  const service = row
    ? serviceView(row)
    : { id: serviceId, skillKey: STREAM_SKILL_KEY, providerKey: `stream-${listing.machineId}`, serviceType: STREAM_SERVICE_TYPE, executionMode: "external-handoff", region: "global" };
  await enforceMachinePolicies(tx, policySubjectOf(session.pairing.machineId, service), { ...spend, now });
}
