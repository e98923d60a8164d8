import { setFlagsFromString } from 'node:v8';

/**
 * V8 grows the old generation's limit by a factor it picks after each full collection (1.1 to 4), and it
 * counts external memory allocated since then (every request body chunk node's HTTP parser copies into
 * a new ArrayBuffer) against that limit. After a busy spell the factor is small, the headroom (about
 * 9 MB over a 16 MB heap) is less than the 32 MB of chunks between two young collections, and V8 then
 * marks the whole heap after every young collection: five to seven full collections a second during an
 * upload, a third of its throughput. A fixed factor of 4 keeps the headroom above that; the heap is
 * small, so this costs tens of MB at most. V8 reads the flag each time it sets the limit, so setting it
 * at start-up takes effect. See docs/benchmarks.md ("The artifact path").
 */
export function widenHeapGrowth(): void {
  setFlagsFromString('--heap-growing-percent=300');
}
