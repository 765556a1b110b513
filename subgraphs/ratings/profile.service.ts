/**
 * Machine profiles (GET /machine/{did}) and NFT metadata (GET /metadata/{token_id}): the same body, built from the
 * machine's DID document (attributes on its wallet), its MCR, and the extras its `data_visibility` asks for.
 * PUBLIC fetches the machine's data_api live through the SSRF-safe outbound client (docs/outbound-requests.md).
 */
import type { OutboundClient } from "../shared/net/outbound.js";
import { OutboundRefusal } from "../shared/net/outbound.js";
import type { RatingsChain } from "./chain/ratings-chain.js";
import { RatingsErrors } from "./errors.js";
import { addressDid, decimalDid, type Deployment } from "./identity/did.js";
import type { MachineDirectory, RatedMachine } from "./machine-directory.service.js";
import type { McrService } from "./scoring/mcr.service.js";
import { bondStatusOf, ratingOf } from "./scoring/mcr.view.js";
import {
  AmountStatus,
  DataVisibility,
  MachineEventType,
  PartnerDataError,
  type MachineProfile,
  type MachineProfileDetails,
  type ProfileEvent,
} from "./profile.type.js";
import { convertToUsdCents, type RateSource } from "./scoring/fx.js";
import { EVENT_REVENUE } from "./scoring/mcr-score.js";

/** Document 2: `event_data` holds the first 100 events, oldest first. */
const EVENT_DATA_LIMIT = 100;
/** Document 2: the data_api fetch has 5 seconds and 1 MB. */
export const PARTNER_FETCH_LIMITS = { timeoutMs: 5000, maxBytes: 1_048_576 } as const;

/** The DID's `data_visibility` attribute; PRIVATE when absent or unrecognised. */
export function visibilityOf(value: string | null): DataVisibility {
  if (value === "onchain") return DataVisibility.ONCHAIN;
  if (value === "public") return DataVisibility.PUBLIC;
  return DataVisibility.PRIVATE;
}

export class ProfileService {
  constructor(
    private readonly directory: MachineDirectory,
    private readonly mcr: McrService,
    private readonly outbound: OutboundClient,
    private readonly rates: RateSource,
    private readonly didMethod: string,
    private readonly log: (error: unknown) => void,
  ) {}

  private get chain(): RatingsChain {
    return this.directory.chain;
  }

  byDid(deployment: Deployment, did: string): Promise<MachineProfile> {
    return this.directory.read(deployment, async () => {
      const machine = await this.directory.byDid(deployment, did);
      const tokenId = await this.chain.tokenIdOf(machine.machineId);
      return this.build(machine, tokenId === 0n ? "Machine (no NFT)" : `Machine #${tokenId}`);
    });
  }

  /** The profile of a machine by ID (the Machine entity's field); MACHINE_NOT_FOUND when the deployment lacks it. */
  byId(deployment: Deployment, machineId: bigint): Promise<MachineProfile> {
    return this.directory.read(deployment, async () => {
      const machine = await this.directory.byId(deployment, machineId);
      if (!machine) throw RatingsErrors.machineNotFound();
      const tokenId = await this.chain.tokenIdOf(machineId);
      return this.build(machine, tokenId === 0n ? "Machine (no NFT)" : `Machine #${tokenId}`);
    });
  }

  /** `tokenId` is the MachineNFT token (1 or more), not the machine ID. */
  byToken(deployment: Deployment, tokenId: bigint): Promise<MachineProfile> {
    return this.directory.read(deployment, async () => {
      if (tokenId < 1n) throw RatingsErrors.tokenNotFound();
      const machineId = await this.chain.machineIdOfToken(tokenId);
      if (machineId === 0n) throw RatingsErrors.tokenNotFound();
      const machine = await this.directory.byId(deployment, machineId);
      if (!machine) throw RatingsErrors.machineNotRegistered();
      const roundTrips = (await this.chain.tokenIdOf(machineId)) === tokenId;
      return this.build(machine, roundTrips ? `Machine #${tokenId}` : "Machine (no NFT)");
    });
  }

  private async build(machine: RatedMachine, name: string): Promise<MachineProfile> {
    if (!machine.wallet) throw RatingsErrors.machineWalletNotFound();
    const wallet = machine.wallet;
    const [score, operator, documentationUrl, dataApi, visibilityText] = await Promise.all([
      this.mcr.score(machine.machineId),
      this.chain.didAttribute(wallet, "operator"),
      this.chain.didAttribute(wallet, "documentation_url"),
      this.chain.didAttribute(wallet, "data_api"),
      this.chain.didAttribute(wallet, "data_visibility"),
    ]);
    const dataVisibility = visibilityOf(visibilityText);
    const details: MachineProfileDetails = {
      machineId: machine.machineId.toString(),
      did: machine.deployment === "v2" ? decimalDid(machine.machineId, this.didMethod) : addressDid(wallet, this.didMethod),
      operator,
      mcr: ratingOf(score.mcr),
      mcrScore: score.mcrScore,
      bondStatus: bondStatusOf(score.bonded),
      negativeFlag: score.negativeFlag,
      eventCount: score.eventCount,
      dataVisibility,
      documentationUrl,
      dataApi: dataVisibility === DataVisibility.ONCHAIN ? null : dataApi,
      eventData: null,
      partnerData: null,
      partnerDataError: null,
    };
    if (dataVisibility === DataVisibility.ONCHAIN) {
      details.eventData = await this.eventData(machine.machineId, score.eventCount);
    } else if (dataVisibility === DataVisibility.PUBLIC) {
      Object.assign(details, await this.partnerData(dataApi));
    }
    return { schemaVersion: "1.0", name, details };
  }

  private async eventData(machineId: bigint, eventCount: number): Promise<ProfileEvent[]> {
    const events = await this.chain.events(machineId, 0, Math.min(EVENT_DATA_LIMIT, eventCount));
    return events.map((event) => {
      const revenue = event.eventType === EVENT_REVENUE;
      const conversion = revenue ? convertToUsdCents(event.value, event.currency, event.timestamp, this.rates) : null;
      return {
        eventType: revenue ? MachineEventType.REVENUE : MachineEventType.ACTIVITY,
        value: event.value.toString(),
        currency: event.currency,
        timestamp: event.timestamp,
        dataHash: event.dataHash,
        trustLevel: event.trustLevel,
        sourceChainId: event.sourceChainId.toString(),
        sourceTxHash: event.sourceTxHash,
        metadata: event.metadata,
        usdValue: conversion?.usdCents?.toString() ?? null,
        amountStatus: conversion ? (conversion.status.toUpperCase() as AmountStatus) : null,
      };
    });
  }

  /** The live fetch; every refusal is reported by its reason, never thrown. */
  private async partnerData(
    dataApi: string | null,
  ): Promise<Pick<MachineProfileDetails, "partnerData" | "partnerDataError">> {
    if (dataApi === null) return { partnerData: null, partnerDataError: PartnerDataError.NOT_CONFIGURED };
    try {
      return { partnerData: await this.outbound.fetchJsonObject(dataApi, PARTNER_FETCH_LIMITS), partnerDataError: null };
    } catch (error) {
      if (error instanceof OutboundRefusal) {
        return { partnerData: null, partnerDataError: error.reason.toUpperCase() as PartnerDataError };
      }
      this.log(error);
      return { partnerData: null, partnerDataError: PartnerDataError.CONNECT_FAILED };
    }
  }
}
