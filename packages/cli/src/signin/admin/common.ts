import { existsSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig, openSigninAdmin, SigninError, type SigninDeps } from '@conveyor/signin';
import { UsageError, type CommandIO } from '../../usage.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

export type OptionValue = string | boolean | (string | boolean)[] | undefined;

export interface ParsedOptions {
  values: Record<string, OptionValue>;
  positionals: string[];
}

/** Parses a command's options strictly; unknown or malformed options are a UsageError. */
export function parseOptions(argv: string[], options: Options, positionals = 0): ParsedOptions {
  try {
    const parsed = parseArgs({ args: argv, options: { ...options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
    if (parsed.positionals.length !== positionals) {
      throw new UsageError(`expected ${positionals} positional argument(s), got ${parsed.positionals.length}`);
    }
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export function required(value: OptionValue, name: string): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optional(value: OptionValue): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function list(value: OptionValue): string[] | undefined {
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

export function parseBooleanWord(value: OptionValue, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--${name} must be true or false`);
}

export function oneOf<T extends string>(value: OptionValue, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
}

/** Refuses, before anything is opened, when the system database does not exist: an admin command run in the wrong directory must not make an empty one. */
export function requireDatabase(io: CommandIO): void {
  let databasePath;
  try {
    databasePath = loadConfig(io.env).databasePath;
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, 'invalid_config');
    throw error;
  }
  if (existsSync(databasePath)) return;
  throw new UsageError(
    `no database at ${databasePath}; start the server once (conveyor signin serve) or run 'conveyor signin admin realm create' or 'user create' first, ` +
      'or set AUTH_DATABASE_PATH to the database you mean',
    'no_database',
  );
}

/**
 * Opens the sign-in files for one command and closes them after. Domain refusals become
 * UsageErrors carrying the service's error code (exit 2; `{"error": code}` under --json).
 */
export async function withAdmin<T>(io: CommandIO, body: (deps: SigninDeps) => Promise<T> | T): Promise<T> {
  let admin;
  try {
    admin = await openSigninAdmin({ env: io.env });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, 'invalid_config');
    throw error;
  }
  try {
    return await body(admin.deps);
  } catch (error) {
    if (error instanceof SigninError) {
      // The code is named in the message too, so a person reading stderr sees what a script sees.
      const message = error.message.includes(error.code) ? error.message : `${error.code}: ${error.message}`;
      throw new UsageError(message, error.code);
    }
    throw error;
  } finally {
    await admin.close();
  }
}
