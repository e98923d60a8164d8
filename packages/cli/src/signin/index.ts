import { EXIT_USAGE, type CommandGroup } from '../usage.js';
import { runSigninAdmin } from './admin/index.js';
import { runSigninServe } from './serve.js';

export const SIGNIN_HELP = `Usage: conveyor signin <command>

  serve                  run the sign-in service (AUTH_DATABASE_PATH, AUTH_REALMS_PATH, AUTH_PORT, AUTH_HOST)
  admin <resource> ...   manage realms, domains, users, emails, members, providers and clients

Run \`conveyor signin admin --help\` for the admin commands.
`;

export const runSignin: CommandGroup = async (argv, io) => {
  const [command, ...rest] = argv;
  if (command === 'serve') return runSigninServe(rest, io);
  if (command === 'admin') return runSigninAdmin(rest, io);
  if (command === '--help' || command === '-h' || command === 'help') {
    io.stdout(SIGNIN_HELP);
    return 0;
  }
  if (command === undefined) {
    io.stderr(SIGNIN_HELP);
    return EXIT_USAGE;
  }
  io.stderr(`error: unknown signin command '${command}'\n${SIGNIN_HELP}`);
  return EXIT_USAGE;
};
