/** What a live worker last offered in a claim. */
export interface WorkerOffer {
  /** A user-owned worker takes only its owner's projects' tasks. */
  ownerUserId: string | null;
  arches: string[];
  features: string[];
}

/**
 * Why a waiting task has no worker that could take it, or null when some live worker could: no worker
 * at all, none allowed to take the project's tasks (only other users' own workers), none offering the
 * task's arch, or none offering its arch with every feature it requires.
 */
export function waitingReason(
  task: { arch: string; requires: readonly string[] },
  projectOwner: string | null,
  offers: readonly WorkerOffer[],
): string | null {
  if (offers.length === 0) return 'no worker is connected';
  const allowed = offers.filter((offer) => offer.ownerUserId === null || offer.ownerUserId === projectOwner);
  if (allowed.length === 0) return "no worker that may take this project's tasks is connected (only other users' own workers are)";
  const withArch = allowed.filter((offer) => offer.arches.includes(task.arch));
  if (withArch.length === 0) return `no worker offers arch ${task.arch}`;
  if (withArch.some((offer) => task.requires.every((feature) => offer.features.includes(feature)))) return null;
  const missing = task.requires.filter((feature) => !withArch.some((offer) => offer.features.includes(feature)));
  if (missing.length > 0) return `no worker offers the ${missing.length === 1 ? 'feature' : 'features'} ${missing.join(', ')}`;
  return `no worker offers arch ${task.arch} with all of the features ${task.requires.join(', ')}`;
}
