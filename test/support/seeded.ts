/** Reproducible random draws (a linear congruential generator), so that a failure of a randomised test repeats. */
export function seeded(seed: number) {
  let state = seed >>> 0;
  /** The next draw in [0, 1). */
  const next = () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
  return {
    next,
    /** True with probability `p`. */
    chance: (p: number) => next() < p,
    /** One of `values`. */
    pick: <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!,
    /** An integer in [0, n). */
    below: (n: number) => Math.floor(next() * n),
  };
}

export type Seeded = ReturnType<typeof seeded>;
