/**
 * Answers for requests no route took, per listener: 405 with `Allow` when the path is a route's path with another
 * method, 404 otherwise, each in the envelope of the area the path falls in. Runs only off the hot path (the router
 * has already missed), before any body is read.
 */
import type { PreparedResponse } from "./errors/table.js";
import { compilePathPattern, rawPathOf, type PathPattern } from "./path-pattern.js";
import type { RouteArea, RouteDefinition } from "./route-definition.js";

interface PathEntry {
  readonly pattern: PathPattern;
  readonly routes: ReadonlyMap<string, RouteDefinition>;
  readonly methodNotAllowed: PreparedResponse;
}

export interface PathIndex {
  /** The answer for a request whose method and path no route serves. */
  unmatched(method: string, url: string): PreparedResponse;
  /**
   * The answer for a request the router could not decode (a bad percent-escape, a parameter over the router's
   * length limit): the route's `invalidPathCode` when its path and method match, else as `unmatched`.
   */
  undecodable(method: string, url: string): PreparedResponse;
  /** The area of a request target, for failures outside any route. */
  areaOf(url: string): RouteArea;
}

export function buildPathIndex(routes: readonly RouteDefinition[], areas: readonly RouteArea[]): PathIndex {
  const byLongestPrefix = [...areas].sort((a, b) => b.prefix.length - a.prefix.length);
  const areaOf = (path: string): RouteArea => {
    const area = byLongestPrefix.find((candidate) => path.startsWith(candidate.prefix));
    if (!area) throw new Error(`no route area covers ${path}`);
    return area;
  };

  const grouped = new Map<string, Map<string, RouteDefinition>>();
  for (const route of routes) {
    const methods = grouped.get(route.path) ?? new Map<string, RouteDefinition>();
    methods.set(route.method, route);
    // Fastify serves HEAD for every GET route (the GET answer without its body).
    if (route.method === "GET") methods.set("HEAD", route);
    grouped.set(route.path, methods);
  }
  const entries: PathEntry[] = [...grouped].map(([path, methods]) => {
    const area = areaOf(path);
    const allow = [...methods.keys()].join(", ");
    return {
      pattern: compilePathPattern(path),
      routes: methods,
      methodNotAllowed: { ...area.methodNotAllowed, headers: { ...area.methodNotAllowed.headers, allow } },
    };
  });

  const unmatchedPath = (method: string, path: string): PreparedResponse => {
    const entry = entries.find((candidate) => candidate.pattern.matches(path));
    if (entry === undefined) return areaOf(path).notFound;
    return entry.routes.has(method) ? areaOf(path).notFound : entry.methodNotAllowed;
  };

  return {
    areaOf: (url) => areaOf(rawPathOf(url)),
    unmatched: (method, url) => unmatchedPath(method, rawPathOf(url)),
    undecodable(method, url) {
      const path = rawPathOf(url);
      const route = entries.find((candidate) => candidate.pattern.matches(path))?.routes.get(method);
      if (route?.invalidPathCode !== undefined) return route.errors.required(route.invalidPathCode);
      return unmatchedPath(method, path);
    },
  };
}
