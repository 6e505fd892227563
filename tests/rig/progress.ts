/**
 * Progress of a runner step for a person watching: a line when it starts, one every 2 s while it runs
 * (a step of 1,000 resources takes a while), and one when it ends.
 */
const EVERY_MS = 2_000;

/** Starts reporting `command`; call the returned function when it ends. */
export function progress(out: ((line: string) => void) | false | undefined, command: string): () => void {
  const write =
    out === false
      ? undefined
      : (out ??
        (process.stderr.isTTY ? (line: string) => void process.stderr.write(`${line}\n`) : undefined));
  if (!write) return () => undefined;
  const start = Date.now();
  const seconds = () => ((Date.now() - start) / 1000).toFixed(1);
  write(`secops runner: ${command} started`);
  const timer = setInterval(() => write(`secops runner: ${command} running (${seconds()} s)`), EVERY_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    write(`secops runner: ${command} ended after ${seconds()} s`);
  };
}
