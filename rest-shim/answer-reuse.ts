/**
 * Reuse of a route's serialised success answer while the state it was computed from is still current.
 *
 * A route may declare (`reuseWhile`) that its success answer is a function of its GraphQL variables and one named
 * state only: no database row, no caller identity, no clock. The process that serves it hands the shim a version
 * source for that state (`AnswerVersions`): a function returning an object that stands for the state now, a new
 * object whenever the state may have changed and never an earlier one again, or null when it is unknown. The shim
 * then keeps the answer's bytes under the variables for as long as the version it was computed under is current:
 *
 * - the version is read before the operation runs and again when its answer is kept; an answer is kept only when
 *   both are the same object, so every read the operation made was answered in that one state;
 * - a different version empties the store at the next request, and null disables lookups and keeping alike;
 * - only success answers are kept (errors, 5xx and oversize answers always run the operation again);
 * - the store is bounded by the bytes it holds (emptied when full): a scan of IDs cannot grow it.
 *
 * Only role `all` gives versions (the shim, gateway and subgraphs share the chain reader there). The `rest` role
 * answers through a remote gateway and never reuses: it cannot tell which block that gateway read at. Several `all`
 * replicas each key on their own reader's block; a write anywhere (another replica, the operator CLI) reaches a
 * replica as a new block, exactly when its subgraph's own per-block caches would see it.
 */

/** States a route's answer may be declared a function of. */
export type AnswerBasis = "chainBlock";

/** The version source of each state this process can name; a missing entry means that state is never reused. */
export type AnswerVersions = Partial<Record<AnswerBasis, () => object | null>>;

export interface KeptAnswer {
  readonly status: number;
  readonly body: Buffer;
}

/** 4 MiB of answers per route; the verify read route's answers are under 1 KB (at most 4 KB by document 1). */
export const DEFAULT_ANSWER_STORE_BYTES = 4 * 1024 * 1024;

export class AnswerStore {
  private version: object | null = null;
  private readonly answers = new Map<string, KeptAnswer>();
  private bytes = 0;

  constructor(
    private readonly current: () => object | null,
    private readonly maxBytes = DEFAULT_ANSWER_STORE_BYTES,
  ) {}

  /** The version now (null: nothing may be reused), emptying the store when it differs from the kept answers'. */
  begin(): object | null {
    const version = this.current();
    if (version !== this.version) {
      this.answers.clear();
      this.bytes = 0;
      this.version = version;
    }
    return version;
  }

  lookup(version: object | null, key: string): KeptAnswer | undefined {
    return version === null ? undefined : this.answers.get(key);
  }

  /** Keeps `answer`, computed from `begin()`'s `version`, if that version is still current now. */
  keep(version: object | null, key: string, answer: KeptAnswer): void {
    if (version === null || this.begin() !== version) return;
    const size = answer.body.length + key.length;
    if (size > this.maxBytes) return;
    if (this.bytes + size > this.maxBytes) {
      this.answers.clear();
      this.bytes = 0;
    }
    const previous = this.answers.get(key);
    if (previous) this.bytes -= previous.body.length + key.length;
    this.answers.set(key, answer);
    this.bytes += size;
  }

  /** Answers held (tests and diagnostics). */
  get size(): number {
    return this.answers.size;
  }
}
