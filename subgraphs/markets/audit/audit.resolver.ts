import { Arg, Int, Query, Resolver } from "type-graphql";
import type { MarketsDeps } from "../deps.js";
import { AuditEventPage } from "./audit.type.js";

const S = () => String;
const opt = { nullable: true } as const;

/** Audit-event reads skip the machine check (global rule 1). */
@Resolver()
export class AuditResolver {
  constructor(private readonly deps: MarketsDeps) {}

  @Query(() => AuditEventPage, { description: "GET /audit-events?machineId=&kind=&actorType=&actorId=&since=&until= (newest first)" })
  auditEvents(
    @Arg("machineId", S, opt) machineId: string | null,
    @Arg("kind", S, opt) kind: string | null,
    @Arg("actorType", S, opt) actorType: string | null,
    @Arg("actorId", S, opt) actorId: string | null,
    @Arg("since", S, opt) since: string | null,
    @Arg("until", S, opt) until: string | null,
    @Arg("limit", () => Int, opt) limit: number | null,
    @Arg("cursor", S, opt) cursor: string | null,
  ): Promise<AuditEventPage> {
    return this.deps.audit.list({ machineId, kind, actorType, actorId, since, until }, { limit, cursor });
  }
}
