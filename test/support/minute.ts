/** A burst that must fit in one minute window of the rate limiter: start it early in a minute. */
export async function atTheStartOfAMinute(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
}
