import { addClient, addProvider, ACCESS_MODES, mapDomainProvider, updateProvider } from '@conveyor/signin';
import { readSecretFromStdin, UsageError } from '../../usage.js';
import { list, oneOf, parseBooleanWord, parseOptions, required, withAdmin } from './common.js';
import type { AdminCommands } from './types.js';

export const providerCommands: AdminCommands = {
  async add(argv, io) {
    const { values } = parseOptions(argv, {
      realm: { type: 'string' },
      slug: { type: 'string' },
      'display-name': { type: 'string' },
      issuer: { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret-stdin': { type: 'boolean' },
      disabled: { type: 'boolean' },
    });
    if (values['client-secret-stdin'] !== true) throw new UsageError('--client-secret-stdin is required (the secret is read from standard input)');
    const input = {
      realm: required(values.realm, 'realm'),
      slug: required(values.slug, 'slug'),
      displayName: required(values['display-name'], 'display-name'),
      issuer: required(values.issuer, 'issuer'),
      clientId: required(values['client-id'], 'client-id'),
      enabled: values.disabled !== true,
    };
    const clientSecret = await readSecretFromStdin(io);
    return withAdmin(io, async (deps) => {
      const provider = await addProvider(deps, { ...input, clientSecret });
      // The secret is never printed.
      return { id: provider.id, slug: provider.slug, display_name: provider.display_name, issuer: provider.issuer, client_id: provider.client_id, enabled: provider.enabled };
    });
  },

  async update(argv, io) {
    const { values } = parseOptions(argv, { realm: { type: 'string' }, slug: { type: 'string' }, enabled: { type: 'string' } });
    const enabled = parseBooleanWord(required(values.enabled, 'enabled'), 'enabled') ?? true;
    const input = { realm: required(values.realm, 'realm'), slug: required(values.slug, 'slug'), enabled };
    return withAdmin(io, async (deps) => {
      const provider = await updateProvider(deps, input);
      return { slug: provider.slug, enabled: provider.enabled };
    });
  },

  async 'map-domain'(argv, io) {
    const { values } = parseOptions(argv, { realm: { type: 'string' }, domain: { type: 'string' }, provider: { type: 'string' } });
    const input = { realm: required(values.realm, 'realm'), domain: required(values.domain, 'domain'), provider: required(values.provider, 'provider') };
    return withAdmin(io, (deps) => mapDomainProvider(deps, input));
  },
};

export const clientCommands: AdminCommands = {
  async add(argv, io) {
    const { values } = parseOptions(argv, {
      realm: { type: 'string' },
      'client-id': { type: 'string' },
      name: { type: 'string' },
      'access-mode': { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      'require-role': { type: 'string', multiple: true },
    });
    const input = {
      realm: required(values.realm, 'realm'),
      clientId: required(values['client-id'], 'client-id'),
      name: required(values.name, 'name'),
      accessMode: oneOf(values['access-mode'], ACCESS_MODES, 'access-mode'),
      redirectUris: list(values['redirect-uri']),
      requireRoles: list(values['require-role']),
    };
    return withAdmin(io, async (deps) => {
      const client = await addClient(deps, input);
      return { id: client.id, client_id: client.client_id, name: client.name, access_mode: client.access_mode, redirect_uris: client.redirect_uris, required_roles: client.required_roles };
    });
  },
};
