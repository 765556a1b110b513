/**
 * A listing's entry in the service catalogue (catalogue.*.ts): a `data.stream` service with skill
 * `stream-data-listing`, provider `stream-<machineId>`, priced as the listing. Its record has every CatalogService
 * field of notes 2.6 (as the seeded services do), plus `listingId` and the listing's figures (time range included) in
 * `metadata`. The entry exists while the listing is active: deactivation removes it, reactivation writes it again.
 */
import type { SkillSeed } from "../../work/catalogue.seed.js";

export const STREAM_SKILL_KEY = "stream-data-listing";
export const STREAM_SERVICE_TYPE = "data.stream";

export const STREAM_SKILL: SkillSeed = {
  key: STREAM_SKILL_KEY,
  providerKey: "stream-marketplace",
  label: "Stream data listing",
  description: "Encrypted machine data streams for sale, chunk by chunk, verifiable before buying.",
  serviceTypes: [STREAM_SERVICE_TYPE],
  operations: ["buy"],
  executionMode: "external-handoff",
  integrationStatus: "live",
};

export function listingService(
  listingId: string,
  machineId: string,
  listing: {
    title: string; topic: string | null; chunkCount: number; totalBytes: number; storageProvider: string; price: { amount: string; currency: string };
    pricePerChunk: string | null; timeStart: Date | null; timeEnd: Date | null;
  },
) {
  const providerKey = `stream-${machineId}`;
  return {
    id: `svc_stream_${listingId}`,
    skillKey: STREAM_SKILL_KEY,
    providerKey,
    serviceType: STREAM_SERVICE_TYPE,
    executionMode: "external-handoff",
    region: "global",
    record: {
      companyName: `Machine ${machineId}`,
      name: listing.title,
      description: `Stream data listing ${listingId}: ${listing.chunkCount} encrypted chunks.`,
      operations: ["buy"],
      integrationStatus: "live",
      capabilities: ["stream-chunks", "verifiable-manifests"],
      handoff: { label: "Buy through the stream marketplace", url: `/api/v1/stream/listings/${listingId}`, notes: ["POST /api/v1/stream/orders or /api/v1/purchases."] },
      metadata: {
        listingId, machineId, topic: listing.topic, chunkCount: listing.chunkCount, totalBytes: listing.totalBytes, storageProvider: listing.storageProvider,
        timeStart: listing.timeStart?.toISOString() ?? null, timeEnd: listing.timeEnd?.toISOString() ?? null,
      },
      providerId: `prov_stream_${machineId}`,
      providerLabel: `Machine ${machineId}`,
      authType: "none",
      accessMode: "public",
      distribution: "peaq-native",
      maturity: "beta",
      kind: "data",
      freshnessSeconds: 60,
      requiresHumanEnablement: false,
      referenceUrl: null,
      artifactUrl: null,
      pricing: {
        mode: "fixed", amount: listing.price.amount, currency: listing.price.currency.toUpperCase(), rate: "per-listing",
        notes: listing.pricePerChunk === null
          ? ["Price of the whole listing."]
          : ["Price of the whole listing.", `A subset of chunks costs ${listing.pricePerChunk} ${listing.price.currency.toUpperCase()} per chunk.`],
      },
      payment: { defaultRail: "transfer", required: true, supportedRails: ["transfer", "x402"] },
    },
  };
}
