import { useEffect } from 'preact/hooks';

/** Each page names itself in the tab and for screen readers announcing the navigation. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title === '' ? 'Conveyor' : `${title} · Conveyor`;
  }, [title]);
}
