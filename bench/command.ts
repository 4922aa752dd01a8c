// Every benchmark file also runs alone as a command.

/** Runs `bench` and exits: 0 when done (pools and timers may still hold the event loop), 1 on an error. */
export function runAsCommand(bench: () => Promise<void>): void {
  bench().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
