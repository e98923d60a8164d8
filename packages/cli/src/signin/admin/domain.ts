import { addDomain, verifyDomain } from '@conveyor/signin';
import { parseOptions, required, withAdmin } from './common.js';
import type { AdminCommands } from './types.js';

export const domainCommands: AdminCommands = {
  async add(argv, io) {
    const { values } = parseOptions(argv, { realm: { type: 'string' }, domain: { type: 'string' }, verified: { type: 'boolean' } });
    const input = { realm: required(values.realm, 'realm'), domain: required(values.domain, 'domain'), verified: values.verified === true };
    return withAdmin(io, async (deps) => {
      const domain = await addDomain(deps, input);
      return { domain: domain.domain, verified: domain.verified, verification_token: domain.verification_token };
    });
  },

  async verify(argv, io) {
    const { values } = parseOptions(argv, { domain: { type: 'string' } });
    const domain = required(values.domain, 'domain');
    return withAdmin(io, async (deps) => {
      const verified = await verifyDomain(deps, { domain });
      return { domain: verified.domain, verified: verified.verified, verified_at: verified.verified_at };
    });
  },
};
