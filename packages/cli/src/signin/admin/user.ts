import { addEmail, createUser, setUserPassword, updateUser, USER_STATUSES, verifyEmail, type User } from '@conveyor/signin';
import { readSecretFromStdin, UsageError } from '../../usage.js';
import { oneOf, optional, parseOptions, required, withAdmin } from './common.js';
import type { AdminCommands } from './types.js';

const toUserView = (user: User) => ({ id: user.id, username: user.username, display_name: user.display_name, status: user.status, home_realm_id: user.home_realm_id });

export const userCommands: AdminCommands = {
  async create(argv, io) {
    const { values } = parseOptions(argv, {
      username: { type: 'string' },
      'display-name': { type: 'string' },
      'password-stdin': { type: 'boolean' },
      email: { type: 'string' },
      verified: { type: 'boolean' },
      primary: { type: 'boolean' },
      status: { type: 'string' },
    });
    const email = optional(values.email);
    if (email === undefined && (values.verified === true || values.primary === true)) throw new UsageError('--verified and --primary need --email');
    const input = {
      username: required(values.username, 'username'),
      displayName: optional(values['display-name']),
      status: oneOf(values.status, USER_STATUSES, 'status'),
      email: email === undefined ? undefined : { email, verified: values.verified === true, primary: values.primary === true },
      password: values['password-stdin'] === true ? await readSecretFromStdin(io) : undefined,
    };
    return withAdmin(io, async (deps) => {
      const user = await createUser(deps, input);
      return { id: user.id, username: user.username };
    });
  },

  async update(argv, io) {
    const { values, positionals } = parseOptions(argv, { status: { type: 'string' }, 'display-name': { type: 'string' } }, 1);
    const input = { status: oneOf(values.status, USER_STATUSES, 'status'), displayName: optional(values['display-name']) };
    return withAdmin(io, async (deps) => toUserView(await updateUser(deps, positionals[0] ?? '', input)));
  },

  async 'set-password'(argv, io) {
    const { values, positionals } = parseOptions(argv, { 'password-stdin': { type: 'boolean' } }, 1);
    if (values['password-stdin'] !== true) throw new UsageError('--password-stdin is required (the password is read from standard input)');
    const password = await readSecretFromStdin(io);
    return withAdmin(io, async (deps) => {
      const user = await setUserPassword(deps, positionals[0] ?? '', password);
      return { id: user.id, username: user.username };
    });
  },
};

export const emailCommands: AdminCommands = {
  async add(argv, io) {
    const { values } = parseOptions(argv, { user: { type: 'string' }, email: { type: 'string' }, verified: { type: 'boolean' }, primary: { type: 'boolean' } });
    const user = required(values.user, 'user');
    const input = { email: required(values.email, 'email'), verified: values.verified === true, primary: values.primary === true };
    return withAdmin(io, async (deps) => {
      const email = await addEmail(deps, user, input);
      return { id: email.id, user_id: email.user_id, email: email.email, verified: email.verified, is_primary: email.is_primary };
    });
  },

  async verify(argv, io) {
    const { values } = parseOptions(argv, { email: { type: 'string' } });
    const address = required(values.email, 'email');
    return withAdmin(io, async (deps) => {
      const email = await verifyEmail(deps, address);
      return { id: email.id, user_id: email.user_id, email: email.email, verified: email.verified };
    });
  },
};
