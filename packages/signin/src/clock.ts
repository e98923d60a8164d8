/** The only thing tests mock: time. Everything that reads "now" receives a Clock. */
export interface Clock {
  now(): number;
}

export function createSystemClock(): Clock {
  return { now: () => Date.now() };
}

/** A clock that moves only when told to; for tests. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
  set(ms: number): void;
}

export function createManualClock(start = 1_700_000_000_000): ManualClock {
  let current = start;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
    set: (ms) => {
      current = ms;
    },
  };
}
