/**
 * Barriers that order events between a test and the code under test, instead of sleeps:
 *
 *   const gate = holdFirst();                    // the first caller waits inside the product code ...
 *   const first = postEvidence(p, evidence);     // ... e.g. the evidence checker, inside its lease
 *   await gate.entered;                          // it is now held: the state the test wants is certain
 *   ...                                          // act while it is held
 *   gate.release();                              // let it finish
 */
export interface Gate {
  /** Resolves when the first caller has arrived and is held. */
  readonly entered: Promise<void>;
  /** Lets the held caller (and every later caller) through. */
  release(): void;
  /** Called by the wrapped code: the first call waits for `release()`; later calls pass at once. */
  pass(): Promise<void>;
}

export function holdFirst(): Gate {
  let arrived!: () => void;
  let released!: () => void;
  const entered = new Promise<void>((resolve) => (arrived = resolve));
  const opened = new Promise<void>((resolve) => (released = resolve));
  let calls = 0;
  return {
    entered,
    release: () => released(),
    async pass() {
      calls += 1;
      if (calls > 1) return;
      arrived();
      await opened;
    },
  };
}
