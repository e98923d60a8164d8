const started = process.hrtime.bigint();

/** A progress line on stdout, stamped with the seconds since the benchmark started. */
export function say(line: string): void {
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`[${seconds.toFixed(1).padStart(6)}s] ${line}`);
}

/** Calls `report` every `intervalMs` until the returned function is called. */
export function every(intervalMs: number, report: () => void): () => void {
  const timer = setInterval(report, intervalMs);
  return () => clearInterval(timer);
}
