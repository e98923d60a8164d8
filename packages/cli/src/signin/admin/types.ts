import type { CommandIO } from '../../usage.js';

/** An admin command parses its argv, does its work and returns what to print. */
export type AdminCommand = (argv: string[], io: CommandIO) => Promise<unknown>;
export type AdminCommands = Record<string, AdminCommand>;
