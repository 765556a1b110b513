/** Reading settings from the environment: the parsers every config section shares. */
export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

/** An integer setting; unset or empty gives the fallback, anything but an integer is refused at start. */
export function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer`);
  return Number(raw);
}

/** A comma-separated list; blanks dropped. */
export function list(raw: string | undefined): string[] {
  return (raw || "").split(",").map((item) => item.trim()).filter(Boolean);
}

/** A switch that is on unless set to `0` or `false`. */
export const off = (raw: string | undefined): boolean => raw === "0" || raw === "false";

/** LOG_LEVEL: info (default), error (`warn` is taken as error) or silent; anything else is refused at start. */
export function logLevel(raw: string | undefined): "silent" | "error" | "info" {
  if (raw === undefined || raw === "") return "info";
  if (raw === "warn") return "error";
  if (raw === "silent" || raw === "error" || raw === "info") return raw;
  throw new ConfigError("LOG_LEVEL must be info, error (or warn) or silent");
}
