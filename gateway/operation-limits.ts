/**
 * What one GraphQL operation may cost before it runs, and how often one client may run it: the Apollo Server options
 * of the gateway's public listener.
 *
 * - Tokens: graphql-js's own `maxTokens` parse option, so parsing stops at the limit (an 11,000-alias document is
 *   refused after reading 1,000 tokens). graphql-armor's Apollo token plugin parses the document a second time and
 *   answers its refusal with 500, so it is not used.
 * - Depth, aliases, cost, directives: graphql-armor's validation rules; a refusal is a 400 whose message names the
 *   limit ("Aliases limit of 15 exceeded, found 3000.").
 * - Per-IP limits per root field (root-field-budgets.ts), counted after validation, before execution: a 429
 *   RATE_LIMITED naming the limit. Requests that the platform's own REST role forwards were counted there.
 * - Field suggestions ("Did you mean ...") are hidden in production, where introspection is off too.
 */
import type { ApolloServerOptions, ApolloServerPlugin } from "@apollo/server";
import { ApolloArmor } from "@escape.tech/graphql-armor";
import { GraphQLError } from "graphql";
import type { BearerTokens } from "../subgraphs/shared/bearer.js";
import type { GraphQLLimits, RateLimitConfig } from "../subgraphs/shared/config.js";
import type { SubgraphContext } from "../subgraphs/shared/context.js";
import type { CountedRule, RateLimiter } from "../rest-shim/rate-limit.js";
import type { RateLimitName } from "../rest-shim/routes.js";
import { selectedRootFields, type RootFieldBudget, type RootFieldKey } from "./root-field-budgets.js";

type CostOptions = Pick<ApolloServerOptions<SubgraphContext>, "plugins" | "validationRules" | "parseOptions" | "allowBatchedHttpRequests">;

export function costLimits(limits: GraphQLLimits, development: boolean): CostOptions {
  const armor = new ApolloArmor({
    maxTokens: { enabled: false },
    maxDepth: { n: limits.maxDepth },
    maxAliases: { n: limits.maxAliases },
    costLimit: { maxCost: limits.maxCost },
    maxDirectives: { n: limits.maxDirectives },
    blockFieldSuggestion: { enabled: !development },
  }).protect();
  return {
    // Casts: graphql-armor's declarations name the CommonJS build of @apollo/server's types, we load the ES build.
    plugins: armor.plugins as unknown as ApolloServerPlugin<SubgraphContext>[],
    validationRules: armor.validationRules as CostOptions["validationRules"],
    parseOptions: { maxTokens: limits.maxTokens },
    allowBatchedHttpRequests: false,
  };
}

export interface PerIpLimitsOptions {
  budgets: ReadonlyMap<RootFieldKey, RootFieldBudget>;
  limiter: RateLimiter;
  rateLimits: RateLimitConfig;
  /** The onboarding tokens, when this process is configured with them. */
  onboardingTokens: BearerTokens | undefined;
}

export function perIpLimits({ budgets, limiter, rateLimits, onboardingTokens }: PerIpLimitsOptions): ApolloServerPlugin<SubgraphContext> {
  const rule = (name: RateLimitName): CountedRule => ({ name, limit: rateLimits[name] });
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, contextValue }) {
          if (contextValue.countedUpstream || operation === undefined) return;
          let tokenAccepted: boolean | undefined;
          const counted: CountedRule[] = [];
          for (const field of selectedRootFields(operation, document)) {
            const budget = budgets.get(field);
            if (budget === undefined) throw new Error(`no per-IP budget for ${field}`);
            // A process that knows no onboarding tokens (a gateway role without ONBOARDING_TOKENS) counts every call.
            if (budget.onlyWithOnboardingToken && onboardingTokens !== undefined) {
              tokenAccepted ??= onboardingTokens.accepts(contextValue.authorization);
              if (!tokenAccepted) continue;
            }
            for (const name of budget.limits) counted.push(rule(name));
          }
          if (counted.length === 0) return;
          const exceeded = await limiter.exceeded(counted, contextValue.clientIp ?? "unknown");
          if (exceeded === undefined) return;
          throw new GraphQLError(
            `Too many requests: the per-IP limit ${exceeded.name} (${exceeded.limit} per ${rateLimits.windowMs} ms) is used up; retry later.`,
            { extensions: { code: "RATE_LIMITED", limit: exceeded.name, http: { status: 429 } } },
          );
        },
      };
    },
  };
}
