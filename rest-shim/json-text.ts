/**
 * JSON text as document 2's upstream writes it (Starlette's JSONResponse: Python's `json.dumps` with compact
 * separators and raw UTF-8): integers of any size as bare digits, floats as Python's `repr` (`5000.0`, `1e+16`).
 * Values GraphQL carries as strings (uint256 IDs, cents) are written back as numbers with `rawInteger`.
 */
class RawJson {
  constructor(readonly text: string) {}
}

/** A decimal integer string written as a JSON number. */
export function rawInteger(decimal: string): RawJson {
  if (!/^-?(0|[1-9][0-9]*)$/.test(decimal)) throw new Error("not a decimal integer");
  return new RawJson(decimal);
}

/** A float written as Python's repr: shortest round-trip digits, `.0` on integral values, exponent past 1e16. */
export function pythonFloat(value: number): RawJson {
  if (!Number.isFinite(value)) throw new Error("JSON has no NaN or Infinity");
  if (value === 0) return new RawJson(Object.is(value, -0) ? "-0.0" : "0.0");
  const [mantissa, exponentText] = Math.abs(value).toExponential().split("e") as [string, string];
  const exponent = Number(exponentText);
  const digits = mantissa.replace(".", "");
  const sign = value < 0 ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    const significand = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return new RawJson(`${sign}${significand}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`);
  }
  if (exponent < 0) return new RawJson(`${sign}0.${"0".repeat(-exponent - 1)}${digits}`);
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  return new RawJson(`${sign}${whole}.${digits.slice(exponent + 1) || "0"}`);
}

export type JsonTextValue = null | boolean | number | string | RawJson | JsonTextValue[] | { [key: string]: JsonTextValue | undefined };

/** Serialises in insertion order; members whose value is `undefined` are left out. */
export function jsonText(value: JsonTextValue): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const members: string[] = [];
    for (const [key, member] of Object.entries(value)) {
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${jsonText(member)}`);
    }
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}
