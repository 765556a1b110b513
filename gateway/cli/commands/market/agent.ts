/**
 * `agent run`: a machine-side runtime agent for document 3. It enrols with the markets API (or takes an existing
 * agentToken), then sends a heartbeat every `--interval` seconds reporting one local endpoint with a lease of
 * `--lease` seconds, until stopped (Ctrl-C) or `--count` heartbeats were sent. Watching
 * `GET /api/v1/machines/<id>/runtime-endpoints` shows the lease renew while it runs and lapse after it stops.
 *
 * stdout: one JSON line per event (`enrolled` with the one-time agentToken, then one per `heartbeat`).
 */
import { loadConfig } from "../../../../subgraphs/shared/config.js";
import { machineSession } from "../../machine-session.js";
import { marketsClient, send, type Answer } from "../../platform.js";
import { CliError, parseOptions, printResult, progress, UsageError, type CliCommandGroup } from "../../command.js";

const USAGE = `Usage: cli agent run (--machine <mach_…> [--allow <keys>] [--label <text>] [--key <controller key>] | --token <agentToken>)
                     [--provider qvac] [--endpoint http://127.0.0.1:11434] [--lease 30] [--interval 10] [--count N]
                     [--api http://127.0.0.1:<MARKETS_PORT>]

Enrols a runtime agent for the market machine with the machine's authority (a session signed by its controller:
--key, MACHINE_CONTROLLER_PRIVATE_KEY, or the demo controller of demo.json), or uses --token / MACHINE_AGENT_TOKEN;
then sends a heartbeat every
--interval seconds reporting --endpoint for --provider with a lease of --lease seconds. Stops after --count
heartbeats, on Ctrl-C, or when the agent is revoked or its token refused (exit 1).
--allow: comma-separated provider keys the agent may report (default: --provider).`;

type ApiAnswer = Answer;

/** POST `route` (under /api/v1) on the markets API at `base`, through the client package. */
const call = (base: string, route: string, body: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer> => send(marketsClient(base), "POST", route, { body, headers });

function number(raw: string | undefined, fallback: number, flag: string, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new UsageError(`${flag} must be a number >= ${min}\n\n${USAGE}`);
  return value;
}

/** Errors that no later heartbeat can fix. */
const FINAL_CODES = new Set(["AGENT_AUTH_INVALID", "AGENT_AUTH_REQUIRED", "AGENT_PAIRING_INACTIVE", "AGENT_POLICY_DENIED", "VALIDATION_ERROR", "NOT_FOUND"]);

export const agentCommands: CliCommandGroup = {
  subcommands: [
    {
      name: "run",
      summary: "enrol (or take a token) and send heartbeats until stopped",
      usage: USAGE,
      async run(args) {
        const options = parseOptions(
          args,
          {
            machine: { type: "string" },
            token: { type: "string" },
            allow: { type: "string" },
            label: { type: "string" },
            provider: { type: "string" },
            endpoint: { type: "string" },
            lease: { type: "string" },
            interval: { type: "string" },
            count: { type: "string" },
            api: { type: "string" },
            key: { type: "string" },
          },
          USAGE,
        );
        if (!options) return;
        const config = loadConfig();
        const base = options.api ?? `http://${config.host}:${config.marketsPort}`;
        const provider = options.provider ?? "qvac";
        const endpoint = options.endpoint ?? "http://127.0.0.1:11434";
        const lease = number(options.lease, 30, "--lease", 1);
        const interval = number(options.interval, 10, "--interval", 0);
        const count = options.count === undefined ? Infinity : number(options.count, 1, "--count", 1);
        let token = options.token ?? process.env.MACHINE_AGENT_TOKEN;
        if (!token) {
          if (!options.machine) throw new UsageError(`give --machine to enrol, or --token\n\n${USAGE}`);
          const allowed = (options.allow ?? provider).split(",").map((key) => key.trim()).filter(Boolean);
          const session = await machineSession(base, options.machine, options.key);
          const enrolled = await call(
            base,
            `/machines/${encodeURIComponent(options.machine)}/agents/enrollment`,
            { allowedProviderKeys: allowed, label: options.label },
            { authorization: `Bearer ${session}` },
          );
          if (enrolled.status !== 201) throw new CliError(`enrolment refused: ${enrolled.status} ${enrolled.body?.error?.code ?? ""}`);
          token = enrolled.body.item.agentToken as string;
          printResult({ event: "enrolled", agentId: enrolled.body.item.agent.id, agentToken: token });
        }

        let stopped = false;
        const stop = () => {
          stopped = true;
        };
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
        try {
          for (let sent = 0; sent < count && !stopped; ) {
            let answer: ApiAnswer | null = null;
            try {
              answer = await call(base, "/machine-agents/heartbeat", { leaseSeconds: lease, endpoint: { providerKey: provider, endpointBaseUrl: endpoint } }, {
                authorization: `Bearer ${token}`,
              });
            } catch (error) {
              progress(`heartbeat failed: ${(error as Error).message}; retrying`);
            }
            if (answer) {
              sent += 1;
              if (answer.status === 200) {
                printResult({ event: "heartbeat", agentId: answer.body.item.agent.id, status: answer.body.item.agent.status, leaseExpiresAt: answer.body.item.leaseExpiresAt });
              } else {
                const code = answer.body?.error?.code ?? `HTTP_${answer.status}`;
                if (FINAL_CODES.has(code)) throw new CliError(`heartbeat refused: ${code}`);
                progress(`heartbeat refused: ${code}; retrying`);
              }
            }
            if (sent < count && !stopped) await new Promise((resolve) => setTimeout(resolve, interval * 1000));
          }
        } finally {
          process.removeListener("SIGINT", stop);
          process.removeListener("SIGTERM", stop);
        }
      },
    },
  ],
};
