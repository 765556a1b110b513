/* eslint-disable */
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type Maybe<T> = T | null;
export type InputMaybe<T> = T | null | undefined;
export type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
export type MakeOptional<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]?: Maybe<T[SubKey]> };
export type MakeMaybe<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]: Maybe<T[SubKey]> };
export type MakeEmpty<T extends { [key: string]: unknown }, K extends keyof T> = { [_ in K]?: never };
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** An RFC 3339 date-time (ISO 8601, UTC offset required), for example `2026-11-26T21:00:00Z`. */
  DateTime: { input: any; output: any; }
  /** A JSON object. */
  JSONObject: { input: Record<string, unknown>; output: Record<string, unknown>; }
  join__FieldSet: { input: any; output: any; }
  link__Import: { input: any; output: any; }
};

/** An address in its native kind. */
export type AddressRef = {
  __typename?: 'AddressRef';
  address: Scalars['String']['output'];
  kind: Scalars['String']['output'];
};

/** An agent paired with a machine (public notes 2.3). */
export type AgentPairing = {
  __typename?: 'AgentPairing';
  agentAddress: Scalars['String']['output'];
  agentDid?: Maybe<Scalars['String']['output']>;
  agentProvider: Scalars['String']['output'];
  agentRole: Scalars['String']['output'];
  createdAt: Scalars['DateTime']['output'];
  delegationPolicy: DelegationPolicyView;
  delegationPolicyHash: Scalars['String']['output'];
  description?: Maybe<Scalars['String']['output']>;
  hasAuthToken: Scalars['Boolean']['output'];
  /** `pair_…`. */
  id: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  /** Only in the answer of create and session rotation. */
  pairingToken?: Maybe<Scalars['String']['output']>;
  sessionExpiresAt?: Maybe<Scalars['DateTime']['output']>;
  sessionId?: Maybe<Scalars['String']['output']>;
  sessionIssuedAt?: Maybe<Scalars['DateTime']['output']>;
  sessionTokenId?: Maybe<Scalars['String']['output']>;
  status: AgentPairingStatus;
  tokenLastFour?: Maybe<Scalars['String']['output']>;
  updatedAt: Scalars['DateTime']['output'];
  /** Null when the pairing was made with verification off. */
  verification?: Maybe<PairingVerification>;
};

/** A pairing challenge: the agent signs `message` (EIP-191) with the key behind agentAddress. */
export type AgentPairingChallenge = {
  __typename?: 'AgentPairingChallenge';
  agentAddress: Scalars['String']['output'];
  agentDid: Scalars['String']['output'];
  challengeId: Scalars['String']['output'];
  expiresAt: Scalars['DateTime']['output'];
  machineId: Scalars['String']['output'];
  message: Scalars['String']['output'];
  verificationMethod: Scalars['String']['output'];
};

export type AgentPairingChallengeInput = {
  agentAddress: Scalars['String']['input'];
  agentDid?: InputMaybe<Scalars['String']['input']>;
  agentProvider?: InputMaybe<Scalars['String']['input']>;
  agentRole?: InputMaybe<Scalars['String']['input']>;
};

export type AgentPairingPage = {
  __typename?: 'AgentPairingPage';
  items: Array<AgentPairing>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** ACTIVE <-> PAUSED (PATCH); ACTIVE | PAUSED -> REVOKED (DELETE, final) (REST: lowercase). */
export enum AgentPairingStatus {
  Active = 'ACTIVE',
  Paused = 'PAUSED',
  Revoked = 'REVOKED'
}

/** `{challengeId, signature}`: the challenge's message signed (EIP-191) by agentAddress. */
export type AgentProofInput = {
  challengeId: Scalars['String']['input'];
  signature: Scalars['String']['input'];
};

/** GET /altchain/mcr/{altchain_addr}: the scorecard of the EVM identity a second-chain key is bound to. */
export type AltchainMcr = {
  __typename?: 'AltchainMcr';
  /** The second-chain key as asked for (base58). */
  altchainAddress: Scalars['String']['output'];
  /** The bound EVM identity (checksummed). */
  evmAddress: Scalars['String']['output'];
  scorecard: McrScorecard;
};

/** GET /altchain/operator/{altchain_addr}/machines: the bound operator's listing. */
export type AltchainOperatorMachines = {
  __typename?: 'AltchainOperatorMachines';
  altchainAddress: Scalars['String']['output'];
  evmAddress: Scalars['String']['output'];
  listing: OperatorMachines;
};

/** Whether a revenue amount converted to USD. */
export enum AmountStatus {
  FxUnavailable = 'FX_UNAVAILABLE',
  Ok = 'OK',
  UnsupportedCurrency = 'UNSUPPORTED_CURRENCY'
}

/** Who made a change: platform | agent | machine-agent | system, and its ID. */
export type AuditActorView = {
  __typename?: 'AuditActorView';
  id?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
};

/** One state change of the markets API (written in the change's own transaction). */
export type AuditEvent = {
  __typename?: 'AuditEvent';
  actor: AuditActorView;
  /** entityType, entityId, and before/after views (never secrets). */
  data: Scalars['JSONObject']['output'];
  /** Decimal, increasing. */
  id: Scalars['String']['output'];
  kind: Scalars['String']['output'];
  machineId?: Maybe<Scalars['String']['output']>;
  occurredAt: Scalars['DateTime']['output'];
};

export type AuditEventPage = {
  __typename?: 'AuditEventPage';
  items: Array<AuditEvent>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

export enum BondStatus {
  Bonded = 'BONDED',
  Unbonded = 'UNBONDED'
}

/** Where the machine is registered. */
export type CardRegistration = {
  __typename?: 'CardRegistration';
  machineId: Scalars['String']['output'];
  /** CAIP-style `eip155:<chainId>:<registryAddress>`; chain ID read from the RPC at startup. */
  machineRegistry: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

/** A service the machine offers (ERC-8004 registration file). */
export type CardService = {
  __typename?: 'CardService';
  endpoint: Scalars['String']['output'];
  /** `web`. */
  name: Scalars['String']['output'];
};

/** A single-use chip challenge (201 body of POST /v1/verify/chip/challenge). */
export type ChipChallenge = {
  __typename?: 'ChipChallenge';
  /** Decimal chain ID of the machine's home chain. */
  chainId: Scalars['String']['output'];
  /** Effective DID controller (EIP-55); it signs the controller proof. */
  didController: Scalars['String']['output'];
  /** Unix seconds, at most 300 s after issuance. */
  expiresAt: Scalars['String']['output'];
  machineDid: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  /** 32 random bytes as lowercase 0x hex; returned once, only its SHA-256 is kept. */
  nonce: Scalars['String']['output'];
  profile: Scalars['String']['output'];
  protocol: Scalars['String']['output'];
  verifier: Scalars['String']['output'];
};

/** Accepted chip evidence, stored for the operator's on-chain chip attestation. */
export type ChipEvidenceRecord = {
  __typename?: 'ChipEvidenceRecord';
  /** When the evidence was accepted. */
  acceptedAt: Scalars['DateTime']['output'];
  /** When the attestation was recorded; null while awaiting attestation. */
  attestedAt?: Maybe<Scalars['DateTime']['output']>;
  /** 0x-hex 32 bytes; the attestation's chipRef. */
  chipRef: Scalars['String']['output'];
  /** 0x-hex SHA-256 of the canonical evidence bytes; the attestation's evidenceHash. */
  evidenceHash: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  receiptId: Scalars['String']['output'];
};

/** Whether each contract answers a view call (REST: snake_case names). */
export type ContractReadiness = {
  __typename?: 'ContractReadiness';
  /** True when the admin-flags address is not configured (probe skipped). */
  adminFlags: Scalars['Boolean']['output'];
  didRegistry: Scalars['Boolean']['output'];
  eventRegistry: Scalars['Boolean']['output'];
  identityRegistry: Scalars['Boolean']['output'];
  identityStaking: Scalars['Boolean']['output'];
  machineNft: Scalars['Boolean']['output'];
};

export type CreateAgentPairingInput = {
  agentAddress: Scalars['String']['input'];
  agentDid?: InputMaybe<Scalars['String']['input']>;
  agentProof?: InputMaybe<AgentProofInput>;
  agentProvider?: InputMaybe<Scalars['String']['input']>;
  agentRole?: InputMaybe<Scalars['String']['input']>;
  delegationPolicy?: InputMaybe<DelegationPolicyInput>;
  description?: InputMaybe<Scalars['String']['input']>;
};

/** POST /machine-identity/sessions: a controller-signed identity challenge for the machine. */
export type CreateMachineSessionInput = {
  /** A fresh identity challenge of the machine's identityRef, signed by a controller. */
  identityProof: IdentityProofInput;
  /** The market machine (`mach_…`) to act for. */
  machineId: Scalars['String']['input'];
};

/** POST /api/v1/machines. */
export type CreateMarketMachineInput = {
  capabilities?: InputMaybe<Array<Scalars['String']['input']>>;
  displayName: Scalars['String']['input'];
  /** Required when identity verification is `required`. */
  identityProof?: InputMaybe<IdentityProofInput>;
  identityRef?: InputMaybe<Scalars['String']['input']>;
  labels?: InputMaybe<Scalars['JSONObject']['input']>;
  machineType?: InputMaybe<Scalars['String']['input']>;
  /** Default: the proof's signer address. */
  ownerId?: InputMaybe<Scalars['String']['input']>;
  policyIds?: InputMaybe<Array<Scalars['String']['input']>>;
  runtimeProfile?: InputMaybe<Scalars['String']['input']>;
  skillKeys?: InputMaybe<Array<Scalars['String']['input']>>;
  /** Default: ACTIVE when the identity is verified, else DRAFT. */
  status?: InputMaybe<MarketMachineStatus>;
};

/** POST /market/orders: a quote of a search for this machine. */
export type CreateMarketOrderInput = {
  budget?: InputMaybe<OrderBudgetInput>;
  input?: InputMaybe<Scalars['JSONObject']['input']>;
  machineId: Scalars['String']['input'];
  quoteId: Scalars['String']['input'];
  searchId: Scalars['String']['input'];
};

export type CreateStreamListingInput = {
  chunkIds: Array<Scalars['String']['input']>;
  price: StreamPriceInput;
  /** Decimal string, in the price's currency: what each chunk of a strict subset costs. */
  pricePerChunk?: InputMaybe<Scalars['String']['input']>;
  title: Scalars['String']['input'];
  topic?: InputMaybe<Scalars['String']['input']>;
};

export type CreateStreamOrderInput = {
  buyerId: Scalars['String']['input'];
  buyerPublicKeyHex: Scalars['String']['input'];
  chunkIds?: InputMaybe<Array<Scalars['String']['input']>>;
  listingId: Scalars['String']['input'];
  /** The EVM address the buyer pays from; only its transfer pays the order. Default: buyerId when it is an address. */
  payerAddress?: InputMaybe<Scalars['String']['input']>;
};

/** From the machine DID's `data_visibility` attribute; PRIVATE when absent or unrecognised. */
export enum DataVisibility {
  Onchain = 'ONCHAIN',
  Private = 'PRIVATE',
  Public = 'PUBLIC'
}

/** A delegation policy; absent lists are empty, absent limits unlimited. */
export type DelegationPolicyInput = {
  allowedServiceIds?: InputMaybe<Array<Scalars['String']['input']>>;
  allowedSkillKeys?: InputMaybe<Array<Scalars['String']['input']>>;
  currency?: InputMaybe<Scalars['String']['input']>;
  dailySpendLimit?: InputMaybe<Scalars['Float']['input']>;
  deniedServiceIds?: InputMaybe<Array<Scalars['String']['input']>>;
  deniedSkillKeys?: InputMaybe<Array<Scalars['String']['input']>>;
  perTransactionLimit?: InputMaybe<Scalars['Float']['input']>;
};

/** What a paired agent may do for the machine (public notes 2.3). */
export type DelegationPolicyView = {
  __typename?: 'DelegationPolicyView';
  allowedServiceIds: Array<Scalars['String']['output']>;
  allowedSkillKeys: Array<Scalars['String']['output']>;
  currency?: Maybe<Scalars['String']['output']>;
  dailySpendLimit?: Maybe<Scalars['Float']['output']>;
  deniedServiceIds: Array<Scalars['String']['output']>;
  deniedSkillKeys: Array<Scalars['String']['output']>;
  perTransactionLimit?: Maybe<Scalars['Float']['output']>;
};

/** PUT delivery-capabilities: the announcement, and whether it is the machine's first (REST: 201 then 200). */
export type DeliveryCapabilitiesResult = {
  __typename?: 'DeliveryCapabilitiesResult';
  created: Scalars['Boolean']['output'];
  item: MachineDeliveryCapabilities;
};

/** One p2p transport a seller's delivery server speaks, normalised (defaults filled). */
export type DeliveryCapability = {
  __typename?: 'DeliveryCapability';
  encoding: Scalars['String']['output'];
  features: Array<Scalars['String']['output']>;
  params: DeliveryCapabilityParams;
  protocols: Array<Scalars['String']['output']>;
  /** libp2p or tcp. */
  transportId: Scalars['String']['output'];
  version: Scalars['String']['output'];
};

/** Where a delivery server listens: multiaddrs (libp2p) or host:port (tcp), and its libp2p peer ID. */
export type DeliveryCapabilityParams = {
  __typename?: 'DeliveryCapabilityParams';
  addresses: Array<Scalars['String']['output']>;
  peerId?: Maybe<Scalars['String']['output']>;
};

/** A delivery transport the platform negotiates between seller and buyer. */
export type DeliveryTransport = {
  __typename?: 'DeliveryTransport';
  addressFormat: Scalars['String']['output'];
  encodings: Array<Scalars['String']['output']>;
  features: Array<Scalars['String']['output']>;
  mode: Scalars['String']['output'];
  protocols: Array<Scalars['String']['output']>;
  transportId: Scalars['String']['output'];
};

/** POST /machines/{machineId}/agents/enrollment. */
export type EnrollMachineAgentInput = {
  /** 1..32 provider keys the agent may report (lowercased). */
  allowedProviderKeys: Array<Scalars['String']['input']>;
  /** Default `runtime agent`. */
  label?: InputMaybe<Scalars['String']['input']>;
};

/** POST /faucet/fund. */
export type FundWalletInput = {
  /** The faucet's chain name (FAUCET_CHAIN_NAME) or its decimal chain ID. */
  chainId: Scalars['String']['input'];
  ownerAddress: Scalars['String']['input'];
  /** Idempotency key (1-64 of A-Z a-z 0-9 _ -); generated when absent. */
  requestId?: InputMaybe<Scalars['String']['input']>;
  targetWalletAddress: Scalars['String']['input'];
  /** The current 6-digit code of the owner's authenticator. */
  twoFactorCode: Scalars['String']['input'];
};

/** The outcome of a funding request (the same for every retry with its requestId). */
export type Funding = {
  __typename?: 'Funding';
  /** Wei sent, as a decimal string; null when skipped. */
  fundedAmount?: Maybe<Scalars['String']['output']>;
  requestId: Scalars['String']['output'];
  status: FundingStatus;
  /** 0x hash of the transfer; null when skipped. */
  txHash?: Maybe<Scalars['String']['output']>;
};

/** `SKIPPED`: the wallet already holds the minimum gas balance; nothing was sent. */
export enum FundingStatus {
  Skipped = 'SKIPPED',
  Success = 'SUCCESS'
}

/** A directed edge between two nodes of the same machine's graph. */
export type GraphEdge = {
  __typename?: 'GraphEdge';
  createdAt: Scalars['DateTime']['output'];
  /** Free-form JSON by design, stored and answered as written. */
  data: Scalars['JSONObject']['output'];
  fromNodeId: Scalars['String']['output'];
  id: Scalars['String']['output'];
  kind: Scalars['String']['output'];
  label?: Maybe<Scalars['String']['output']>;
  machineId: Scalars['String']['output'];
  toNodeId: Scalars['String']['output'];
  updatedAt: Scalars['DateTime']['output'];
};

/** Create: fromNodeId and toNodeId required (nodes of the same machine). Update: kind, label, data only. */
export type GraphEdgeInput = {
  data?: InputMaybe<Scalars['JSONObject']['input']>;
  fromNodeId?: InputMaybe<Scalars['String']['input']>;
  kind?: InputMaybe<Scalars['String']['input']>;
  label?: InputMaybe<Scalars['String']['input']>;
  toNodeId?: InputMaybe<Scalars['String']['input']>;
};

/** A node of a market machine's graph. */
export type GraphNode = {
  __typename?: 'GraphNode';
  createdAt: Scalars['DateTime']['output'];
  /** Shallow-merged on update. */
  data: Scalars['JSONObject']['output'];
  id: Scalars['String']['output'];
  kind: Scalars['String']['output'];
  label: Scalars['String']['output'];
  /** The market machine ID. */
  machineId: Scalars['String']['output'];
  status: GraphNodeStatus;
  updatedAt: Scalars['DateTime']['output'];
};

/** Create: label required; kind defaults to component, status to draft, data to {}. Update: all optional. */
export type GraphNodeInput = {
  data?: InputMaybe<Scalars['JSONObject']['input']>;
  kind?: InputMaybe<Scalars['String']['input']>;
  label?: InputMaybe<Scalars['String']['input']>;
  /** draft, active, blocked or degraded (GraphNodeStatus in its stored spelling): a string, checked by the service, so an unknown value answers VALIDATION_ERROR as on REST. */
  status?: InputMaybe<Scalars['String']['input']>;
};

/** DRAFT (the default), ACTIVE, BLOCKED or DEGRADED (REST: lowercase). */
export enum GraphNodeStatus {
  Active = 'ACTIVE',
  Blocked = 'BLOCKED',
  Degraded = 'DEGRADED',
  Draft = 'DRAFT'
}

/** Liveness: the process runs; no connectivity is checked. */
export type HealthReport = {
  __typename?: 'HealthReport';
  status: HealthStatus;
};

/** Liveness status; REST spelling `ok`. */
export enum HealthStatus {
  Ok = 'OK'
}

/** One endpoint of a heartbeat: a runtime endpoint plus its provider key. */
export type HeartbeatEndpointInput = {
  /** Stored encrypted; never returned. */
  authToken?: InputMaybe<Scalars['String']['input']>;
  /** Default BEARER with an authToken, else NONE. */
  authType?: InputMaybe<RuntimeAuthType>;
  /** http or https URL; path, query and fragment are stripped. */
  endpointBaseUrl: Scalars['String']['input'];
  /** Default `<PROVIDERKEY> runtime`. */
  label?: InputMaybe<Scalars['String']['input']>;
  /** ISO 8601 (manual endpoints rarely need one). */
  leaseExpiresAt?: InputMaybe<Scalars['String']['input']>;
  modelAlias?: InputMaybe<Scalars['String']['input']>;
  networkScope?: InputMaybe<RuntimeNetworkScope>;
  /** Default `/v1/models` for provider `qvac`, else `/health`. */
  probePath?: InputMaybe<Scalars['String']['input']>;
  providerKey: Scalars['String']['input'];
  /** Default ACTIVE. */
  status?: InputMaybe<RuntimeEndpointStatus>;
};

/** POST /machine-agents/heartbeat (the credential travels separately). */
export type HeartbeatInput = {
  /** 1..MACHINE_AGENT_MAX_HEARTBEAT_ENDPOINTS endpoints. */
  endpoints: Array<HeartbeatEndpointInput>;
  /** 1..MACHINE_AGENT_MAX_LEASE_SECONDS: leaseExpiresAt = now + leaseSeconds. */
  leaseSeconds: Scalars['Int']['input'];
};

/** A heartbeat's result: the agent (now ACTIVE) and the endpoints it renewed. */
export type HeartbeatResult = {
  __typename?: 'HeartbeatResult';
  agent: MachineAgent;
  endpoints: Array<RuntimeEndpoint>;
  leaseExpiresAt: Scalars['DateTime']['output'];
};

/** Where a machine is homed. */
export type HomeChainRef = {
  __typename?: 'HomeChainRef';
  /** Decimal chain ID (evm). */
  chainId?: Maybe<Scalars['String']['output']>;
  /** Genesis hash (solana). */
  genesisHash?: Maybe<Scalars['String']['output']>;
  /** `evm` or `solana`. */
  kind: Scalars['String']['output'];
};

/** A signed challenge: `{challengeId, signature}`. */
export type IdentityProofInput = {
  challengeId: Scalars['String']['input'];
  /** 0x + 130 hex characters; v 27 or 28, low s. */
  signature: Scalars['String']['input'];
};

/** Intake receipt (202 body of POST /v1/verify/chip/evidence). */
export type IntakeReceipt = {
  __typename?: 'IntakeReceipt';
  receiptId: Scalars['String']['output'];
  /** Always `ACCEPTED` (REST: `accepted`). */
  status: IntakeStatus;
};

/** Intake receipt status; REST spelling `accepted`. */
export enum IntakeStatus {
  Accepted = 'ACCEPTED'
}

/** A machine, keyed by its decimal on-chain machine ID. */
export type Machine = {
  __typename?: 'Machine';
  /** Machine card (as GET /machines/{machine_id}). */
  card?: Maybe<MachineCard>;
  machineId: Scalars['String']['output'];
  /** The market machine record bound to this on-chain machine (with its runtime endpoints and agents); null when none. */
  marketMachine?: Maybe<MarketMachine>;
  /**
   * The market machine record bound to this on-chain machine, in brief; null when none.
   * @deprecated Use marketMachine { identityRef status createdAt }: the same record, with its runtime endpoints and agents.
   */
  marketsRegistration?: Maybe<MarketsRegistration>;
  /** Current monetization state (no signature needed). */
  monetization?: Maybe<MonetizationState>;
  /** Profile (as GET /machine/{did}). */
  profile?: Maybe<MachineProfile>;
  /** MCR scorecard. */
  rating?: Maybe<McrScorecard>;
  /** The verification record; null when the machine registry has no such ID (a 1.0-only machine). */
  verification?: Maybe<MachineVerificationRecord>;
};


/** A machine, keyed by its decimal on-chain machine ID. */
export type MachineCardArgs = {
  deployment?: RatingsDeployment;
};


/** A machine, keyed by its decimal on-chain machine ID. */
export type MachineMonetizationArgs = {
  deployment?: RatingsDeployment;
};


/** A machine, keyed by its decimal on-chain machine ID. */
export type MachineProfileArgs = {
  deployment?: RatingsDeployment;
};


/** A machine, keyed by its decimal on-chain machine ID. */
export type MachineRatingArgs = {
  deployment?: RatingsDeployment;
};

/** A machine-side runtime agent that reports endpoints with a lease. */
export type MachineAgent = {
  __typename?: 'MachineAgent';
  /** Provider keys (lowercase) this agent may report. */
  allowedProviderKeys: Array<Scalars['String']['output']>;
  createdAt: Scalars['DateTime']['output'];
  /** `magt_…`. */
  id: Scalars['String']['output'];
  label: Scalars['String']['output'];
  lastSeenAt?: Maybe<Scalars['DateTime']['output']>;
  /** Market machine ID. */
  machineId: Scalars['String']['output'];
  revokedAt?: Maybe<Scalars['DateTime']['output']>;
  status: MachineAgentStatus;
  updatedAt: Scalars['DateTime']['output'];
};

/** An enrolment: the agent and its one-time agentToken (only its SHA-256 is stored). */
export type MachineAgentEnrollment = {
  __typename?: 'MachineAgentEnrollment';
  agent: MachineAgent;
  /** Shown once; send it with every heartbeat. */
  agentToken: Scalars['String']['output'];
};

export type MachineAgentPage = {
  __typename?: 'MachineAgentPage';
  items: Array<MachineAgent>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** ENROLLED until the first heartbeat, ACTIVE after one, REVOKED after revocation (final). */
export enum MachineAgentStatus {
  Active = 'ACTIVE',
  Enrolled = 'ENROLLED',
  Revoked = 'REVOKED'
}

/** Machine card (GET /machines/{machine_id}), in the ERC-8004 registration file pattern. */
export type MachineCard = {
  __typename?: 'MachineCard';
  /** Always true for registered machines. */
  active: Scalars['Boolean']['output'];
  bondStatus: BondStatus;
  dataVisibility: DataVisibility;
  description: Scalars['String']['output'];
  /** The machine's DID. */
  did: Scalars['String']['output'];
  /** Empty when unset. */
  documentationUrl: Scalars['String']['output'];
  eventCount: Scalars['Int']['output'];
  name: Scalars['String']['output'];
  operator?: Maybe<Scalars['String']['output']>;
  /** Exactly one entry. */
  registrations: Array<CardRegistration>;
  services: Array<CardService>;
  type: Scalars['String']['output'];
};

/** A seller machine's announced delivery capabilities; purchases negotiate against them until expiresAt. */
export type MachineDeliveryCapabilities = {
  __typename?: 'MachineDeliveryCapabilities';
  /** The machine agent that announced them. */
  agentId: Scalars['String']['output'];
  capabilities: Array<DeliveryCapability>;
  expiresAt?: Maybe<Scalars['DateTime']['output']>;
  machineId: Scalars['String']['output'];
  /** stream.listing and/or stream.bundle. */
  resourceTypes: Array<Scalars['String']['output']>;
  updatedAt: Scalars['DateTime']['output'];
};

export enum MachineEventType {
  Activity = 'ACTIVITY',
  Revenue = 'REVENUE'
}

/** A market machine's graph (at most 1,000 nodes and 1,000 edges, oldest first). */
export type MachineGraph = {
  __typename?: 'MachineGraph';
  edges: Array<GraphEdge>;
  machineId: Scalars['String']['output'];
  nodes: Array<GraphNode>;
};

/** A short-lived, single-use machine identity challenge (POST /api/v1/machine-identity/challenges). */
export type MachineIdentityChallenge = {
  __typename?: 'MachineIdentityChallenge';
  challengeId: Scalars['String']['output'];
  controllerAddresses: Array<Scalars['String']['output']>;
  /** ISO 8601. */
  expiresAt: Scalars['DateTime']['output'];
  identityRef: Scalars['String']['output'];
  /** Sign exactly this text (EIP-191 personal_sign) with a controller key. */
  message: Scalars['String']['output'];
  /** `eip191`. */
  verificationMethod: Scalars['String']['output'];
};

/** The identity proof stored with a machine record (public notes 2.2). */
export type MachineIdentityProof = {
  __typename?: 'MachineIdentityProof';
  /** ISO 8601. */
  challengeExpiresAt: Scalars['DateTime']['output'];
  challengeId: Scalars['String']['output'];
  /** The identity's on-chain controllers when the proof was verified. */
  controllerAddresses: Array<Scalars['String']['output']>;
  identityRef: Scalars['String']['output'];
  /** `eip191`. */
  method: Scalars['String']['output'];
  /** `<namespace>-mcr`: the controllers were read from the chain. */
  resolutionSource: Scalars['String']['output'];
  /** EIP-55 address that signed the challenge. */
  signerAddress: Scalars['String']['output'];
  /** ISO 8601. */
  verifiedAt: Scalars['DateTime']['output'];
};

/** Machine profile (GET /machine/{did}) and NFT metadata (GET /metadata/{token_id}). */
export type MachineProfile = {
  __typename?: 'MachineProfile';
  details: MachineProfileDetails;
  /** `Machine #<token id>`, or `Machine (no NFT)`. */
  name: Scalars['String']['output'];
  /** Always `1.0`. */
  schemaVersion: Scalars['String']['output'];
};

/** The profile's machine data (REST: the `peaqos` object). */
export type MachineProfileDetails = {
  __typename?: 'MachineProfileDetails';
  bondStatus: BondStatus;
  /** PRIVATE (when set) and PUBLIC visibility. */
  dataApi?: Maybe<Scalars['String']['output']>;
  dataVisibility: DataVisibility;
  did: Scalars['String']['output'];
  documentationUrl?: Maybe<Scalars['String']['output']>;
  eventCount: Scalars['Int']['output'];
  /** ONCHAIN visibility: the first 100 events, oldest first. */
  eventData?: Maybe<Array<ProfileEvent>>;
  machineId: Scalars['String']['output'];
  mcr: McrRating;
  mcrScore: Scalars['Int']['output'];
  negativeFlag: Scalars['Boolean']['output'];
  /** Operator DID from the machine DID document. */
  operator?: Maybe<Scalars['String']['output']>;
  /** PUBLIC visibility: the data_api answer. */
  partnerData?: Maybe<Scalars['JSONObject']['output']>;
  /** PUBLIC visibility: why there is no partner data. */
  partnerDataError?: Maybe<PartnerDataError>;
};

/** A machine session: the bearer credential of the machine's authority. The token is shown once. */
export type MachineSession = {
  __typename?: 'MachineSession';
  /** The controller (EIP-55) whose signature opened the session. */
  controllerAddress: Scalars['String']['output'];
  expiresAt: Scalars['DateTime']['output'];
  issuedAt: Scalars['DateTime']['output'];
  machineId: Scalars['String']['output'];
  /** `msess_` + 24 hex characters. */
  sessionId: Scalars['String']['output'];
  /** HS256 bearer token; send it as `Authorization: Bearer <token>` or `machineSession`. */
  sessionToken: Scalars['String']['output'];
};

/** The verification record of one machine homed on the primary chain (document 1). */
export type MachineVerificationRecord = {
  __typename?: 'MachineVerificationRecord';
  /** Effective DID controller. */
  didController: AddressRef;
  homeChain: HomeChainRef;
  machineDid: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  /** Operator (the KYB subject). */
  operator: AddressRef;
  verification: VerificationTopics;
};

export type MarketBudgetInput = {
  /** Decimal string, the most one call may cost. */
  amount?: InputMaybe<Scalars['String']['input']>;
  currency?: InputMaybe<Scalars['String']['input']>;
};

/** A resolved dispute: the order (confirmed or cancelled, with its resolution) and its payment. */
export type MarketDisputeResolution = {
  __typename?: 'MarketDisputeResolution';
  order: MarketOrder;
  payment?: Maybe<MarketPayment>;
};

/** Where an external-handoff service continues. */
export type MarketHandoff = {
  __typename?: 'MarketHandoff';
  label: Scalars['String']['output'];
  notes: Array<Scalars['String']['output']>;
  url: Scalars['String']['output'];
};

/** LIVE, PARTNER or PLANNED, as the service catalogue lists the provider (REST: lowercase). */
export enum MarketIntegrationStatus {
  Live = 'LIVE',
  Partner = 'PARTNER',
  Planned = 'PLANNED'
}

/** A machine record of the machine-markets API (GET /api/v1/machines/{machineId}). */
export type MarketMachine = {
  __typename?: 'MarketMachine';
  /** The machine's agent pairings, oldest first (every status). */
  agentPairings: AgentPairingPage;
  /** The machine's runtime agents. */
  agents: MachineAgentPage;
  capabilities: Array<Scalars['String']['output']>;
  /** ISO 8601. */
  createdAt: Scalars['DateTime']['output'];
  displayName: Scalars['String']['output'];
  /** The machine's graph; null unless the machine is active and verified. */
  graph?: Maybe<MachineGraph>;
  /** Market machine ID (`mach_…`), a server string distinct from the on-chain ID. */
  id: Scalars['String']['output'];
  identityProof?: Maybe<MachineIdentityProof>;
  /** As the caller spelled it: `did:<namespace>:<id>`, `<namespace>:machine:<id>` or `did:<namespace>:0x<address>`; immutable once set. */
  identityRef?: Maybe<Scalars['String']['output']>;
  /** The identity was proven (or, with verification off, resolved) at the last write. */
  identityVerified: Scalars['Boolean']['output'];
  /** String values by string keys. */
  labels: Scalars['JSONObject']['output'];
  machineType: Scalars['String']['output'];
  /** The decimal on-chain machine ID identityRef names. */
  onChainMachineId?: Maybe<Scalars['String']['output']>;
  /** The machine's open market orders (not confirmed, cancelled or failed), newest first. */
  openOrders: MarketOrderPage;
  ownerId: Scalars['String']['output'];
  policyIds: Array<Scalars['String']['output']>;
  /** The machine's runtime endpoints (first page of `limit`). */
  runtimeEndpoints: RuntimeEndpointPage;
  runtimeProfile: Scalars['String']['output'];
  skillKeys: Array<Scalars['String']['output']>;
  status: MarketMachineStatus;
  /** The machine's tasks, newest first; null unless active and verified. */
  tasks?: Maybe<MarketTaskPage>;
  /** ISO 8601. */
  updatedAt: Scalars['DateTime']['output'];
};


/** A machine record of the machine-markets API (GET /api/v1/machines/{machineId}). */
export type MarketMachineAgentPairingsArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
};


/** A machine record of the machine-markets API (GET /api/v1/machines/{machineId}). */
export type MarketMachineAgentsArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
};


/** A machine record of the machine-markets API (GET /api/v1/machines/{machineId}). */
export type MarketMachineOpenOrdersArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
};


/** A machine record of the machine-markets API (GET /api/v1/machines/{machineId}). */
export type MarketMachineRuntimeEndpointsArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
};


/** A machine record of the machine-markets API (GET /api/v1/machines/{machineId}). */
export type MarketMachineTasksArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
};

/** A page of machine records; nextCursor is null on the last page. */
export type MarketMachinePage = {
  __typename?: 'MarketMachinePage';
  items: Array<MarketMachine>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** Only ACTIVE machines that are identity-verified pass global rule 1 (REST: lowercase). */
export enum MarketMachineStatus {
  Active = 'ACTIVE',
  Archived = 'ARCHIVED',
  Blocked = 'BLOCKED',
  Degraded = 'DEGRADED',
  Draft = 'DRAFT'
}

/** A market order (public notes 2.7 MarketOrderRecord); status is a MarketOrderStatus. */
export type MarketOrder = {
  __typename?: 'MarketOrder';
  agentPairingId: Scalars['String']['output'];
  /** The budget as the caller gave it (amount, currency: the members given only). */
  budget?: Maybe<Scalars['JSONObject']['output']>;
  createdAt: Scalars['DateTime']['output'];
  errorMessage?: Maybe<Scalars['String']['output']>;
  /** While EXECUTING: when the execution claim lapses and the order is recovered (failed, its payment refunded); null otherwise. */
  executingDeadline?: Maybe<Scalars['DateTime']['output']>;
  executionMode: Scalars['String']['output'];
  /** Where an external-handoff order continues, as the provider answered it; null otherwise. */
  handoff?: Maybe<Scalars['JSONObject']['output']>;
  id: Scalars['String']['output'];
  /** The caller's free-form input object, passed to the provider. */
  input: Scalars['JSONObject']['output'];
  integrationStatus: MarketIntegrationStatus;
  machineId: Scalars['String']['output'];
  operation: Scalars['String']['output'];
  outcomeId?: Maybe<Scalars['String']['output']>;
  /** The service's payment recommendation: defaultRail, required, supportedRails. */
  payment: Scalars['JSONObject']['output'];
  providerKey: Scalars['String']['output'];
  quoteId?: Maybe<Scalars['String']['output']>;
  /** The arbiter's decision on a dispute: { decision: release | refund, reason, resolvedAt, onChain }; null otherwise. */
  resolution?: Maybe<Scalars['JSONObject']['output']>;
  routeId?: Maybe<Scalars['String']['output']>;
  runId?: Maybe<Scalars['String']['output']>;
  searchId?: Maybe<Scalars['String']['output']>;
  serviceId: Scalars['String']['output'];
  /** The catalogue service as it was when the order was made, stored whole: its shape is the catalogue's of that day. */
  serviceSnapshot: Scalars['JSONObject']['output'];
  serviceType: Scalars['String']['output'];
  skillKey: Scalars['String']['output'];
  spend: MarketOrderSpend;
  status: MarketOrderStatus;
  taskId?: Maybe<Scalars['String']['output']>;
  updatedAt: Scalars['DateTime']['output'];
};

export type MarketOrderPage = {
  __typename?: 'MarketOrderPage';
  items: Array<MarketOrder>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** What an order counts against its pairing's delegation limits. */
export type MarketOrderSpend = {
  __typename?: 'MarketOrderSpend';
  amount: Scalars['String']['output'];
  currency?: Maybe<Scalars['String']['output']>;
};

/** CREATED → PAYMENT_PENDING → READY → EXECUTING → DELIVERED → CONFIRMED, or HANDOFF, DISPUTED, FAILED, CANCELLED (REST: lowercase). */
export enum MarketOrderStatus {
  Cancelled = 'CANCELLED',
  Confirmed = 'CONFIRMED',
  Created = 'CREATED',
  Delivered = 'DELIVERED',
  Disputed = 'DISPUTED',
  Executing = 'EXECUTING',
  Failed = 'FAILED',
  Handoff = 'HANDOFF',
  PaymentPending = 'PAYMENT_PENDING',
  Ready = 'READY'
}

/** What a run produced. kind: provider-response | handoff | error. */
export type MarketOutcome = {
  __typename?: 'MarketOutcome';
  createdAt: Scalars['DateTime']['output'];
  id: Scalars['String']['output'];
  kind: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  /** The provider's answer (or the handoff or error), as the provider wrote it: free-form by design. */
  result: Scalars['JSONObject']['output'];
  runId: Scalars['String']['output'];
  taskId: Scalars['String']['output'];
};

export type MarketOutcomePage = {
  __typename?: 'MarketOutcomePage';
  items: Array<MarketOutcome>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** The payment of an order; status is a MarketPaymentStatus, rail a MarketPaymentRailType. */
export type MarketPayment = {
  __typename?: 'MarketPayment';
  amount?: Maybe<Scalars['String']['output']>;
  amountRaw?: Maybe<Scalars['String']['output']>;
  chainId?: Maybe<Scalars['String']['output']>;
  createdAt: Scalars['DateTime']['output'];
  currency?: Maybe<Scalars['String']['output']>;
  /** The rail's own members (x402 requirements, escrow lock, transfer proof): their shape follows the rail. */
  details: Scalars['JSONObject']['output'];
  escrowRef?: Maybe<Scalars['String']['output']>;
  id: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  orderId: Scalars['String']['output'];
  payee?: Maybe<Scalars['String']['output']>;
  payer?: Maybe<Scalars['String']['output']>;
  proofMode?: Maybe<Scalars['String']['output']>;
  rail: Scalars['String']['output'];
  required: Scalars['Boolean']['output'];
  status: MarketPaymentStatus;
  token?: Maybe<Scalars['String']['output']>;
  txHash?: Maybe<Scalars['String']['output']>;
  updatedAt: Scalars['DateTime']['output'];
};

export type MarketPaymentHint = {
  __typename?: 'MarketPaymentHint';
  defaultRail: Scalars['String']['output'];
  required: Scalars['Boolean']['output'];
  /** The MarketPaymentRailTypes the service accepts (absent: defaultRail only). */
  supportedRails?: Maybe<Array<Scalars['String']['output']>>;
};

/** A payment's state (REST: lowercase). */
export enum MarketPaymentStatus {
  Frozen = 'FROZEN',
  Held = 'HELD',
  IntentCreated = 'INTENT_CREATED',
  LockPending = 'LOCK_PENDING',
  NotRequired = 'NOT_REQUIRED',
  Refunded = 'REFUNDED',
  RefundPending = 'REFUND_PENDING',
  Released = 'RELEASED',
  ReleasePending = 'RELEASE_PENDING'
}

/** A cross-cutting policy. kind: spend | access | routing | compliance | custom. */
export type MarketPolicy = {
  __typename?: 'MarketPolicy';
  createdAt: Scalars['DateTime']['output'];
  description?: Maybe<Scalars['String']['output']>;
  id: Scalars['String']['output'];
  kind: Scalars['String']['output'];
  /** Market machine IDs it applies to; empty: every machine. */
  machineIds: Array<Scalars['String']['output']>;
  name: Scalars['String']['output'];
  /** Replaced whole on update. */
  rules: Scalars['JSONObject']['output'];
  status: MarketPolicyStatus;
  updatedAt: Scalars['DateTime']['output'];
};

/** Create: name required. Update: every field optional; description null clears it. */
export type MarketPolicyInput = {
  description?: InputMaybe<Scalars['String']['input']>;
  kind?: InputMaybe<Scalars['String']['input']>;
  machineIds?: InputMaybe<Array<Scalars['String']['input']>>;
  name?: InputMaybe<Scalars['String']['input']>;
  rules?: InputMaybe<Scalars['JSONObject']['input']>;
  /** active or disabled (MarketPolicyStatus in its stored spelling): a string, checked by the service, so an unknown value answers VALIDATION_ERROR as on REST. */
  status?: InputMaybe<Scalars['String']['input']>;
};

export type MarketPolicyPage = {
  __typename?: 'MarketPolicyPage';
  items: Array<MarketPolicy>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** ACTIVE or DISABLED (REST: lowercase). */
export enum MarketPolicyStatus {
  Active = 'ACTIVE',
  Disabled = 'DISABLED'
}

/** mode: provider-defined | fixed | quote-required; amounts are decimal strings. */
export type MarketPricing = {
  __typename?: 'MarketPricing';
  amount?: Maybe<Scalars['String']['output']>;
  currency?: Maybe<Scalars['String']['output']>;
  mode: Scalars['String']['output'];
  notes: Array<Scalars['String']['output']>;
  rate?: Maybe<Scalars['String']['output']>;
};

/** A ranked quote; valid until expiresAt (QUOTE_EXPIRED after). */
export type MarketQuote = {
  __typename?: 'MarketQuote';
  executionMode: Scalars['String']['output'];
  expiresAt: Scalars['DateTime']['output'];
  id: Scalars['String']['output'];
  integrationStatus: MarketIntegrationStatus;
  operation: Scalars['String']['output'];
  payment: MarketPaymentHint;
  pricing: MarketPricing;
  providerKey: Scalars['String']['output'];
  reasons: Array<Scalars['String']['output']>;
  score: Scalars['Float']['output'];
  searchId: Scalars['String']['output'];
  serviceId: Scalars['String']['output'];
  skillKey: Scalars['String']['output'];
};

/** The route a task resolved to. */
export type MarketRoute = {
  __typename?: 'MarketRoute';
  createdAt: Scalars['DateTime']['output'];
  executionMode: Scalars['String']['output'];
  id: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  operation: Scalars['String']['output'];
  providerKey: Scalars['String']['output'];
  score: Scalars['Float']['output'];
  serviceId: Scalars['String']['output'];
  skillKey: Scalars['String']['output'];
  taskId: Scalars['String']['output'];
};

export type MarketRoutePage = {
  __typename?: 'MarketRoutePage';
  items: Array<MarketRoute>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** One execution of a task's route. */
export type MarketRun = {
  __typename?: 'MarketRun';
  /** provider_status, or an outbound refusal reason. */
  errorReason?: Maybe<Scalars['String']['output']>;
  executionMode: Scalars['String']['output'];
  finishedAt: Scalars['DateTime']['output'];
  /** The provider's HTTP status (202 for a handoff). */
  httpStatus?: Maybe<Scalars['Int']['output']>;
  id: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  providerKey: Scalars['String']['output'];
  routeId: Scalars['String']['output'];
  startedAt: Scalars['DateTime']['output'];
  status: MarketRunStatus;
  taskId: Scalars['String']['output'];
};

export type MarketRunPage = {
  __typename?: 'MarketRunPage';
  items: Array<MarketRun>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** SUCCEEDED | FAILED | HANDOFF (a 202 from the provider) (REST: lowercase). */
export enum MarketRunStatus {
  Failed = 'FAILED',
  Handoff = 'HANDOFF',
  Succeeded = 'SUCCEEDED'
}

/** POST /market/search: the ranked quotes of one search. */
export type MarketSearch = {
  __typename?: 'MarketSearch';
  createdAt: Scalars['DateTime']['output'];
  expiresAt: Scalars['DateTime']['output'];
  machineId: Scalars['String']['output'];
  quotes: Array<MarketQuote>;
  searchId: Scalars['String']['output'];
};

/** Machine context, requirements, region, budget and execution preferences. */
export type MarketSearchInput = {
  allowHandoff?: InputMaybe<Scalars['Boolean']['input']>;
  budget?: InputMaybe<MarketBudgetInput>;
  capabilities?: InputMaybe<Array<Scalars['String']['input']>>;
  machineId: Scalars['String']['input'];
  /** 1..50, default 10. */
  maxResults?: InputMaybe<Scalars['Int']['input']>;
  nativeOnly?: InputMaybe<Scalars['Boolean']['input']>;
  operation?: InputMaybe<Scalars['String']['input']>;
  region?: InputMaybe<Scalars['String']['input']>;
  serviceType?: InputMaybe<Scalars['String']['input']>;
  skillKey?: InputMaybe<Scalars['String']['input']>;
};

/** A catalogue service (CatalogService: MarketService plus provider and access fields). */
export type MarketService = {
  __typename?: 'MarketService';
  accessMode: Scalars['String']['output'];
  artifactUrl?: Maybe<Scalars['String']['output']>;
  authType: Scalars['String']['output'];
  capabilities: Array<Scalars['String']['output']>;
  companyName: Scalars['String']['output'];
  description: Scalars['String']['output'];
  distribution: Scalars['String']['output'];
  executionMode: Scalars['String']['output'];
  freshnessSeconds: Scalars['Int']['output'];
  handoff?: Maybe<MarketHandoff>;
  id: Scalars['String']['output'];
  integrationStatus: MarketIntegrationStatus;
  kind: Scalars['String']['output'];
  maturity: Scalars['String']['output'];
  /** The provider's own service metadata: free-form by design. */
  metadata: Scalars['JSONObject']['output'];
  name: Scalars['String']['output'];
  operations: Array<Scalars['String']['output']>;
  payment: MarketPaymentHint;
  pricing: MarketPricing;
  providerId: Scalars['String']['output'];
  providerKey: Scalars['String']['output'];
  providerLabel: Scalars['String']['output'];
  referenceUrl?: Maybe<Scalars['String']['output']>;
  region: Scalars['String']['output'];
  requiresHumanEnablement: Scalars['Boolean']['output'];
  serviceType: Scalars['String']['output'];
  skillKey: Scalars['String']['output'];
};

/** A page of catalogue services (ordered by ID). */
export type MarketServicePage = {
  __typename?: 'MarketServicePage';
  items: Array<MarketService>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** A skill of the service catalogue (SkillSummary). */
export type MarketSkill = {
  __typename?: 'MarketSkill';
  description: Scalars['String']['output'];
  /** native | external-handoff */
  executionMode: Scalars['String']['output'];
  integrationStatus: MarketIntegrationStatus;
  key: Scalars['String']['output'];
  label: Scalars['String']['output'];
  operations: Array<Scalars['String']['output']>;
  providerKey: Scalars['String']['output'];
  serviceTypes: Array<Scalars['String']['output']>;
};

/** A task; status is a MarketTaskStatus. */
export type MarketTask = {
  __typename?: 'MarketTask';
  candidates: Array<RouteCandidate>;
  createdAt: Scalars['DateTime']['output'];
  /** While EXECUTING: when the execution claim lapses and the task is failed; null otherwise. */
  executingDeadline?: Maybe<Scalars['DateTime']['output']>;
  id: Scalars['String']['output'];
  /** The caller's free-form input object. */
  input: Scalars['JSONObject']['output'];
  machineId: Scalars['String']['output'];
  operation: Scalars['String']['output'];
  route?: Maybe<MarketRoute>;
  routeId?: Maybe<Scalars['String']['output']>;
  skillKey: Scalars['String']['output'];
  status: MarketTaskStatus;
  updatedAt: Scalars['DateTime']['output'];
};

/** skillKey required (a catalogue skill); operation defaults to the skill's first; input: {}. */
export type MarketTaskInput = {
  input?: InputMaybe<Scalars['JSONObject']['input']>;
  operation?: InputMaybe<Scalars['String']['input']>;
  skillKey?: InputMaybe<Scalars['String']['input']>;
};

export type MarketTaskPage = {
  __typename?: 'MarketTaskPage';
  items: Array<MarketTask>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** QUEUED → DISCOVERED → RESOLVED → EXECUTING → EXECUTED | FAILED | HANDOFF (REST: lowercase). */
export enum MarketTaskStatus {
  Discovered = 'DISCOVERED',
  Executed = 'EXECUTED',
  Executing = 'EXECUTING',
  Failed = 'FAILED',
  Handoff = 'HANDOFF',
  Queued = 'QUEUED',
  Resolved = 'RESOLVED'
}

/** A machine's binding to its on-chain identity in the machine-markets service (document 3). */
export type MarketsRegistration = {
  __typename?: 'MarketsRegistration';
  identityRef: Scalars['String']['output'];
  /** When the market machine record was created. */
  registeredAt: Scalars['DateTime']['output'];
  status: MarketMachineStatus;
};

/** Rating bands of docs/mcr-scoring.md. */
export enum McrRating {
  A = 'A',
  Aa = 'AA',
  Aaa = 'AAA',
  B = 'B',
  Bb = 'BB',
  Bbb = 'BBB',
  Nr = 'NR',
  Provisioned = 'PROVISIONED'
}

/** MCR scorecard of one machine (GET /mcr/{did}). */
export type McrScorecard = {
  __typename?: 'McrScorecard';
  activityEventCount: Scalars['Int']['output'];
  /** USD cents per revenue event. */
  averageRevenuePerEvent: Scalars['Float']['output'];
  bondStatus: BondStatus;
  /** The DID as asked for. */
  did: Scalars['String']['output'];
  eventCount: Scalars['Int']['output'];
  /** Unix seconds the latest event was recorded; null without events. */
  lastUpdated?: Maybe<Scalars['Float']['output']>;
  /** Decimal on-chain machine ID. */
  machineId: Scalars['String']['output'];
  mcr: McrRating;
  /** A revenue event in the score window had no usable FX rate. */
  mcrDegraded: Scalars['Boolean']['output'];
  /** 0-100; 0 when NR or PROVISIONED. */
  mcrScore: Scalars['Int']['output'];
  negativeFlag: Scalars['Boolean']['output'];
  revenueEventCount: Scalars['Int']['output'];
  revenueTrend: RevenueTrend;
  /** USD cents over the full history, as a decimal string. */
  totalRevenue: Scalars['String']['output'];
};

/** Compatibility signal clients check before signing (GET /.well-known/<namespace>-monetization). */
export type MonetizationCompatibility = {
  __typename?: 'MonetizationCompatibility';
  /** `<namespace>-monetization`. */
  api: Scalars['String']['output'];
  /** Decimal chain ID the server signs against. */
  chainId: Scalars['String']['output'];
  /** `1.0` or `2.0`. */
  deployment: Scalars['String']['output'];
  maxAgeSeconds: Scalars['Float']['output'];
  maxFutureSeconds: Scalars['Float']['output'];
  /** The canonical message with `{name}` placeholders, LF-separated. */
  messageTemplate: Scalars['String']['output'];
  /** Registry address in the message, lowercase. */
  registry: Scalars['String']['output'];
  /** Version of the message template and the PUT body; 1. */
  version: Scalars['Float']['output'];
};

/** A signed opt-in or opt-out (PUT /machine/{key}/monetization); docs/monetization.md. */
export type MonetizationDecisionInput = {
  optedIn: Scalars['Boolean']['input'];
  /** EIP-191 signature of the canonical message: 0x and 130 hex characters. */
  signature: Scalars['String']['input'];
  /** Unix seconds of signing: a positive integer inside the freshness window. */
  timestamp: Scalars['Float']['input'];
};

/** The applied monetization decision of a machine (GET /machine/{key}/monetization). */
export type MonetizationState = {
  __typename?: 'MonetizationState';
  /** The resolved decimal machine ID. */
  machineId: Scalars['String']['output'];
  /** Address that signed the applied decision; null only when PENDING. */
  signer?: Maybe<Scalars['String']['output']>;
  status: MonetizationStatus;
  /** Unix seconds of the applied decision; null only when PENDING. */
  updatedAt?: Maybe<Scalars['Float']['output']>;
};

/** `PENDING`: the machine never opted in or out (no decision stored). */
export enum MonetizationStatus {
  OptedIn = 'OPTED_IN',
  OptedOut = 'OPTED_OUT',
  Pending = 'PENDING'
}

export type Mutation = {
  __typename?: 'Mutation';
  /** POST /market/orders/:orderId/cancel */
  cancelMarketOrder: MarketOrder;
  /** PUT /stream/chunks/{chunkId}/data, step 2: check the stored object, record it. */
  commitStreamChunkData: StreamChunk;
  /** POST /market/orders/:orderId/confirm */
  confirmMarketOrder: MarketOrder;
  /** POST /2fa/confirm: the first code from the authenticator. */
  confirmTwoFactor: TwoFactorConfirmation;
  /** POST /machines/:machineId/agent-pairings: the pairing with its pairingToken (shown once). */
  createAgentPairing: AgentPairing;
  /** POST /machines/:machineId/agent-pairings/challenges */
  createAgentPairingChallenge: AgentPairingChallenge;
  /** POST /machines/:machineId/agent-pairings/:pairingId/sessions: a new pairingToken. */
  createAgentPairingSession: AgentPairing;
  /** POST /v1/verify/chip/challenge. Needs the onboarding token. */
  createChipChallenge: ChipChallenge;
  /** POST /machines/:machineId/graph/edges (201); both nodes must exist. */
  createGraphEdge: GraphEdge;
  /** POST /machines/:machineId/graph/nodes (201) */
  createGraphNode: GraphNode;
  /** POST /machine-identity/challenges: a short-lived challenge for a controller of `identityRef` to sign. */
  createMachineIdentityChallenge: MachineIdentityChallenge;
  /** POST /machine-identity/sessions: the machine's authority for a controller's proof. */
  createMachineSession: MachineSession;
  /** POST /machines. */
  createMarketMachine: MarketMachine;
  /** POST /market/orders */
  createMarketOrder: MarketOrder;
  /** POST /policies (201) */
  createMarketPolicy: MarketPolicy;
  /** POST /market/orders/:orderId/payment-intent (idempotent) */
  createPaymentIntent: PaymentIntentResult;
  /** POST /purchases (createPurchase) */
  createPurchase: Purchase;
  /** POST /purchases/:purchaseId/events (createPurchaseEvent) */
  createPurchaseEvent: PurchaseEvent;
  /** POST /purchases/:purchaseId/payment-intent (createPurchasePaymentIntent) */
  createPurchasePaymentIntent: Purchase;
  /** POST /machines/{machineId}/stream/listings. */
  createStreamListing: StreamListing;
  /** POST /stream/orders */
  createStreamOrder: StreamOrder;
  /** POST /machines/{machineId}/stream/policies. */
  createStreamPolicy: StreamPolicy;
  /** POST /machines/:machineId/tasks (201, queued) */
  createTask: MarketTask;
  /** POST /machines/{machineId}/stream/listings/{listingId}/deactivate: out of sale and of the catalogue. */
  deactivateStreamListing: StreamListing;
  /** DELETE /machines/:machineId/graph/edges/:edgeId (204) */
  deleteGraphEdge: Scalars['Boolean']['output'];
  /** DELETE /machines/:machineId/graph/nodes/:nodeId (204); its edges go with it. */
  deleteGraphNode: Scalars['Boolean']['output'];
  /** DELETE /machines/{machineId}/runtime-endpoints/{providerKey}: true, or NOT_FOUND. */
  deleteRuntimeEndpoint: Scalars['Boolean']['output'];
  /** POST /machines/:machineId/tasks/:taskId/discover */
  discoverTask: MarketTask;
  /** POST /market/orders/:orderId/dispute (reason required) */
  disputeMarketOrder: MarketOrder;
  /** POST /machines/{machineId}/agents/enrollment: the agent and its one-time token. */
  enrollMachineAgent: MachineAgentEnrollment;
  /** POST /market/orders/:orderId/execute */
  executeMarketOrder: OrderExecution;
  /** POST /machines/:machineId/tasks/:taskId/execute */
  executeTask: TaskExecution;
  /** POST /faucet/fund */
  fundWallet: Funding;
  /** GET /purchases/:purchaseId/delivery (getPurchaseDelivery): issues a fresh connect handoff */
  getPurchaseDelivery: PurchaseDelivery;
  /** POST /market/orders/:orderId/payment/escrow-lock (idempotent): { payer?, authorization? } */
  lockPaymentEscrow: PaymentIntentResult;
  /** POST /machine-agents/heartbeat, authenticated by the agent's token. */
  machineAgentHeartbeat: HeartbeatResult;
  /** POST /stream/orders/:orderId/payment */
  payStreamOrder: StreamOrder;
  /** POST /stream/delivery-sessions/poll (the machine's agent) */
  pollStreamDeliverySessions: StreamOrderDeliverySessionPage;
  /** POST /purchases/:purchaseId/prepare-access (seller agent): { item, access, deliverySession } */
  preparePurchaseAccess: PreparedPurchaseAccess;
  /** POST /stream/orders/:orderId/prepare-access (the machine's agent) */
  prepareStreamOrderAccess: PreparedStreamAccess;
  /** PUT /machines/:machineId/delivery-capabilities: { created, item } */
  putDeliveryCapabilities: DeliveryCapabilitiesResult;
  /** POST /machines/{machineId}/stream/listings/{listingId}/reactivate: back on sale and in the catalogue. */
  reactivateStreamListing: StreamListing;
  /** Operator: record that the chip attestation for this receipt is on chain (checked against the registry and the machine's current context). */
  recordChipAttestation: ChipEvidenceRecord;
  /** PATCH /stream/events/{receiptId}/chain-receipt. */
  recordStreamChainReceipt: StreamEventReceipt;
  /** POST /stream/events: 201 new receipt, 200 the existing one. */
  recordStreamEvent: StreamEventResult;
  /** POST /stream/events/batch: all or nothing. */
  recordStreamEventBatch: Array<StreamEventReceipt>;
  /** POST /market/orders/:orderId/payment/refund (escrow, before delivery) */
  refundPayment: PaymentIntentResult;
  /** POST /stream/chunks: 201 registered, 200 the same manifest again. */
  registerStreamChunk: StreamChunkResult;
  /** POST /machines/{machineId}/stream/signing-keys. */
  registerStreamSigningKey: StreamSigningKeyResult;
  /** POST /market/orders/:orderId/payment/release (requires release_pending) */
  releasePayment: PaymentIntentResult;
  /** POST /2fa/reset: a new enrolment for whoever holds the owner address's key, replacing any other and lifting every lock. `signature`: EIP-191 personal_sign of the reset message (docs/faucet.md) naming `issuedAt`. */
  resetTwoFactor: TwoFactorEnrolment;
  /** POST /market/orders/:orderId/resolve: the operator releases a disputed order's payment to the payee or refunds it to the payer */
  resolveMarketOrderDispute: MarketDisputeResolution;
  /** POST /machines/:machineId/tasks/:taskId/resolve (201); serviceId: one of the candidates, default the best. */
  resolveTask: MarketTask;
  /** DELETE /machines/:machineId/agent-pairings/:pairingId: revoked. */
  revokeAgentPairing: AgentPairing;
  /** POST /machines/{machineId}/agents/{agentId}/revoke: final. */
  revokeMachineAgent: MachineAgent;
  /** DELETE /machine-identity/sessions/{sessionId}: ends a session of the caller's machine. */
  revokeMachineSession: Scalars['Boolean']['output'];
  /** POST /machines/{machineId}/stream/signing-keys/{keyId}/revoke: no new chunk under it. */
  revokeStreamSigningKey: StreamSigningKey;
  /** POST /market/search: ranked quotes with a short TTL. */
  searchMarket: MarketSearch;
  /** PUT /machine/{key}/monetization: a signed opt-in or opt-out. */
  setMachineMonetization: MonetizationState;
  /** POST /2fa/setup: format `png` (default) or `svg`. */
  setupTwoFactor: TwoFactorEnrolment;
  /** POST /stream/heartbeat. */
  streamHeartbeat: StreamHeartbeat;
  /** GET /stream/orders/:orderId/delivery?buyerId= (un-enveloped on REST; marks delivered) */
  streamOrderDelivery: StreamOrderDelivery;
  /** POST /v1/verify/chip/evidence: the evidence file text, byte for byte. Needs the onboarding token. */
  submitChipEvidence: IntakeReceipt;
  /** POST /market/orders/:orderId/payment-proof: wallet { mode: rpc | recorded, txHash, from?, chainId? } or x402 { paymentPayload | paymentSignature } */
  submitPaymentProof: PaymentIntentResult;
  /** POST /purchases/:purchaseId/payment-proof (submitPurchasePaymentProof) */
  submitPurchasePaymentProof: Purchase;
  /** PATCH /machines/:machineId/agent-pairings/:pairingId */
  updateAgentPairing: AgentPairing;
  /** PATCH /machines/:machineId/graph/edges/:edgeId */
  updateGraphEdge: GraphEdge;
  /** PATCH /machines/:machineId/graph/nodes/:nodeId; data is shallow-merged. */
  updateGraphNode: GraphNode;
  /** PATCH /machines/{machineId}: with the machine's session, or a new identityProof signed by a controller. */
  updateMarketMachine: MarketMachine;
  /** PATCH /policies/:policyId */
  updateMarketPolicy: MarketPolicy;
  /** PATCH /stream/delivery-sessions/:sessionId (the machine's agent) */
  updateStreamDeliverySession: StreamOrderDeliverySession;
  /** PATCH /machines/{machineId}/stream/policies/{policyId}: bumps version. */
  updateStreamPolicy: StreamPolicy;
  /** POST /stream/buyer-access. */
  uploadStreamBuyerAccess: StreamBuyerAccessResult;
  /** PUT /machines/{machineId}/runtime-endpoints/{providerKey}: source MANUAL. */
  upsertRuntimeEndpoint: RuntimeEndpointUpsert;
  /** POST /stream/delivery-sessions/handoff/verify (the seller's delivery server) */
  verifyPurchaseHandoff: PurchaseHandoffGrant;
};


export type MutationCancelMarketOrderArgs = {
  orderId: Scalars['String']['input'];
  pairingToken?: InputMaybe<Scalars['String']['input']>;
};


export type MutationCommitStreamChunkDataArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  chunkId: Scalars['String']['input'];
  storageRef: Scalars['String']['input'];
};


export type MutationConfirmMarketOrderArgs = {
  orderId: Scalars['String']['input'];
  pairingToken?: InputMaybe<Scalars['String']['input']>;
};


export type MutationConfirmTwoFactorArgs = {
  ownerAddress: Scalars['String']['input'];
  twoFactorCode: Scalars['String']['input'];
};


export type MutationCreateAgentPairingArgs = {
  input: CreateAgentPairingInput;
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
};


export type MutationCreateAgentPairingChallengeArgs = {
  input: AgentPairingChallengeInput;
  machineId: Scalars['String']['input'];
};


export type MutationCreateAgentPairingSessionArgs = {
  agentProof?: InputMaybe<AgentProofInput>;
  machineId: Scalars['String']['input'];
  pairingId: Scalars['String']['input'];
};


export type MutationCreateChipChallengeArgs = {
  machineId: Scalars['String']['input'];
};


export type MutationCreateGraphEdgeArgs = {
  input: GraphEdgeInput;
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
};


export type MutationCreateGraphNodeArgs = {
  input: GraphNodeInput;
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
};


export type MutationCreateMachineIdentityChallengeArgs = {
  identityRef: Scalars['String']['input'];
};


export type MutationCreateMachineSessionArgs = {
  input: CreateMachineSessionInput;
};


export type MutationCreateMarketMachineArgs = {
  input: CreateMarketMachineInput;
};


export type MutationCreateMarketOrderArgs = {
  input: CreateMarketOrderInput;
  pairingToken?: InputMaybe<Scalars['String']['input']>;
};


export type MutationCreateMarketPolicyArgs = {
  input: MarketPolicyInput;
};


export type MutationCreatePaymentIntentArgs = {
  details?: InputMaybe<Scalars['JSONObject']['input']>;
  orderId: Scalars['String']['input'];
  pairingToken?: InputMaybe<Scalars['String']['input']>;
  rail?: InputMaybe<Scalars['String']['input']>;
};


export type MutationCreatePurchaseArgs = {
  input: Scalars['JSONObject']['input'];
  pairingToken?: InputMaybe<Scalars['String']['input']>;
};


export type MutationCreatePurchaseEventArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  input: Scalars['JSONObject']['input'];
  pairingToken?: InputMaybe<Scalars['String']['input']>;
  purchaseId: Scalars['String']['input'];
};


export type MutationCreatePurchasePaymentIntentArgs = {
  input?: InputMaybe<Scalars['JSONObject']['input']>;
  pairingToken?: InputMaybe<Scalars['String']['input']>;
  purchaseId: Scalars['String']['input'];
};


export type MutationCreateStreamListingArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  input: CreateStreamListingInput;
  machineId: Scalars['String']['input'];
};


export type MutationCreateStreamOrderArgs = {
  input: CreateStreamOrderInput;
};


export type MutationCreateStreamPolicyArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  input: StreamPolicyInput;
  machineId: Scalars['String']['input'];
};


export type MutationCreateTaskArgs = {
  input: MarketTaskInput;
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
};


export type MutationDeactivateStreamListingArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  listingId: Scalars['String']['input'];
  machineId: Scalars['String']['input'];
};


export type MutationDeleteGraphEdgeArgs = {
  edgeId: Scalars['String']['input'];
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
};


export type MutationDeleteGraphNodeArgs = {
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
  nodeId: Scalars['String']['input'];
};


export type MutationDeleteRuntimeEndpointArgs = {
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
  providerKey: Scalars['String']['input'];
};


export type MutationDiscoverTaskArgs = {
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
  taskId: Scalars['String']['input'];
};


export type MutationDisputeMarketOrderArgs = {
  orderId: Scalars['String']['input'];
  pairingToken?: InputMaybe<Scalars['String']['input']>;
  reason?: InputMaybe<Scalars['String']['input']>;
};


export type MutationEnrollMachineAgentArgs = {
  input: EnrollMachineAgentInput;
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
};


export type MutationExecuteMarketOrderArgs = {
  orderId: Scalars['String']['input'];
  pairingToken?: InputMaybe<Scalars['String']['input']>;
};


export type MutationExecuteTaskArgs = {
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
  taskId: Scalars['String']['input'];
};


export type MutationFundWalletArgs = {
  input: FundWalletInput;
};


export type MutationGetPurchaseDeliveryArgs = {
  pairingToken?: InputMaybe<Scalars['String']['input']>;
  purchaseId: Scalars['String']['input'];
};


export type MutationLockPaymentEscrowArgs = {
  details?: InputMaybe<Scalars['JSONObject']['input']>;
  orderId: Scalars['String']['input'];
  pairingToken?: InputMaybe<Scalars['String']['input']>;
};


export type MutationMachineAgentHeartbeatArgs = {
  agentToken?: InputMaybe<Scalars['String']['input']>;
  input: HeartbeatInput;
};


export type MutationPayStreamOrderArgs = {
  orderId: Scalars['String']['input'];
  paymentReference: Scalars['String']['input'];
  proof?: InputMaybe<StreamPaymentProofInput>;
};


export type MutationPollStreamDeliverySessionsArgs = {
  agent: StreamAgentInput;
  limit?: InputMaybe<Scalars['Int']['input']>;
  statuses?: InputMaybe<Array<Scalars['String']['input']>>;
};


export type MutationPreparePurchaseAccessArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  items: Array<Scalars['JSONObject']['input']>;
  purchaseId: Scalars['String']['input'];
};


export type MutationPrepareStreamOrderAccessArgs = {
  agent: StreamAgentInput;
  items: Array<Scalars['JSONObject']['input']>;
  mode?: InputMaybe<Scalars['String']['input']>;
  orderId: Scalars['String']['input'];
};


export type MutationPutDeliveryCapabilitiesArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  input: Scalars['JSONObject']['input'];
  machineId: Scalars['String']['input'];
};


export type MutationReactivateStreamListingArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  listingId: Scalars['String']['input'];
  machineId: Scalars['String']['input'];
};


export type MutationRecordChipAttestationArgs = {
  attestationUid: Scalars['String']['input'];
  receiptId: Scalars['String']['input'];
};


export type MutationRecordStreamChainReceiptArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  dataHash: Scalars['String']['input'];
  machineId: Scalars['String']['input'];
  receiptId: Scalars['String']['input'];
  txHash: Scalars['String']['input'];
};


export type MutationRecordStreamEventArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  envelope: Scalars['JSONObject']['input'];
  machineId?: InputMaybe<Scalars['String']['input']>;
};


export type MutationRecordStreamEventBatchArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  items: Array<Scalars['JSONObject']['input']>;
  machineId?: InputMaybe<Scalars['String']['input']>;
};


export type MutationRefundPaymentArgs = {
  orderId: Scalars['String']['input'];
  pairingToken?: InputMaybe<Scalars['String']['input']>;
};


export type MutationRegisterStreamChunkArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  machineId: Scalars['String']['input'];
  manifest: Scalars['JSONObject']['input'];
  metadata?: InputMaybe<Scalars['JSONObject']['input']>;
};


export type MutationRegisterStreamSigningKeyArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  keyId: Scalars['String']['input'];
  machineId: Scalars['String']['input'];
  publicKeyHex: Scalars['String']['input'];
};


export type MutationReleasePaymentArgs = {
  orderId: Scalars['String']['input'];
  pairingToken?: InputMaybe<Scalars['String']['input']>;
};


export type MutationResetTwoFactorArgs = {
  format?: Scalars['String']['input'];
  issuedAt: Scalars['String']['input'];
  ownerAddress: Scalars['String']['input'];
  signature: Scalars['String']['input'];
};


export type MutationResolveMarketOrderDisputeArgs = {
  decision?: InputMaybe<Scalars['String']['input']>;
  operatorToken?: InputMaybe<Scalars['String']['input']>;
  orderId: Scalars['String']['input'];
  reason?: InputMaybe<Scalars['String']['input']>;
};


export type MutationResolveTaskArgs = {
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
  serviceId?: InputMaybe<Scalars['String']['input']>;
  taskId: Scalars['String']['input'];
};


export type MutationRevokeAgentPairingArgs = {
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
  pairingId: Scalars['String']['input'];
};


export type MutationRevokeMachineAgentArgs = {
  agentId: Scalars['String']['input'];
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
};


export type MutationRevokeMachineSessionArgs = {
  machineSession?: InputMaybe<Scalars['String']['input']>;
  sessionId: Scalars['String']['input'];
};


export type MutationRevokeStreamSigningKeyArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  keyId: Scalars['String']['input'];
  machineId: Scalars['String']['input'];
};


export type MutationSearchMarketArgs = {
  input: MarketSearchInput;
  machineSession?: InputMaybe<Scalars['String']['input']>;
  pairingToken?: InputMaybe<Scalars['String']['input']>;
};


export type MutationSetMachineMonetizationArgs = {
  decision: MonetizationDecisionInput;
  deployment?: RatingsDeployment;
  key: Scalars['String']['input'];
};


export type MutationSetupTwoFactorArgs = {
  format?: Scalars['String']['input'];
  ownerAddress: Scalars['String']['input'];
};


export type MutationStreamHeartbeatArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  machineId: Scalars['String']['input'];
  policyId?: InputMaybe<Scalars['String']['input']>;
};


export type MutationStreamOrderDeliveryArgs = {
  buyerId: Scalars['String']['input'];
  orderId: Scalars['String']['input'];
};


export type MutationSubmitChipEvidenceArgs = {
  evidence: Scalars['String']['input'];
};


export type MutationSubmitPaymentProofArgs = {
  details?: InputMaybe<Scalars['JSONObject']['input']>;
  orderId: Scalars['String']['input'];
  pairingToken?: InputMaybe<Scalars['String']['input']>;
};


export type MutationSubmitPurchasePaymentProofArgs = {
  input?: InputMaybe<Scalars['JSONObject']['input']>;
  pairingToken?: InputMaybe<Scalars['String']['input']>;
  purchaseId: Scalars['String']['input'];
};


export type MutationUpdateAgentPairingArgs = {
  input: UpdateAgentPairingInput;
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
  pairingId: Scalars['String']['input'];
};


export type MutationUpdateGraphEdgeArgs = {
  edgeId: Scalars['String']['input'];
  input: GraphEdgeInput;
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
};


export type MutationUpdateGraphNodeArgs = {
  input: GraphNodeInput;
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
  nodeId: Scalars['String']['input'];
};


export type MutationUpdateMarketMachineArgs = {
  id: Scalars['String']['input'];
  input: UpdateMarketMachineInput;
  machineSession?: InputMaybe<Scalars['String']['input']>;
};


export type MutationUpdateMarketPolicyArgs = {
  input: MarketPolicyInput;
  policyId: Scalars['String']['input'];
};


export type MutationUpdateStreamDeliverySessionArgs = {
  agent: StreamAgentInput;
  deliveryUrl?: InputMaybe<Scalars['String']['input']>;
  message?: InputMaybe<Scalars['String']['input']>;
  sessionId: Scalars['String']['input'];
  status?: InputMaybe<Scalars['String']['input']>;
};


export type MutationUpdateStreamPolicyArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  input: StreamPolicyInput;
  machineId: Scalars['String']['input'];
  policyId: Scalars['String']['input'];
};


export type MutationUploadStreamBuyerAccessArgs = {
  access: Scalars['JSONObject']['input'];
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  machineId: Scalars['String']['input'];
};


export type MutationUpsertRuntimeEndpointArgs = {
  input: RuntimeEndpointInput;
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
  providerKey: Scalars['String']['input'];
};


export type MutationVerifyPurchaseHandoffArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  handoffToken: Scalars['String']['input'];
  machineId: Scalars['String']['input'];
};

export type OffsetPagination = {
  __typename?: 'OffsetPagination';
  limit: Scalars['Int']['output'];
  offset: Scalars['Int']['output'];
  /** Machines listed for the operator before registration filtering. */
  total: Scalars['Int']['output'];
};

/** One machine of an operator, with its MCR (full history). */
export type OperatorMachine = {
  __typename?: 'OperatorMachine';
  did: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  mcr: McrRating;
  mcrScore: Scalars['Int']['output'];
  negativeFlag: Scalars['Boolean']['output'];
};

/** An operator's machines (GET /operator/{did}/machines), one page. */
export type OperatorMachines = {
  __typename?: 'OperatorMachines';
  machines: Array<OperatorMachine>;
  /** The operator DID as asked for. */
  operatorDid: Scalars['String']['output'];
  pagination: OffsetPagination;
};

export type OrderBudgetInput = {
  amount?: InputMaybe<Scalars['String']['input']>;
  currency?: InputMaybe<Scalars['String']['input']>;
};

/** An order's execution: the order after it, and the task, run, outcome (as task execute). */
export type OrderExecution = {
  __typename?: 'OrderExecution';
  handoff?: Maybe<MarketHandoff>;
  httpStatus: Scalars['Int']['output'];
  order: MarketOrder;
  outcome: MarketOutcome;
  run: MarketRun;
  task: MarketTask;
};

/** How a pairing's agent proved its key: an EIP-191 signature over a pairing challenge. */
export type PairingVerification = {
  __typename?: 'PairingVerification';
  challengeExpiresAt: Scalars['DateTime']['output'];
  /** eip191. */
  method: Scalars['String']['output'];
  signerAddress: Scalars['String']['output'];
  verifiedAt: Scalars['DateTime']['output'];
};

/** Why the live data_api fetch gave no partner data (REST: the lowercase name, e.g. `blocked_loopback`). */
export enum PartnerDataError {
  BlockedLinkLocal = 'BLOCKED_LINK_LOCAL',
  BlockedLoopback = 'BLOCKED_LOOPBACK',
  BlockedMetadata = 'BLOCKED_METADATA',
  BlockedMulticast = 'BLOCKED_MULTICAST',
  BlockedPrivate = 'BLOCKED_PRIVATE',
  BlockedReserved = 'BLOCKED_RESERVED',
  ConnectFailed = 'CONNECT_FAILED',
  CredentialsNotAllowed = 'CREDENTIALS_NOT_ALLOWED',
  DnsFailed = 'DNS_FAILED',
  HttpStatus = 'HTTP_STATUS',
  InvalidJson = 'INVALID_JSON',
  InvalidUrl = 'INVALID_URL',
  NotConfigured = 'NOT_CONFIGURED',
  NotObject = 'NOT_OBJECT',
  RedirectNotFollowed = 'REDIRECT_NOT_FOLLOWED',
  SchemeNotAllowed = 'SCHEME_NOT_ALLOWED',
  Timeout = 'TIMEOUT',
  TooLarge = 'TOO_LARGE'
}

/** A payment intent's answer: the payment and the order's status after it. */
export type PaymentIntentResult = {
  __typename?: 'PaymentIntentResult';
  orderStatus: MarketOrderStatus;
  payment: MarketPayment;
};

/** A payment rail a purchase may use, by its `type`. */
export type PaymentRail = TransferPaymentRail | X402PaymentRail;

/** A chain a transfer may pay on. */
export type PaymentRailChain = {
  __typename?: 'PaymentRailChain';
  chain: Scalars['String']['output'];
  chainId: Scalars['String']['output'];
  confirmations: Scalars['Int']['output'];
  payTo: Scalars['String']['output'];
  token: PaymentRailToken;
};

/** A token of a payment rail. */
export type PaymentRailToken = {
  __typename?: 'PaymentRailToken';
  address: Scalars['String']['output'];
  decimals: Scalars['Int']['output'];
  symbol: Scalars['String']['output'];
};

/** POST prepare-access: the purchase, the stored access entries and the delivery session. */
export type PreparedPurchaseAccess = {
  __typename?: 'PreparedPurchaseAccess';
  access: Array<PurchaseBuyerAccess>;
  deliverySession?: Maybe<PreparedPurchaseSession>;
  item: Purchase;
};

/** The delivery session after prepare-access (a requested session becomes READY). */
export type PreparedPurchaseSession = {
  __typename?: 'PreparedPurchaseSession';
  id: Scalars['String']['output'];
  status: StreamDeliverySessionStatus;
};

/** prepare-access: the order, the stored access entries and the delivery session. */
export type PreparedStreamAccess = {
  __typename?: 'PreparedStreamAccess';
  /** The stored peaq.stream.buyer-access.v1 documents, kept as JSON so their members and signatures stay exactly as signed. */
  access: Array<Scalars['JSONObject']['output']>;
  deliverySession: StreamOrderDeliverySession;
  item: StreamOrder;
};

/** One on-chain event as the profile shows it (ONCHAIN visibility). */
export type ProfileEvent = {
  __typename?: 'ProfileEvent';
  /** Revenue events only. */
  amountStatus?: Maybe<AmountStatus>;
  currency: Scalars['String']['output'];
  dataHash: Scalars['String']['output'];
  eventType: MachineEventType;
  /** 0x hex. */
  metadata: Scalars['String']['output'];
  /** Decimal chain ID; 0 = off-chain. */
  sourceChainId: Scalars['String']['output'];
  sourceTxHash: Scalars['String']['output'];
  /** Unix seconds it happened. */
  timestamp: Scalars['Float']['output'];
  trustLevel: Scalars['Int']['output'];
  /** USD cents (revenue events whose amount converted). */
  usdValue?: Maybe<Scalars['String']['output']>;
  /** Minor units of `currency` (decimal string). */
  value: Scalars['String']['output'];
};

/** A stream purchase (purchase flow, public notes 3.4). */
export type Purchase = {
  __typename?: 'Purchase';
  buyer: PurchaseBuyer;
  completedAt?: Maybe<Scalars['DateTime']['output']>;
  createdAt: Scalars['DateTime']['output'];
  /** Null until negotiated, and when the purchase failed. */
  delivery?: Maybe<PurchaseNegotiatedDelivery>;
  failure?: Maybe<PurchaseFailure>;
  id: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  paidAt?: Maybe<Scalars['DateTime']['output']>;
  /** The checked payment; JSONObject because its members are the rail's proof (transfer receipt or x402 settlement). */
  payment?: Maybe<Scalars['JSONObject']['output']>;
  /** The payment deadline: createdAt plus STREAM_PURCHASE_PAYMENT_TTL_SECONDS. A purchase still PAYMENT_PENDING at this moment expires. */
  paymentDueAt: Scalars['DateTime']['output'];
  /** The payment intent; JSONObject because its members are the rail's (transfer or x402 requirements). */
  paymentIntent?: Maybe<Scalars['JSONObject']['output']>;
  price: PurchasePrice;
  /** The rail of the payment intent: transfer or x402. */
  rail?: Maybe<Scalars['String']['output']>;
  resource: PurchaseResource;
  status: PurchaseStatus;
  updatedAt: Scalars['DateTime']['output'];
};

/** The buyer of a purchase. */
export type PurchaseBuyer = {
  __typename?: 'PurchaseBuyer';
  deliveryCapabilities: Array<PurchaseBuyerCapability>;
  /** The pairing's agent DID (else its address). */
  id: Scalars['String']['output'];
  publicKey: PurchaseBuyerKey;
};

/** A peaq.stream.buyer-access.v1 entry of one bought chunk, as the platform stored it. */
export type PurchaseBuyerAccess = {
  __typename?: 'PurchaseBuyerAccess';
  buyer: PurchaseBuyerAccessKey;
  chunkId: Scalars['String']['output'];
  schemaVersion: Scalars['String']['output'];
};

/** The buyer's wrapped content key of one chunk (sealed to the buyer's x25519 key). */
export type PurchaseBuyerAccessKey = {
  __typename?: 'PurchaseBuyerAccessKey';
  algorithm: Scalars['String']['output'];
  publicKeyHex: Scalars['String']['output'];
  recipientId: Scalars['String']['output'];
  /** buyer. */
  recipientType: Scalars['String']['output'];
  wrappedKeyHex: Scalars['String']['output'];
};

/** A delivery capability the buyer declared, normalised: transport, version (null when not given) and features. */
export type PurchaseBuyerCapability = {
  __typename?: 'PurchaseBuyerCapability';
  features: Array<Scalars['String']['output']>;
  transportId: Scalars['String']['output'];
  version?: Maybe<Scalars['String']['output']>;
};

/** The buyer's public key: `type` is `x25519`, the key 64 lowercase hex characters. */
export type PurchaseBuyerKey = {
  __typename?: 'PurchaseBuyerKey';
  publicKeyHex: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

/** GET /purchases/:purchaseId/delivery: the session descriptor and the access prepared so far. */
export type PurchaseDelivery = {
  __typename?: 'PurchaseDelivery';
  /** Bought chunks only, in purchase order. */
  access: Array<PurchaseBuyerAccess>;
  delivery: PurchaseDeliverySession;
  purchaseId: Scalars['String']['output'];
  status: PurchaseStatus;
};

/** The negotiated p2p delivery session of a purchase. */
export type PurchaseDeliverySession = {
  __typename?: 'PurchaseDeliverySession';
  chunkIds: Array<Scalars['String']['output']>;
  encoding: Scalars['String']['output'];
  features: Array<Scalars['String']['output']>;
  /** A fresh handoff while PAID or DELIVERING; null after. */
  handoff?: Maybe<PurchaseHandoff>;
  /** p2p. */
  mode: Scalars['String']['output'];
  /** The live announcement's addresses, else those negotiated. */
  peer: PurchasePeer;
  protocols: Array<Scalars['String']['output']>;
  sessionId: Scalars['String']['output'];
  status: StreamDeliverySessionStatus;
  transportId: Scalars['String']['output'];
  version: Scalars['String']['output'];
};

/** A recorded purchase event and the purchase's status after it. */
export type PurchaseEvent = {
  __typename?: 'PurchaseEvent';
  actor: PurchaseEventActor;
  createdAt: Scalars['DateTime']['output'];
  /** Free-form JSON by design (up to 4 KiB), as the caller sent it. */
  data: Scalars['JSONObject']['output'];
  /** `spev_…`. */
  id: Scalars['String']['output'];
  purchaseId: Scalars['String']['output'];
  purchaseStatus: PurchaseStatus;
  /** buyer.connected, delivery.acknowledged, purchase.completed, delivery.failed or purchase.cancelled. */
  type: Scalars['String']['output'];
};

/** Who recorded a purchase event: the buyer or the seller. */
export type PurchaseEventActor = {
  __typename?: 'PurchaseEventActor';
  id: Scalars['String']['output'];
  /** buyer or seller. */
  type: Scalars['String']['output'];
};

/** Why a purchase failed: an error code and its message. */
export type PurchaseFailure = {
  __typename?: 'PurchaseFailure';
  code: Scalars['String']['output'];
  message: Scalars['String']['output'];
};

/** A connect handoff: shown once, presented by the buyer to the seller's delivery server. */
export type PurchaseHandoff = {
  __typename?: 'PurchaseHandoff';
  expiresAt: Scalars['DateTime']['output'];
  /** `shof_` + 43 base64url characters. */
  token: Scalars['String']['output'];
};

/** A valid connect handoff, as the seller's delivery server checks it. */
export type PurchaseHandoffGrant = {
  __typename?: 'PurchaseHandoffGrant';
  buyerId: Scalars['String']['output'];
  buyerPublicKeyHex: Scalars['String']['output'];
  chunkIds: Array<Scalars['String']['output']>;
  /** The handoff's expiry. */
  expiresAt: Scalars['DateTime']['output'];
  machineId: Scalars['String']['output'];
  purchaseId: Scalars['String']['output'];
  purchaseStatus: PurchaseStatus;
  sessionId: Scalars['String']['output'];
  transportId: Scalars['String']['output'];
};

/** The p2p delivery negotiated between the seller's live capabilities and the buyer's. */
export type PurchaseNegotiatedDelivery = {
  __typename?: 'PurchaseNegotiatedDelivery';
  encoding: Scalars['String']['output'];
  features: Array<Scalars['String']['output']>;
  /** p2p. */
  mode: Scalars['String']['output'];
  peer: PurchasePeer;
  protocols: Array<Scalars['String']['output']>;
  transportId: Scalars['String']['output'];
  version: Scalars['String']['output'];
};

/** The seller's delivery server as negotiated: machine, addresses, libp2p peer ID (null for tcp). */
export type PurchasePeer = {
  __typename?: 'PurchasePeer';
  addresses: Array<Scalars['String']['output']>;
  machineId: Scalars['String']['output'];
  peerId?: Maybe<Scalars['String']['output']>;
};

/** A purchase's price: the listing's, or its pricePerChunk times the chosen chunks. */
export type PurchasePrice = {
  __typename?: 'PurchasePrice';
  amount: Scalars['String']['output'];
  currency: Scalars['String']['output'];
};

/** What a purchase buys: a stream listing (`type` is `stream.listing`) and its chunk selection. */
export type PurchaseResource = {
  __typename?: 'PurchaseResource';
  listingId: Scalars['String']['output'];
  selection: PurchaseSelection;
  type: Scalars['String']['output'];
};

/** The chunks a purchase buys. */
export type PurchaseSelection = {
  __typename?: 'PurchaseSelection';
  chunkIds: Array<Scalars['String']['output']>;
};

/** DELIVERY_RESERVING -> PAYMENT_PENDING | FAILED | CANCELLED; PAYMENT_PENDING -> PAID | CANCELLED | EXPIRED; PAID -> DELIVERING -> DELIVERED | FAILED; DELIVERED -> COMPLETED (REST: lowercase). */
export enum PurchaseStatus {
  Cancelled = 'CANCELLED',
  Completed = 'COMPLETED',
  Delivered = 'DELIVERED',
  Delivering = 'DELIVERING',
  DeliveryReserving = 'DELIVERY_RESERVING',
  Expired = 'EXPIRED',
  Failed = 'FAILED',
  Paid = 'PAID',
  PaymentPending = 'PAYMENT_PENDING'
}

export type Query = {
  __typename?: 'Query';
  /** GET /machines/:machineId/agent-pairings */
  agentPairings: AgentPairingPage;
  /** GET /altchain/mcr/{altchain_addr}: base58 32-byte key. */
  altchainMcr: AltchainMcr;
  /** GET /altchain/operator/{altchain_addr}/machines */
  altchainOperatorMachines: AltchainOperatorMachines;
  /** Operator: the evidence, if it may be attested now (not attested, not expired, machine still active with the same DID controller and chain). */
  attestableChipEvidence: ChipEvidenceRecord;
  /** GET /audit-events?machineId=&kind=&actorType=&actorId=&since=&until= (newest first) */
  auditEvents: AuditEventPage;
  /** GET /delivery-transports */
  deliveryTransports: Array<DeliveryTransport>;
  /** GET /health */
  health: HealthReport;
  /** A machine by its decimal ID, for reading across subgraphs: answers for every machine the machine registry or the identity registry knows, each field null where its subgraph has nothing; null when no subgraph knows the ID. */
  machine?: Maybe<Machine>;
  /** GET /machines/{machineId}/agents. */
  machineAgents: MachineAgentPage;
  /** True when `machineSession` is the machine's authority now; its error (MACHINE_IDENTITY_PROOF_*) otherwise. */
  machineAuthority: Scalars['Boolean']['output'];
  /** GET /machines/{machine_id}: by decimal on-chain machine ID. */
  machineCard: MachineCard;
  /** GET /machines/:machineId/graph */
  machineGraph: MachineGraph;
  /** GET /machine/{key}/monetization: key is a DID or a decimal machine ID. */
  machineMonetization: MonetizationState;
  /** GET /machines/:machineId/outcomes */
  machineOutcomes: MarketOutcomePage;
  /** GET /machine/{did} */
  machineProfile: MachineProfile;
  /** GET /machines/:machineId/routes */
  machineRoutes: MarketRoutePage;
  /** GET /machines/:machineId/stream/orders (the machine's agent) */
  machineStreamOrders: StreamOrderPage;
  /** GET /machines/:machineId/tasks/:taskId */
  machineTask: MarketTask;
  /** GET /machines/:machineId/tasks (newest first) */
  machineTasks: MarketTaskPage;
  /** Verification record of a machine homed on the primary chain (GET /v1/verify/machines/{machineId}). */
  machineVerification: MachineVerificationRecord;
  /** GET /machines/{machineId}: re-verifies the stored proof (per block). */
  marketMachine: MarketMachine;
  /** GET /machines: records with a stored identity proof (not re-checked). */
  marketMachines: MarketMachinePage;
  /** Checks the operator's credential alone: true, or OPERATOR_AUTH_REQUIRED / OPERATOR_AUTH_INVALID. */
  marketOperatorAuthority: Scalars['Boolean']['output'];
  /** GET /market/orders/:orderId */
  marketOrder: MarketOrder;
  /** GET /market/orders/:orderId/payment */
  marketOrderPayment: MarketPayment;
  /** GET /market/orders?machineId= */
  marketOrders: MarketOrderPage;
  /** GET /policies (newest first) */
  marketPolicies: MarketPolicyPage;
  /** GET /policies/:policyId */
  marketPolicy: MarketPolicy;
  /** GET /runs/:runId */
  marketRun: MarketRun;
  /** GET /runs?machineId=&taskId=&status=&providerKey=&since=&until= (machineId required) */
  marketRuns: MarketRunPage;
  /** GET /market/services/:serviceId */
  marketService: MarketService;
  /** GET /market/services */
  marketServices: MarketServicePage;
  /** GET /market/skills */
  marketSkills: Array<MarketSkill>;
  /** GET /mcr/{did}: V1 takes did:<m>:0x<address> or 0x<address>, V2 did:<m>:<decimal>. */
  mcrScorecard: McrScorecard;
  /** GET /.well-known/<namespace>-monetization. With `wellKnownName`, NOT_FOUND unless it is that name. */
  monetizationCompatibility: MonetizationCompatibility;
  /** GET /operator/{did}/machines: offset 0 or more, limit 1 to 20. */
  operatorMachines: OperatorMachines;
  /** GET /payment-rails: transfer (chains, token, payTo) and x402. */
  paymentRails: Array<PaymentRail>;
  /** Operator: accepted evidence awaiting a chip attestation. */
  pendingChipEvidence: Array<ChipEvidenceRecord>;
  /** GET /purchases/:purchaseId: the buyer (pairing token) or the seller's agent */
  purchase: Purchase;
  /** GET /ready */
  readiness: ReadinessReport;
  /** GET /machines/{machineId}/runtime-endpoints/{providerKey}. */
  runtimeEndpoint: RuntimeEndpoint;
  /** GET /machines/{machineId}/runtime-endpoints. */
  runtimeEndpoints: RuntimeEndpointPage;
  /** GET /stream/chunks/{chunkId}/buyer-access?buyerId=. */
  streamBuyerAccess: StreamBuyerAccessList;
  /** A chunk's manifest and storage state (public: manifests carry no key). */
  streamChunk: StreamChunk;
  /** GET /stream/chunks/{chunkId}/data: the delivery token checked. */
  streamChunkDownload: StreamChunkDownloadTarget;
  /** PUT /stream/chunks/{chunkId}/data, step 1: authorise the agent. */
  streamChunkUploadTarget: StreamChunkUploadTarget;
  /** GET /stream/listings/{listingId}. */
  streamListing: StreamListing;
  /** GET /stream/listings/{listingId}/chunks. */
  streamListingChunks: StreamListingChunksPage;
  /** GET /stream/listings. */
  streamListings: StreamListingPage;
  /** GET /stream/orders/:orderId */
  streamOrder: StreamOrder;
  /** GET /machines/{machineId}/stream/policies. */
  streamPolicies: StreamPolicyPage;
  /** GET /metadata/{token_id}: by MachineNFT token ID (decimal), not machine ID. */
  tokenMetadata: MachineProfile;
};


export type QueryAgentPairingsArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  machineId: Scalars['String']['input'];
};


export type QueryAltchainMcrArgs = {
  altchainAddress: Scalars['String']['input'];
};


export type QueryAltchainOperatorMachinesArgs = {
  altchainAddress: Scalars['String']['input'];
  limit?: Scalars['Int']['input'];
  offset?: Scalars['Int']['input'];
};


export type QueryAttestableChipEvidenceArgs = {
  receiptId: Scalars['String']['input'];
};


export type QueryAuditEventsArgs = {
  actorId?: InputMaybe<Scalars['String']['input']>;
  actorType?: InputMaybe<Scalars['String']['input']>;
  cursor?: InputMaybe<Scalars['String']['input']>;
  kind?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  machineId?: InputMaybe<Scalars['String']['input']>;
  since?: InputMaybe<Scalars['String']['input']>;
  until?: InputMaybe<Scalars['String']['input']>;
};


export type QueryMachineArgs = {
  machineId: Scalars['String']['input'];
};


export type QueryMachineAgentsArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  machineId: Scalars['String']['input'];
};


export type QueryMachineAuthorityArgs = {
  machineId: Scalars['String']['input'];
  machineSession?: InputMaybe<Scalars['String']['input']>;
  pairingToken?: InputMaybe<Scalars['String']['input']>;
};


export type QueryMachineCardArgs = {
  deployment?: RatingsDeployment;
  machineId: Scalars['String']['input'];
};


export type QueryMachineGraphArgs = {
  machineId: Scalars['String']['input'];
};


export type QueryMachineMonetizationArgs = {
  deployment?: RatingsDeployment;
  key: Scalars['String']['input'];
};


export type QueryMachineOutcomesArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  machineId: Scalars['String']['input'];
};


export type QueryMachineProfileArgs = {
  deployment?: RatingsDeployment;
  did: Scalars['String']['input'];
};


export type QueryMachineRoutesArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  machineId: Scalars['String']['input'];
};


export type QueryMachineStreamOrdersArgs = {
  agent: StreamAgentInput;
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryMachineTaskArgs = {
  machineId: Scalars['String']['input'];
  taskId: Scalars['String']['input'];
};


export type QueryMachineTasksArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  machineId: Scalars['String']['input'];
  status?: InputMaybe<Scalars['String']['input']>;
};


export type QueryMachineVerificationArgs = {
  machineId: Scalars['String']['input'];
};


export type QueryMarketMachineArgs = {
  id: Scalars['String']['input'];
};


export type QueryMarketMachinesArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryMarketOperatorAuthorityArgs = {
  operatorToken?: InputMaybe<Scalars['String']['input']>;
};


export type QueryMarketOrderArgs = {
  orderId: Scalars['String']['input'];
};


export type QueryMarketOrderPaymentArgs = {
  orderId: Scalars['String']['input'];
};


export type QueryMarketOrdersArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  machineId: Scalars['String']['input'];
};


export type QueryMarketPoliciesArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  kind?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  status?: InputMaybe<Scalars['String']['input']>;
};


export type QueryMarketPolicyArgs = {
  policyId: Scalars['String']['input'];
};


export type QueryMarketRunArgs = {
  runId: Scalars['String']['input'];
};


export type QueryMarketRunsArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  machineId?: InputMaybe<Scalars['String']['input']>;
  providerKey?: InputMaybe<Scalars['String']['input']>;
  since?: InputMaybe<Scalars['String']['input']>;
  status?: InputMaybe<Scalars['String']['input']>;
  taskId?: InputMaybe<Scalars['String']['input']>;
  until?: InputMaybe<Scalars['String']['input']>;
};


export type QueryMarketServiceArgs = {
  serviceId: Scalars['String']['input'];
};


export type QueryMarketServicesArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  executionMode?: InputMaybe<Scalars['String']['input']>;
  from?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  providerKey?: InputMaybe<Scalars['String']['input']>;
  serviceType?: InputMaybe<Scalars['String']['input']>;
  skillKey?: InputMaybe<Scalars['String']['input']>;
  to?: InputMaybe<Scalars['String']['input']>;
};


export type QueryMcrScorecardArgs = {
  deployment?: RatingsDeployment;
  did: Scalars['String']['input'];
};


export type QueryMonetizationCompatibilityArgs = {
  deployment?: RatingsDeployment;
  wellKnownName?: InputMaybe<Scalars['String']['input']>;
};


export type QueryOperatorMachinesArgs = {
  deployment?: RatingsDeployment;
  did: Scalars['String']['input'];
  limit?: Scalars['Int']['input'];
  offset?: Scalars['Int']['input'];
};


export type QueryPendingChipEvidenceArgs = {
  limit?: Scalars['Int']['input'];
};


export type QueryPurchaseArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  pairingToken?: InputMaybe<Scalars['String']['input']>;
  purchaseId: Scalars['String']['input'];
};


export type QueryRuntimeEndpointArgs = {
  machineId: Scalars['String']['input'];
  providerKey: Scalars['String']['input'];
};


export type QueryRuntimeEndpointsArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  machineId: Scalars['String']['input'];
};


export type QueryStreamBuyerAccessArgs = {
  buyerId: Scalars['String']['input'];
  chunkId: Scalars['String']['input'];
};


export type QueryStreamChunkArgs = {
  chunkId: Scalars['String']['input'];
};


export type QueryStreamChunkDownloadArgs = {
  chunkId: Scalars['String']['input'];
  deliveryToken?: InputMaybe<Scalars['String']['input']>;
};


export type QueryStreamChunkUploadTargetArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  chunkId: Scalars['String']['input'];
};


export type QueryStreamListingArgs = {
  listingId: Scalars['String']['input'];
};


export type QueryStreamListingChunksArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  listingId: Scalars['String']['input'];
};


export type QueryStreamListingsArgs = {
  cursor?: InputMaybe<Scalars['String']['input']>;
  from?: InputMaybe<Scalars['String']['input']>;
  includeInactive?: InputMaybe<Scalars['Boolean']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  machineId?: InputMaybe<Scalars['String']['input']>;
  storageProvider?: InputMaybe<Scalars['String']['input']>;
  to?: InputMaybe<Scalars['String']['input']>;
};


export type QueryStreamOrderArgs = {
  orderId: Scalars['String']['input'];
};


export type QueryStreamPoliciesArgs = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  cursor?: InputMaybe<Scalars['String']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  machineId: Scalars['String']['input'];
};


export type QueryTokenMetadataArgs = {
  deployment?: RatingsDeployment;
  tokenId: Scalars['String']['input'];
};

/** `V1`: machines of the identity registry, address DIDs. `V2`: machines of the machine registry, decimal DIDs. */
export enum RatingsDeployment {
  V1 = 'V1',
  V2 = 'V2'
}

/** Readiness: `READY` when the RPC answers and every contract is callable, else `NOT_READY`. */
export type ReadinessReport = {
  __typename?: 'ReadinessReport';
  contracts: ContractReadiness;
  rpcConnected: Scalars['Boolean']['output'];
  status: ReadinessStatus;
};

/** Readiness status; REST spellings `ready` and `not_ready`. */
export enum ReadinessStatus {
  NotReady = 'NOT_READY',
  Ready = 'READY'
}

/** Last 30 days of revenue against the 30 before. */
export enum RevenueTrend {
  Down = 'DOWN',
  Insufficient = 'INSUFFICIENT',
  Stable = 'STABLE',
  Up = 'UP'
}

/** A catalogue service a discovered task could be routed to, best first. */
export type RouteCandidate = {
  __typename?: 'RouteCandidate';
  executionMode: Scalars['String']['output'];
  operation: Scalars['String']['output'];
  providerKey: Scalars['String']['output'];
  reasons: Array<Scalars['String']['output']>;
  score: Scalars['Float']['output'];
  serviceId: Scalars['String']['output'];
};

/** REST: none, api-key, bearer. */
export enum RuntimeAuthType {
  ApiKey = 'API_KEY',
  Bearer = 'BEARER',
  None = 'NONE'
}

/** A machine's runtime endpoint for one provider; the auth token is never echoed. */
export type RuntimeEndpoint = {
  __typename?: 'RuntimeEndpoint';
  authType: RuntimeAuthType;
  createdAt: Scalars['DateTime']['output'];
  /** Scheme, host and port only (path, query and fragment are stripped). */
  endpointBaseUrl: Scalars['String']['output'];
  hasAuthToken: Scalars['Boolean']['output'];
  label: Scalars['String']['output'];
  /** ISO 8601; set for agent-reported endpoints. */
  leaseExpiresAt?: Maybe<Scalars['DateTime']['output']>;
  /** False for an agent-reported endpoint whose lease lapsed. */
  live: Scalars['Boolean']['output'];
  /** Market machine ID. */
  machineId: Scalars['String']['output'];
  modelAlias?: Maybe<Scalars['String']['output']>;
  networkScope?: Maybe<RuntimeNetworkScope>;
  probePath: Scalars['String']['output'];
  /** Lowercased. */
  providerKey: Scalars['String']['output'];
  source: RuntimeEndpointSource;
  status: RuntimeEndpointStatus;
  updatedAt: Scalars['DateTime']['output'];
};

/** PUT /machines/{machineId}/runtime-endpoints/{providerKey} (public notes 2.4). */
export type RuntimeEndpointInput = {
  /** Stored encrypted; never returned. */
  authToken?: InputMaybe<Scalars['String']['input']>;
  /** Default BEARER with an authToken, else NONE. */
  authType?: InputMaybe<RuntimeAuthType>;
  /** http or https URL; path, query and fragment are stripped. */
  endpointBaseUrl: Scalars['String']['input'];
  /** Default `<PROVIDERKEY> runtime`. */
  label?: InputMaybe<Scalars['String']['input']>;
  /** ISO 8601 (manual endpoints rarely need one). */
  leaseExpiresAt?: InputMaybe<Scalars['String']['input']>;
  modelAlias?: InputMaybe<Scalars['String']['input']>;
  networkScope?: InputMaybe<RuntimeNetworkScope>;
  /** Default `/v1/models` for provider `qvac`, else `/health`. */
  probePath?: InputMaybe<Scalars['String']['input']>;
  /** Default ACTIVE. */
  status?: InputMaybe<RuntimeEndpointStatus>;
};

export type RuntimeEndpointPage = {
  __typename?: 'RuntimeEndpointPage';
  items: Array<RuntimeEndpoint>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** MANUAL (PUT) or AGENT (heartbeat, with a lease). */
export enum RuntimeEndpointSource {
  Agent = 'AGENT',
  Manual = 'MANUAL'
}

/** An agent-reported endpoint whose lease lapsed is served as UNREACHABLE until a heartbeat renews it. */
export enum RuntimeEndpointStatus {
  Active = 'ACTIVE',
  Degraded = 'DEGRADED',
  Unreachable = 'UNREACHABLE'
}

/** An upsert's result: `created` tells a new endpoint (REST 201) from an update (200). */
export type RuntimeEndpointUpsert = {
  __typename?: 'RuntimeEndpointUpsert';
  created: Scalars['Boolean']['output'];
  endpoint: RuntimeEndpoint;
};

export enum RuntimeNetworkScope {
  Lan = 'LAN',
  Loopback = 'LOOPBACK',
  Public = 'PUBLIC',
  Vpn = 'VPN'
}

/** The seller's machine agent (x-machine-agent-id / x-machine-agent-token on REST, or agentId / agentToken in the body). */
export type StreamAgentInput = {
  agentId?: InputMaybe<Scalars['String']['input']>;
  agentToken?: InputMaybe<Scalars['String']['input']>;
  machineId: Scalars['String']['input'];
};

/** A chunk key re-wrapped to a buyer (peaq.stream.buyer-access.v1). */
export type StreamBuyerAccess = {
  __typename?: 'StreamBuyerAccess';
  /** The peaq.stream.buyer-access.v1 document. A signed document, kept as JSON so its members and signature stay exactly as signed. */
  access: Scalars['JSONObject']['output'];
  buyerId: Scalars['String']['output'];
  chunkId: Scalars['String']['output'];
  createdAt: Scalars['DateTime']['output'];
  id: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  orderId?: Maybe<Scalars['String']['output']>;
  publicKeyHex: Scalars['String']['output'];
  purchaseId?: Maybe<Scalars['String']['output']>;
};

export type StreamBuyerAccessList = {
  __typename?: 'StreamBuyerAccessList';
  items: Array<StreamBuyerAccess>;
};

export type StreamBuyerAccessResult = {
  __typename?: 'StreamBuyerAccessResult';
  access: StreamBuyerAccess;
  created: Scalars['Boolean']['output'];
};

export type StreamChainReceipt = {
  __typename?: 'StreamChainReceipt';
  dataHash: Scalars['String']['output'];
  recordedAt: Scalars['DateTime']['output'];
  txHash: Scalars['String']['output'];
};

/** A chunk manifest as registered; its ciphertext is at storageRef once a checked upload stored it. */
export type StreamChunk = {
  __typename?: 'StreamChunk';
  agentId: Scalars['String']['output'];
  chunkId: Scalars['String']['output'];
  createdAt: Scalars['DateTime']['output'];
  encryptedDataHash: Scalars['String']['output'];
  encryptedSize: Scalars['Float']['output'];
  index: Scalars['Int']['output'];
  keyId: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  /** The chunk manifest. A signed document, kept as JSON so its members and signature stay exactly as signed. */
  manifest: Scalars['JSONObject']['output'];
  /** The agent's metadata (timeStart / timeEnd are read from it). Free-form JSON by design, stored and answered as written. */
  metadata?: Maybe<Scalars['JSONObject']['output']>;
  plaintextHash: Scalars['String']['output'];
  previousChunkId?: Maybe<Scalars['String']['output']>;
  storageRef?: Maybe<Scalars['String']['output']>;
  stored: Scalars['Boolean']['output'];
  storedVerifiedAt?: Maybe<Scalars['DateTime']['output']>;
};

/** Where a chunk's ciphertext is, for the holder of a delivery token covering it. */
export type StreamChunkDownloadTarget = {
  __typename?: 'StreamChunkDownloadTarget';
  chunkId: Scalars['String']['output'];
  encryptedDataHash: Scalars['String']['output'];
  encryptedSize: Scalars['Float']['output'];
  storageRef: Scalars['String']['output'];
};

export type StreamChunkResult = {
  __typename?: 'StreamChunkResult';
  chunk: StreamChunk;
  created: Scalars['Boolean']['output'];
};

/** Where an authorised upload goes (the shim streams the body there, then commits it). */
export type StreamChunkUploadTarget = {
  __typename?: 'StreamChunkUploadTarget';
  bucket: Scalars['String']['output'];
  chunkId: Scalars['String']['output'];
  encryptedDataHash: Scalars['String']['output'];
  encryptedSize: Scalars['Float']['output'];
  key: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
};

/** The delivery of a stream order, by its session's mode. */
export type StreamDelivery = StreamPlatformDelivery | StreamSellerDelivery;

/** A bought chunk of a platform delivery: its chunk data `url` (platform storage) or its storage `reference`. */
export type StreamDeliveryChunk = {
  __typename?: 'StreamDeliveryChunk';
  chunkId: Scalars['String']['output'];
  encryptedDataHash?: Maybe<Scalars['String']['output']>;
  encryptedSize?: Maybe<Scalars['Float']['output']>;
  /** The storage reference (walrus://, s3://, gdrive://) of a chunk stored outside the platform; else null. */
  reference?: Maybe<Scalars['String']['output']>;
  /** The chunk data route (a path on the markets listener; send the token as a bearer). Null when the chunk is stored outside the platform. */
  url?: Maybe<Scalars['String']['output']>;
};

/** REQUESTED -> PREPARING -> READY -> DELIVERED | FAILED; REQUESTED -> READY | FAILED; PREPARING -> FAILED (REST: lowercase). */
export enum StreamDeliverySessionStatus {
  Delivered = 'DELIVERED',
  Failed = 'FAILED',
  Preparing = 'PREPARING',
  Ready = 'READY',
  Requested = 'REQUESTED'
}

/** The receipt of an event envelope. */
export type StreamEventReceipt = {
  __typename?: 'StreamEventReceipt';
  agentId: Scalars['String']['output'];
  chainReceipt?: Maybe<StreamChainReceipt>;
  id: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  payloadHash: Scalars['String']['output'];
  policyId?: Maybe<Scalars['String']['output']>;
  policyVersion?: Maybe<Scalars['Int']['output']>;
  receivedAt: Scalars['DateTime']['output'];
  sequenceNumber: Scalars['Float']['output'];
  topic: Scalars['String']['output'];
};

export type StreamEventResult = {
  __typename?: 'StreamEventResult';
  created: Scalars['Boolean']['output'];
  receipt: StreamEventReceipt;
};

export type StreamHeartbeat = {
  __typename?: 'StreamHeartbeat';
  agentId: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  policyId?: Maybe<Scalars['String']['output']>;
  policyVersion?: Maybe<Scalars['Int']['output']>;
  receivedAt: Scalars['DateTime']['output'];
};

/** A listing: a machine's stored chunks for sale. Never plaintext, never a key. */
export type StreamListing = {
  __typename?: 'StreamListing';
  chunkCount: Scalars['Int']['output'];
  chunkIds: Array<Scalars['String']['output']>;
  createdAt: Scalars['DateTime']['output'];
  id: Scalars['String']['output'];
  identityRef?: Maybe<Scalars['String']['output']>;
  machineId: Scalars['String']['output'];
  price: StreamPrice;
  pricePerChunk?: Maybe<Scalars['String']['output']>;
  /** The data.stream catalogue service advertising it. */
  serviceId?: Maybe<Scalars['String']['output']>;
  status: StreamListingStatus;
  /** The scheme of the chunks' storage references (local, s3, ...). */
  storageProvider: Scalars['String']['output'];
  /** The latest end of its chunks' times. */
  timeEnd?: Maybe<Scalars['DateTime']['output']>;
  /** The earliest start of its chunks' times. */
  timeStart?: Maybe<Scalars['DateTime']['output']>;
  title: Scalars['String']['output'];
  topic?: Maybe<Scalars['String']['output']>;
  totalBytes: Scalars['Float']['output'];
  updatedAt: Scalars['DateTime']['output'];
};

export type StreamListingChunk = {
  __typename?: 'StreamListingChunk';
  chunkId: Scalars['String']['output'];
  encryptedSize: Scalars['Float']['output'];
  index: Scalars['Int']['output'];
  /** The signed manifest (wrapped keys only), kept as JSON so its members and signature stay exactly as signed. */
  manifest: Scalars['JSONObject']['output'];
  /** When the chunk was registered: a chunk signed by a since-revoked key is valid only if registered before the revocation. */
  registeredAt: Scalars['DateTime']['output'];
};

/** A listing's manifests in order and the machine's signing keys, to check before buying. */
export type StreamListingChunksPage = {
  __typename?: 'StreamListingChunksPage';
  items: Array<StreamListingChunk>;
  listingId: Scalars['String']['output'];
  /** The signer DID the manifests must carry. */
  machineDid?: Maybe<Scalars['String']['output']>;
  machineId: Scalars['String']['output'];
  nextCursor?: Maybe<Scalars['String']['output']>;
  signingKeys: Array<StreamSigningKey>;
};

export type StreamListingPage = {
  __typename?: 'StreamListingPage';
  items: Array<StreamListing>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** ACTIVE (on sale, in the catalogue) <-> INACTIVE (deactivated by its seller) (REST: lowercase). */
export enum StreamListingStatus {
  Active = 'ACTIVE',
  Inactive = 'INACTIVE'
}

/** A stream order (order-based flow, public notes 3.2). */
export type StreamOrder = {
  __typename?: 'StreamOrder';
  accessPreparedAt?: Maybe<Scalars['DateTime']['output']>;
  buyerId: Scalars['String']['output'];
  /** The buyer's X25519 public key, 64 lowercase hex characters. */
  buyerPublicKeyHex: Scalars['String']['output'];
  chunkIds: Array<Scalars['String']['output']>;
  createdAt: Scalars['DateTime']['output'];
  deliveredAt?: Maybe<Scalars['DateTime']['output']>;
  id: Scalars['String']['output'];
  listingId: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  paidAt?: Maybe<Scalars['DateTime']['output']>;
  /** The address whose transfer pays the order, bound at creation (payerAddress, or a buyerId that is an address). */
  payerAddress?: Maybe<Scalars['String']['output']>;
  /** The payment deadline: createdAt plus STREAM_ORDER_PAYMENT_TTL_SECONDS. An order still PAYMENT_PENDING at this moment expires. */
  paymentDueAt: Scalars['DateTime']['output'];
  /** The checked on-chain transfer: chainId, txHash, token, from, to, amountRaw, block, logIndex. */
  paymentProof?: Maybe<Scalars['JSONObject']['output']>;
  paymentReference?: Maybe<Scalars['String']['output']>;
  price: StreamOrderPrice;
  status: StreamOrderStatus;
  updatedAt: Scalars['DateTime']['output'];
};

/** The buyer's delivery of a stream order: the wrapped chunk keys and how to fetch the chunks. */
export type StreamOrderDelivery = {
  __typename?: 'StreamOrderDelivery';
  /** The peaq.stream.buyer-access.v1 documents of the bought chunks for the order's buyer and key, kept as JSON so their members and signatures stay exactly as signed. */
  access: Array<Scalars['JSONObject']['output']>;
  buyerId: Scalars['String']['output'];
  buyerPublicKeyHex: Scalars['String']['output'];
  chunkIds: Array<Scalars['String']['output']>;
  delivery: StreamDelivery;
  listingId: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  orderId: Scalars['String']['output'];
  /** ACCESS_PREPARED (seller delivery not marked yet) or DELIVERED. */
  status: StreamOrderStatus;
};

/** A delivery session of a stream order, as the seller's agent sees it. */
export type StreamOrderDeliverySession = {
  __typename?: 'StreamOrderDeliverySession';
  buyerId?: Maybe<Scalars['String']['output']>;
  buyerPublicKeyHex?: Maybe<Scalars['String']['output']>;
  chunkIds: Array<Scalars['String']['output']>;
  createdAt: Scalars['DateTime']['output'];
  deliveryUrl?: Maybe<Scalars['String']['output']>;
  id: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  message?: Maybe<Scalars['String']['output']>;
  /** platform | seller. */
  mode: Scalars['String']['output'];
  orderId?: Maybe<Scalars['String']['output']>;
  status: StreamDeliverySessionStatus;
  updatedAt: Scalars['DateTime']['output'];
};

export type StreamOrderDeliverySessionPage = {
  __typename?: 'StreamOrderDeliverySessionPage';
  items: Array<StreamOrderDeliverySession>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

export type StreamOrderPage = {
  __typename?: 'StreamOrderPage';
  items: Array<StreamOrder>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** A stream order's price: the listing's, or its pricePerChunk times the chosen chunks. */
export type StreamOrderPrice = {
  __typename?: 'StreamOrderPrice';
  amount: Scalars['String']['output'];
  currency: Scalars['String']['output'];
};

/** PAYMENT_PENDING -> PAID -> ACCESS_PREPARED -> DELIVERED; PAYMENT_PENDING -> CANCELLED | EXPIRED (REST: lowercase). */
export enum StreamOrderStatus {
  AccessPrepared = 'ACCESS_PREPARED',
  Cancelled = 'CANCELLED',
  Delivered = 'DELIVERED',
  Expired = 'EXPIRED',
  Paid = 'PAID',
  PaymentPending = 'PAYMENT_PENDING'
}

/** An on-chain payment proof: the transfer's chain and transaction. */
export type StreamPaymentProofInput = {
  /** Decimal chain ID. */
  chainId: Scalars['String']['input'];
  txHash: Scalars['String']['input'];
};

/** A platform delivery: a bearer delivery token scoped to the order's buyer and chunks, and where each chunk is. */
export type StreamPlatformDelivery = {
  __typename?: 'StreamPlatformDelivery';
  chunks: Array<StreamDeliveryChunk>;
  /** platform. */
  mode: Scalars['String']['output'];
  sessionId: Scalars['String']['output'];
  status: StreamDeliverySessionStatus;
  /** A fresh delivery token on every answer. */
  token: Scalars['String']['output'];
  tokenExpiresAt: Scalars['DateTime']['output'];
  /** Bearer. */
  tokenType: Scalars['String']['output'];
};

/** A stream capture policy; every update bumps version. */
export type StreamPolicy = {
  __typename?: 'StreamPolicy';
  /** Free-form JSON by design, stored and answered as written. */
  buffer: Scalars['JSONObject']['output'];
  createdAt: Scalars['DateTime']['output'];
  /** Free-form JSON by design, stored and answered as written. */
  destinations: Array<Scalars['JSONObject']['output']>;
  id: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  name: Scalars['String']['output'];
  /** Free-form JSON by design, stored and answered as written. */
  payload: Scalars['JSONObject']['output'];
  status: StreamPolicyStatus;
  /** Topic rules as written (checked on write). */
  topicRules: Array<Scalars['JSONObject']['output']>;
  updatedAt: Scalars['DateTime']['output'];
  version: Scalars['Int']['output'];
};

export type StreamPolicyInput = {
  /** Free-form JSON by design, stored and answered as written. */
  buffer?: InputMaybe<Scalars['JSONObject']['input']>;
  /** Free-form JSON by design, stored and answered as written. */
  destinations?: InputMaybe<Array<Scalars['JSONObject']['input']>>;
  name?: InputMaybe<Scalars['String']['input']>;
  /** Free-form JSON by design, stored and answered as written. */
  payload?: InputMaybe<Scalars['JSONObject']['input']>;
  /** active | paused | archived (default active). A string, not StreamPolicyStatus: the service checks it after the agent's credential, so a bad value is VALIDATION_ERROR only for the machine's own agent, on REST and GraphQL alike. */
  status?: InputMaybe<Scalars['String']['input']>;
  /** Topic rules { topic, messageType, qosPreset, depth?, fieldRules? } (docs/stream-marketplace.md). JSON because the service validates them after the agent's credential (VALIDATION_ERROR, as on REST). */
  topicRules?: InputMaybe<Array<Scalars['JSONObject']['input']>>;
};

export type StreamPolicyPage = {
  __typename?: 'StreamPolicyPage';
  items: Array<StreamPolicy>;
  nextCursor?: Maybe<Scalars['String']['output']>;
};

/** A capture policy's state (REST: lowercase). */
export enum StreamPolicyStatus {
  Active = 'ACTIVE',
  Archived = 'ARCHIVED',
  Paused = 'PAUSED'
}

export type StreamPrice = {
  __typename?: 'StreamPrice';
  /** Decimal string. */
  amount: Scalars['String']['output'];
  currency: Scalars['String']['output'];
};

export type StreamPriceInput = {
  /** Decimal string. */
  amount: Scalars['String']['input'];
  currency: Scalars['String']['input'];
};

/** A seller delivery: the seller agent's delivery URL; the agent marks it delivered itself. */
export type StreamSellerDelivery = {
  __typename?: 'StreamSellerDelivery';
  deliveryUrl?: Maybe<Scalars['String']['output']>;
  message?: Maybe<Scalars['String']['output']>;
  /** seller. */
  mode: Scalars['String']['output'];
  sessionId: Scalars['String']['output'];
  status: StreamDeliverySessionStatus;
};

/** An Ed25519 key a machine's stream agent registered (manifests and envelopes verify against it). */
export type StreamSigningKey = {
  __typename?: 'StreamSigningKey';
  agentId: Scalars['String']['output'];
  /** ed25519. */
  algorithm: Scalars['String']['output'];
  createdAt: Scalars['DateTime']['output'];
  id: Scalars['String']['output'];
  keyId: Scalars['String']['output'];
  machineId: Scalars['String']['output'];
  /** 32-byte public key, lowercase hex. */
  publicKeyHex: Scalars['String']['output'];
  revokedAt?: Maybe<Scalars['DateTime']['output']>;
  status: StreamSigningKeyStatus;
};

export type StreamSigningKeyResult = {
  __typename?: 'StreamSigningKeyResult';
  /** False when the same keyId and key were already registered. */
  created: Scalars['Boolean']['output'];
  key: StreamSigningKey;
};

/** ACTIVE -> REVOKED: a revoked key vouches only for chunks registered before its revokedAt (REST: lowercase). */
export enum StreamSigningKeyStatus {
  Active = 'ACTIVE',
  Revoked = 'REVOKED'
}

/** POST .../execute: httpStatus is the REST status (the provider's, 202 for a handoff). */
export type TaskExecution = {
  __typename?: 'TaskExecution';
  handoff?: Maybe<MarketHandoff>;
  httpStatus: Scalars['Int']['output'];
  outcome: MarketOutcome;
  run: MarketRun;
  task: MarketTask;
};

export type TopicStatus = {
  __typename?: 'TopicStatus';
  status: VerificationStatus;
};

/** The transfer rail: an ERC-20 transfer to payTo on one of the chains, proven by its transactionHash. */
export type TransferPaymentRail = {
  __typename?: 'TransferPaymentRail';
  chains: Array<PaymentRailChain>;
  payTo: Scalars['String']['output'];
  proof: Scalars['String']['output'];
  token: PaymentRailToken;
  type: Scalars['String']['output'];
};

/** POST /2fa/confirm: two-factor is active. */
export type TwoFactorConfirmation = {
  __typename?: 'TwoFactorConfirmation';
  ownerAddress: Scalars['String']['output'];
  twoFactorActive: Scalars['Boolean']['output'];
};

/** POST /2fa/setup: enrol an authenticator app. */
export type TwoFactorEnrolment = {
  __typename?: 'TwoFactorEnrolment';
  /** otpauth://totp/... carrying the secret; shown once. */
  otpauthUri: Scalars['String']['output'];
  ownerAddress: Scalars['String']['output'];
  /** The URI as a QR code: a PNG (or SVG) data URL. */
  qrImageUrl: Scalars['String']['output'];
};

/** PATCH: a new policy, or status active (resume) / paused (pause). */
export type UpdateAgentPairingInput = {
  delegationPolicy?: InputMaybe<DelegationPolicyInput>;
  description?: InputMaybe<Scalars['String']['input']>;
  /** active or paused (AgentPairingStatus in its stored spelling): a string, checked by the service after the machine's authority, so an unknown value answers VALIDATION_ERROR as on REST. */
  status?: InputMaybe<Scalars['String']['input']>;
};

/** PATCH /api/v1/machines/{machineId}: every field optional; identityRef immutable once set. */
export type UpdateMarketMachineInput = {
  capabilities?: InputMaybe<Array<Scalars['String']['input']>>;
  displayName?: InputMaybe<Scalars['String']['input']>;
  identityProof?: InputMaybe<IdentityProofInput>;
  identityRef?: InputMaybe<Scalars['String']['input']>;
  labels?: InputMaybe<Scalars['JSONObject']['input']>;
  machineType?: InputMaybe<Scalars['String']['input']>;
  ownerId?: InputMaybe<Scalars['String']['input']>;
  policyIds?: InputMaybe<Array<Scalars['String']['input']>>;
  runtimeProfile?: InputMaybe<Scalars['String']['input']>;
  skillKeys?: InputMaybe<Array<Scalars['String']['input']>>;
  status?: InputMaybe<MarketMachineStatus>;
};

/** `UNVERIFIED`: no record for the topic; `REVOKED` takes precedence over `EXPIRED`. REST spellings: `verified`, `unverified`, `expired`, `revoked`. */
export enum VerificationStatus {
  Expired = 'EXPIRED',
  Revoked = 'REVOKED',
  Unverified = 'UNVERIFIED',
  Verified = 'VERIFIED'
}

/** One status per topic; the two are independent and there is no aggregate flag. */
export type VerificationTopics = {
  __typename?: 'VerificationTopics';
  /** Bound to the machine ID. */
  chip: TopicStatus;
  /** Bound to the operator address. */
  kyb: TopicStatus;
};

/** The x402 rail (exact scheme) on the platform's home chain. */
export type X402PaymentRail = {
  __typename?: 'X402PaymentRail';
  asset: Scalars['String']['output'];
  extra: X402RailExtra;
  network: Scalars['String']['output'];
  payTo: Scalars['String']['output'];
  scheme: Scalars['String']['output'];
  type: Scalars['String']['output'];
  x402Version: Scalars['Int']['output'];
};

/** The x402 token's EIP-712 domain name and version. */
export type X402RailExtra = {
  __typename?: 'X402RailExtra';
  name: Scalars['String']['output'];
  version: Scalars['String']['output'];
};

export enum Join__Graph {
  Markets = 'MARKETS',
  Ratings = 'RATINGS',
  Verify = 'VERIFY'
}

export enum Link__Purpose {
  /** `EXECUTION` features provide metadata necessary for operation execution. */
  Execution = 'EXECUTION',
  /** `SECURITY` features provide metadata necessary to securely resolve fields. */
  Security = 'SECURITY'
}

export type MachineAcrossSubgraphsQueryVariables = Exact<{
  machineId: Scalars['String']['input'];
}>;


export type MachineAcrossSubgraphsQuery = { __typename?: 'Query', machine?: { __typename?: 'Machine', machineId: string, verification?: { __typename?: 'MachineVerificationRecord', machineDid: string, didController: { __typename?: 'AddressRef', address: string } } | null, rating?: { __typename?: 'McrScorecard', mcrScore: number, bondStatus: BondStatus } | null, monetization?: { __typename?: 'MonetizationState', status: MonetizationStatus } | null, marketMachine?: { __typename?: 'MarketMachine', id: string, displayName: string, status: MarketMachineStatus } | null } | null };

export type PendingChipEvidenceQueryVariables = Exact<{
  limit: Scalars['Int']['input'];
}>;


export type PendingChipEvidenceQuery = { __typename?: 'Query', pendingChipEvidence: Array<{ __typename?: 'ChipEvidenceRecord', receiptId: string, machineId: string, evidenceHash: string, acceptedAt: any }> };

export type MarketMachineWithOrdersQueryVariables = Exact<{
  id: Scalars['String']['input'];
  limit?: InputMaybe<Scalars['Int']['input']>;
}>;


export type MarketMachineWithOrdersQuery = { __typename?: 'Query', marketMachine: { __typename?: 'MarketMachine', id: string, displayName: string, skillKeys: Array<string> }, marketOrders: { __typename?: 'MarketOrderPage', nextCursor?: string | null, items: Array<{ __typename?: 'MarketOrder', id: string, status: MarketOrderStatus, skillKey: string }> } };


export const MachineAcrossSubgraphsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"MachineAcrossSubgraphs"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"machineId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"machine"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"machineId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"machineId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"machineId"}},{"kind":"Field","name":{"kind":"Name","value":"verification"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"machineDid"}},{"kind":"Field","name":{"kind":"Name","value":"didController"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"address"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"rating"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"mcrScore"}},{"kind":"Field","name":{"kind":"Name","value":"bondStatus"}}]}},{"kind":"Field","name":{"kind":"Name","value":"monetization"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"Field","name":{"kind":"Name","value":"marketMachine"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"displayName"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}}]}}]}}]} as unknown as DocumentNode<MachineAcrossSubgraphsQuery, MachineAcrossSubgraphsQueryVariables>;
export const PendingChipEvidenceDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"PendingChipEvidence"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"limit"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"pendingChipEvidence"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"Variable","name":{"kind":"Name","value":"limit"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"receiptId"}},{"kind":"Field","name":{"kind":"Name","value":"machineId"}},{"kind":"Field","name":{"kind":"Name","value":"evidenceHash"}},{"kind":"Field","name":{"kind":"Name","value":"acceptedAt"}}]}}]}}]} as unknown as DocumentNode<PendingChipEvidenceQuery, PendingChipEvidenceQueryVariables>;
export const MarketMachineWithOrdersDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"MarketMachineWithOrders"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"limit"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"marketMachine"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"displayName"}},{"kind":"Field","name":{"kind":"Name","value":"skillKeys"}}]}},{"kind":"Field","name":{"kind":"Name","value":"marketOrders"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"machineId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"Variable","name":{"kind":"Name","value":"limit"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"skillKey"}}]}},{"kind":"Field","name":{"kind":"Name","value":"nextCursor"}}]}}]}}]} as unknown as DocumentNode<MarketMachineWithOrdersQuery, MarketMachineWithOrdersQueryVariables>;