/**
 * The service catalogue's seed: the curated skill keys of the public notes (2.6) and one service per skill. The
 * demo provider (`demo-oracle`, subgraphs/markets/work/demo.provider.ts) implements `oracle.price-feed` natively; the
 * other services hand off to their provider's own site (execution mode `external-handoff`).
 */
export const DEMO_PROVIDER_KEY = "demo-oracle";

/** A catalogue entry's integration status, as the public notes list the providers. */
export const INTEGRATION_STATUSES = ["live", "partner", "planned"] as const;

export interface SkillSeed {
  key: string;
  providerKey: string;
  label: string;
  description: string;
  serviceTypes: string[];
  operations: string[];
  executionMode: "native" | "external-handoff";
  integrationStatus: (typeof INTEGRATION_STATUSES)[number];
}

const skill = (
  key: string,
  providerKey: string,
  label: string,
  description: string,
  operations: string[],
  executionMode: SkillSeed["executionMode"],
  integrationStatus: SkillSeed["integrationStatus"],
): SkillSeed => ({ key, providerKey, label, description, serviceTypes: [key], operations, executionMode, integrationStatus });

export const SKILLS: readonly SkillSeed[] = [
  skill("oracle.price-feed", DEMO_PROVIDER_KEY, "Price feed", "Spot prices for an asset pair.", ["get-price"], "native", "live"),
  skill("compute.marketplace", "compute-exchange", "Compute marketplace", "Rent GPU or CPU capacity.", ["quote", "rent"], "external-handoff", "partner"),
  skill("storage.object", "object-store", "Object storage", "Store and fetch objects by key.", ["put", "get"], "external-handoff", "partner"),
  skill("data.location", "geo-data", "Location data", "Positioning and map data for a machine's area.", ["lookup"], "external-handoff", "partner"),
  skill("identity.proof-of-person", "personhood", "Proof of person", "Check that an operator is a unique human.", ["verify"], "external-handoff", "planned"),
  skill("device.control", "device-bridge", "Device control", "Send commands to a paired device.", ["command"], "external-handoff", "planned"),
  skill("machine.commerce", "machine-commerce", "Machine commerce", "Buy and sell goods machine to machine.", ["order"], "external-handoff", "partner"),
  skill("network.partner-console", "partner-console", "Partner console", "A partner's operator console.", ["open"], "external-handoff", "partner"),
];

export interface ServiceSeed {
  id: string;
  skillKey: string;
  providerKey: string;
  serviceType: string;
  executionMode: SkillSeed["executionMode"];
  region: string;
  record: Record<string, unknown>;
}

/** One catalogue service per skill, with the CatalogService fields of notes 2.6. */
export const SERVICES: readonly ServiceSeed[] = SKILLS.map((s) => {
  const native = s.executionMode === "native";
  const id = `svc_${s.key.replace(/[^a-z0-9]+/g, "_")}`;
  return {
    id,
    skillKey: s.key,
    providerKey: s.providerKey,
    serviceType: s.serviceTypes[0]!,
    executionMode: s.executionMode,
    region: "global",
    record: {
      companyName: native ? "Demo Oracle (bundled demo provider)" : `${s.label} partner`,
      name: s.label,
      description: s.description,
      operations: s.operations,
      integrationStatus: s.integrationStatus,
      capabilities: native ? ["spot-prices", "json"] : ["handoff"],
      handoff: native
        ? null
        : { label: `Continue at the ${s.label.toLowerCase()} provider`, url: `https://${s.providerKey}.example.org/start`, notes: ["Opens the provider's own flow."] },
      metadata: {},
      providerId: `prov_${s.providerKey.replace(/[^a-z0-9]+/g, "_")}`,
      providerLabel: native ? "Demo Oracle" : `${s.label} partner`,
      authType: native ? "bearer" : "none",
      accessMode: native ? "credentialed" : "public",
      distribution: native ? "peaq-native" : "docs-only",
      maturity: native ? "reference" : "beta",
      kind: native ? "runtime" : "reference",
      freshnessSeconds: native ? 60 : 86_400,
      requiresHumanEnablement: !native,
      referenceUrl: native ? null : `https://${s.providerKey}.example.org/docs`,
      artifactUrl: null,
      pricing: native
        ? { mode: "fixed", amount: "0.01", currency: "USD", rate: "per-call", notes: ["Demo pricing."] }
        : { mode: "provider-defined", amount: null, currency: null, rate: null, notes: ["Priced by the provider."] },
      // The rails a payment intent may name (orders/payments/payment.service.ts); `not-required` is the only one implemented here.
      payment: { defaultRail: "not-required", required: false, supportedRails: native ? ["not-required", "wallet", "onchain-escrow", "x402"] : ["not-required"] },
    },
  };
});
