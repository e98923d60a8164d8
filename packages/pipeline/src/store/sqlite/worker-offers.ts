import type { PipelineStore } from '../types.js';
import type { Db } from './database.js';

type OfferMethods = Pick<PipelineStore, 'recordWorkerOffer' | 'listLiveWorkerOffers'>;

/** What workers last offered in a claim, for explaining why a task waits. */
export function createWorkerOfferMethods(db: Db): OfferMethods {
  // Written only when the offer changed or the last sighting is a few seconds old, sparing the claim path.
  const record = db.prepare(`
    UPDATE workers SET last_seen_at = @now, offered_arches = @arches, offered_features = @features
    WHERE id = @id
      AND (last_seen_at IS NULL OR last_seen_at < @now - 5000 OR offered_arches IS NOT @arches OR offered_features IS NOT @features)`);
  const live = db.prepare<[number], { owner_user_id: string | null; offered_arches: string; offered_features: string | null }>(`
    SELECT owner_user_id, offered_arches, offered_features FROM workers
    WHERE revoked_at IS NULL AND last_seen_at >= ? AND offered_arches IS NOT NULL`);
  return {
    async recordWorkerOffer(id, offer, now) {
      record.run({ id, now, arches: JSON.stringify(offer.arches), features: JSON.stringify(offer.features) });
    },
    async listLiveWorkerOffers(seenSince) {
      return live.all(seenSince).map((row) => ({
        ownerUserId: row.owner_user_id,
        arches: JSON.parse(row.offered_arches) as string[],
        features: JSON.parse(row.offered_features ?? '[]') as string[],
      }));
    },
  };
}
