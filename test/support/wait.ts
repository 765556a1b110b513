/**
 * Waiting for a state the product reaches by itself (a chain reader catching up with a block, a child process
 * writing a file). Never used to order events a test controls: those use barriers (barrier.ts) or clocks (clock.ts).
 * The timeout only turns a hang into a failure; it is no speed claim, so it is generous.
 */
export const DEFAULT_WAIT_MS = 30_000;

/** Polls `probe` until it returns a value other than undefined, and returns that value. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = DEFAULT_WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Polls `condition` until it holds. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
  await eventually(async () => ((await condition()) ? true : undefined), timeoutMs);
}
