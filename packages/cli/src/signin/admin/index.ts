import { EXIT_USAGE, printResult, runCommand, type CommandIO } from '../../usage.js';
import { requireDatabase } from './common.js';
import { domainCommands } from './domain.js';
import { memberCommands } from './member.js';
import { clientCommands, providerCommands } from './provider.js';
import { realmCommands } from './realm.js';
import type { AdminCommands } from './types.js';
import { emailCommands, userCommands } from './user.js';

export const ADMIN_HELP = `Usage: conveyor signin admin <resource> <command> [options] [--json]

Reads AUTH_DATABASE_PATH and AUTH_REALMS_PATH like the server. USER is an id or a username.
Secrets are read from standard input (one trailing newline dropped). Bad input exits 2, writing nothing.
Only 'realm create' and 'user create' make the database when it does not exist yet.

  realm create --slug S [--display-name D] [--host H]... [--no-session-duration-choice]
  realm update S [--display-name D] [--status active|disabled] [--session-duration-choice true|false] [--branding JSON]
                                      (--status disabled ends the realm's sessions)
  realm add-host S --host H
  realm list
  domain add --realm S --domain D [--verified]
  domain verify --domain D
  user create --username U [--display-name D] [--password-stdin] [--email E [--verified] [--primary]] [--status active|disabled]
  user update USER [--status active|disabled] [--display-name D]   (--status disabled ends the user's sessions)
  user set-password USER --password-stdin                          (ends the user's sessions)
  email add --user USER --email E [--verified] [--primary]
  email verify --email E
  member add --realm S --user USER [--status active|suspended|invited] [--role SLUG]...
  member update --realm S --user USER [--status ...] [--role SLUG]...   (--role replaces the member's roles)
  provider add --realm S --slug P --display-name D --issuer URL --client-id ID --client-secret-stdin [--disabled]
  provider update --realm S --slug P --enabled true|false
  provider map-domain --realm S --domain D --provider P
  client add --realm S --client-id C --name N [--access-mode internal|members|public] [--redirect-uri URI]... [--require-role SLUG]...
`;

/** The commands that may make the first record (a tenant, or the first administrator); the rest need a database. */
const CREATES_DATABASE = new Set(['realm create', 'user create']);

const resources: Record<string, AdminCommands> = {
  realm: realmCommands,
  domain: domainCommands,
  user: userCommands,
  email: emailCommands,
  member: memberCommands,
  provider: providerCommands,
  client: clientCommands,
};

/** `conveyor signin admin <resource> <command> ...` */
export async function runSigninAdmin(argv: string[], io: CommandIO): Promise<number> {
  const [resource, command, ...rest] = argv;
  if (resource === undefined) {
    io.stderr(ADMIN_HELP);
    return EXIT_USAGE;
  }
  if (resource === '--help' || resource === '-h' || resource === 'help') {
    io.stdout(ADMIN_HELP);
    return 0;
  }
  const run = command === undefined ? undefined : resources[resource]?.[command];
  if (run === undefined) {
    io.stderr(`error: unknown admin command '${[resource, command].filter(Boolean).join(' ')}'\n${ADMIN_HELP}`);
    return EXIT_USAGE;
  }
  const json = rest.includes('--json');
  return runCommand(io, json, async () => {
    if (!CREATES_DATABASE.has(`${resource} ${command}`)) requireDatabase(io);
    printResult(io, await run(rest, io), json);
    return 0;
  });
}
