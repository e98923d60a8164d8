import { addMember, MEMBERSHIP_STATUSES, updateMember, type MemberView } from '@conveyor/signin';
import { list, oneOf, parseOptions, required, withAdmin } from './common.js';
import type { AdminCommand, AdminCommands } from './types.js';

const toMemberView = (realm: string, member: MemberView) => ({ realm, user_id: member.user_id, status: member.status, roles: member.roles });

function memberCommand(save: typeof addMember): AdminCommand {
  return async (argv, io) => {
    const { values } = parseOptions(argv, { realm: { type: 'string' }, user: { type: 'string' }, status: { type: 'string' }, role: { type: 'string', multiple: true } });
    const input = {
      realm: required(values.realm, 'realm'),
      user: required(values.user, 'user'),
      status: oneOf(values.status, MEMBERSHIP_STATUSES, 'status'),
      roles: list(values.role),
    };
    return withAdmin(io, async (deps) => toMemberView(input.realm, await save(deps, input)));
  };
}

export const memberCommands: AdminCommands = {
  add: memberCommand(addMember),
  update: memberCommand(updateMember),
};
