import { Field, Float, Int, ObjectType, registerEnumType } from "type-graphql";
import { JSONObjectScalar } from "../shared/json-object.scalar.js";
import { BondStatus, McrRating } from "./scoring/mcr.type.js";

export enum DataVisibility {
  PRIVATE = "PRIVATE",
  ONCHAIN = "ONCHAIN",
  PUBLIC = "PUBLIC",
}
registerEnumType(DataVisibility, {
  name: "DataVisibility",
  description: "From the machine DID's `data_visibility` attribute; PRIVATE when absent or unrecognised.",
});

export enum MachineEventType {
  REVENUE = "REVENUE",
  ACTIVITY = "ACTIVITY",
}
registerEnumType(MachineEventType, { name: "MachineEventType" });

export enum AmountStatus {
  OK = "OK",
  UNSUPPORTED_CURRENCY = "UNSUPPORTED_CURRENCY",
  FX_UNAVAILABLE = "FX_UNAVAILABLE",
}
registerEnumType(AmountStatus, { name: "AmountStatus", description: "Whether a revenue amount converted to USD." });

/** docs/outbound-requests.md's refusal reasons, plus NOT_CONFIGURED (public visibility without a data_api). */
export enum PartnerDataError {
  NOT_CONFIGURED = "NOT_CONFIGURED",
  INVALID_URL = "INVALID_URL",
  SCHEME_NOT_ALLOWED = "SCHEME_NOT_ALLOWED",
  CREDENTIALS_NOT_ALLOWED = "CREDENTIALS_NOT_ALLOWED",
  BLOCKED_LOOPBACK = "BLOCKED_LOOPBACK",
  BLOCKED_PRIVATE = "BLOCKED_PRIVATE",
  BLOCKED_LINK_LOCAL = "BLOCKED_LINK_LOCAL",
  BLOCKED_METADATA = "BLOCKED_METADATA",
  BLOCKED_MULTICAST = "BLOCKED_MULTICAST",
  BLOCKED_RESERVED = "BLOCKED_RESERVED",
  DNS_FAILED = "DNS_FAILED",
  CONNECT_FAILED = "CONNECT_FAILED",
  TIMEOUT = "TIMEOUT",
  TOO_LARGE = "TOO_LARGE",
  REDIRECT_NOT_FOLLOWED = "REDIRECT_NOT_FOLLOWED",
  HTTP_STATUS = "HTTP_STATUS",
  INVALID_JSON = "INVALID_JSON",
  NOT_OBJECT = "NOT_OBJECT",
}
registerEnumType(PartnerDataError, {
  name: "PartnerDataError",
  description: "Why the live data_api fetch gave no partner data (REST: the lowercase name, e.g. `blocked_loopback`).",
});

@ObjectType({ description: "One on-chain event as the profile shows it (ONCHAIN visibility)." })
export class ProfileEvent {
  @Field(() => MachineEventType)
  eventType!: MachineEventType;

  @Field(() => String, { description: "Minor units of `currency` (decimal string)." })
  value!: string;

  @Field(() => String)
  currency!: string;

  @Field(() => Float, { description: "Unix seconds it happened." })
  timestamp!: number;

  @Field(() => String)
  dataHash!: string;

  @Field(() => Int)
  trustLevel!: number;

  @Field(() => String, { description: "Decimal chain ID; 0 = off-chain." })
  sourceChainId!: string;

  @Field(() => String)
  sourceTxHash!: string;

  @Field(() => String, { description: "0x hex." })
  metadata!: string;

  @Field(() => String, { nullable: true, description: "USD cents (revenue events whose amount converted)." })
  usdValue!: string | null;

  @Field(() => AmountStatus, { nullable: true, description: "Revenue events only." })
  amountStatus!: AmountStatus | null;
}

@ObjectType({ description: "The profile's machine data (REST: the `peaqos` object)." })
export class MachineProfileDetails {
  @Field(() => String)
  machineId!: string;

  @Field(() => String)
  did!: string;

  @Field(() => String, { nullable: true, description: "Operator DID from the machine DID document." })
  operator!: string | null;

  @Field(() => McrRating)
  mcr!: McrRating;

  @Field(() => Int)
  mcrScore!: number;

  @Field(() => BondStatus)
  bondStatus!: BondStatus;

  @Field(() => Boolean)
  negativeFlag!: boolean;

  @Field(() => Int)
  eventCount!: number;

  @Field(() => DataVisibility)
  dataVisibility!: DataVisibility;

  @Field(() => String, { nullable: true })
  documentationUrl!: string | null;

  @Field(() => String, { nullable: true, description: "PRIVATE (when set) and PUBLIC visibility." })
  dataApi!: string | null;

  @Field(() => [ProfileEvent], { nullable: true, description: "ONCHAIN visibility: the first 100 events, oldest first." })
  eventData!: ProfileEvent[] | null;

  @Field(() => JSONObjectScalar, { nullable: true, description: "PUBLIC visibility: the data_api answer." })
  partnerData!: Record<string, unknown> | null;

  @Field(() => PartnerDataError, { nullable: true, description: "PUBLIC visibility: why there is no partner data." })
  partnerDataError!: PartnerDataError | null;
}

@ObjectType({ description: "Machine profile (GET /machine/{did}) and NFT metadata (GET /metadata/{token_id})." })
export class MachineProfile {
  @Field(() => String, { description: "Always `1.0`." })
  schemaVersion!: string;

  @Field(() => String, { description: "`Machine #<token id>`, or `Machine (no NFT)`." })
  name!: string;

  @Field(() => MachineProfileDetails)
  details!: MachineProfileDetails;
}
