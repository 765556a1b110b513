/** Turning GraphQL arguments into what the services take. */
import { Arg } from "type-graphql";
import type { DomainError } from "../shared/errors.js";
import { canonicalDecimal, type Deployment } from "./identity/did.js";
import { RatingsDeployment } from "./scoring/mcr.type.js";

/** The `deployment: RatingsDeployment = V1` argument every document 2 field takes. */
export const DeploymentArg = () => Arg("deployment", () => RatingsDeployment, { defaultValue: RatingsDeployment.V1 });

export const deploymentArg = (deployment: RatingsDeployment): Deployment => (deployment === RatingsDeployment.V2 ? "v2" : "v1");

/** A canonical decimal below 2^256; anything else is answered with `notFound` (no such ID can exist). */
export function parseDecimalArg(text: string, notFound: () => DomainError): bigint {
  const value = canonicalDecimal(text);
  if (value === null) throw notFound();
  return value;
}
