import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Resource<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  /** Loads again, keeping the current data on screen meanwhile. */
  reload(): Promise<void>;
  /** Replaces the data in place (a live event's update). */
  set(update: (current: T | null) => T | null): void;
}

/** Loads `load()` when `key` changes; a late answer for an old key is dropped. */
export function useResource<T>(key: string, load: () => Promise<T>): Resource<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const loader = useRef(load);
  loader.current = load;

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const next = await loader.current();
      if (mine !== generation.current) return;
      setData(next);
      setError(null);
    } catch (caught) {
      if (mine === generation.current) setError(caught);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    setData(null);
    void reload();
  }, [key, reload]);

  return { data, error, loading, reload, set: setData };
}
