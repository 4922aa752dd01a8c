// For what the service learns asynchronously (a Postgres notification): probes until `done`
// holds or the time is up, and returns the last value for the test to assert on.
export async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, withinMs = 3000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
