/**
 * Route path patterns (`/v1/verify/machines/:machineId`) applied to the raw request path, compiled once.
 *
 * The router (find-my-way) matches percent-decoded paths; the shim reads parameters from the raw path instead, so a
 * parameter reaches GraphQL exactly as the client spelled it.
 */
export interface PathPattern {
  readonly pattern: string;
  /** True when the raw path has the pattern's shape (literal segments equal, parameters non-empty). */
  matches(rawPath: string): boolean;
  /** Parameters of a raw path the router has already matched to this pattern. */
  params(rawPath: string): Record<string, string>;
}

export function compilePathPattern(pattern: string): PathPattern {
  const segments = pattern.split("/");
  const parameters: Array<readonly [name: string, index: number]> = [];
  segments.forEach((segment, index) => {
    if (segment.startsWith(":")) parameters.push([segment.slice(1), index]);
  });
  return {
    pattern,
    matches(rawPath) {
      const parts = rawPath.split("/");
      if (parts.length !== segments.length) return false;
      for (let i = 0; i < parts.length; i++) {
        const segment = segments[i]!;
        if (segment.startsWith(":") ? parts[i] === "" : parts[i] !== segment) return false;
      }
      return true;
    },
    params(rawPath) {
      const parts = rawPath.split("/");
      const params: Record<string, string> = {};
      for (const [name, index] of parameters) params[name] = parts[index] ?? "";
      return params;
    },
  };
}

/** The path of a request target: everything before the query string. */
export function rawPathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}
