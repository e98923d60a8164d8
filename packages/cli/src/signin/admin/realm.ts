import { addRealmHost, createRealm, listRealms, REALM_STATUSES, updateRealm, type JsonObject } from '@conveyor/signin';
import { UsageError } from '../../usage.js';
import { list, oneOf, optional, parseBooleanWord, parseOptions, required, withAdmin } from './common.js';
import type { AdminCommands } from './types.js';

function parseBranding(value: string | undefined): JsonObject | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new UsageError('--branding must be a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError('--branding must be a JSON object');
  return parsed as JsonObject;
}

export const realmCommands: AdminCommands = {
  async create(argv, io) {
    const { values } = parseOptions(argv, {
      slug: { type: 'string' },
      'display-name': { type: 'string' },
      host: { type: 'string', multiple: true },
      'no-session-duration-choice': { type: 'boolean' },
    });
    const input = {
      slug: required(values.slug, 'slug'),
      displayName: optional(values['display-name']),
      hosts: list(values.host),
      allowSessionDurationChoice: values['no-session-duration-choice'] !== true,
    };
    return withAdmin(io, async (deps) => {
      const realm = await createRealm(deps.store, deps.clock, input);
      return { id: realm.id, slug: realm.slug };
    });
  },

  async update(argv, io) {
    const { values, positionals } = parseOptions(
      argv,
      { 'display-name': { type: 'string' }, status: { type: 'string' }, 'session-duration-choice': { type: 'string' }, branding: { type: 'string' } },
      1,
    );
    const input = {
      displayName: optional(values['display-name']),
      status: oneOf(values.status, REALM_STATUSES, 'status'),
      allowSessionDurationChoice: parseBooleanWord(values['session-duration-choice'], 'session-duration-choice'),
      branding: parseBranding(optional(values.branding)),
    };
    return withAdmin(io, (deps) => updateRealm(deps.store, deps.clock, positionals[0] ?? '', input));
  },

  async 'add-host'(argv, io) {
    const { values, positionals } = parseOptions(argv, { host: { type: 'string' } }, 1);
    const host = required(values.host, 'host');
    return withAdmin(io, (deps) => addRealmHost(deps.store, deps.clock, positionals[0] ?? '', host));
  },

  async list(argv, io) {
    parseOptions(argv, {});
    return withAdmin(io, (deps) => listRealms(deps.store));
  },
};
