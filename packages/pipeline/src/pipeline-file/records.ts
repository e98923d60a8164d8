// Env and matrix keys are user-chosen and `__proto__` matches their pattern. Plain assignment or
// Object.assign would set the prototype instead of a key, so records are written with defineProperty.

export function putEntry(record: Record<string, string>, key: string, value: string): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Later records win. */
export function mergeRecords(...records: Record<string, string>[]): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const record of records) {
    for (const [key, value] of Object.entries(record)) putEntry(merged, key, value);
  }
  return merged;
}
