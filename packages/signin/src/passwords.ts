import { randomBytes } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';

/** OWASP's minimum for argon2id: 19 MiB, two passes, one lane. */
export const ARGON2ID_PARAMETERS = Object.freeze({
  algorithm: Algorithm.Argon2id,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
});

export interface PasswordHasher {
  /** Hashes a new password as an argon2id PHC string. */
  hashPassword(password: string): Promise<string>;
  /** Verifies against a stored PHC string, dispatching on its identifier; unknown formats never match. */
  verifyPassword(secretHash: string, password: string): Promise<boolean>;
  /**
   * Verifies against a hash made at start-up with the same parameters, and throws the result away:
   * the caller pays the cost of a real check when the account does not exist.
   */
  verifyDummy(password: string): Promise<void>;
}

/** Verifiers keyed by PHC identifier (`$argon2id$...` -> `argon2id`); imported formats get their own entry. */
type Verifier = (secretHash: string, password: string) => Promise<boolean>;

const verifyArgon2: Verifier = (secretHash, password) => verify(secretHash, password);

function readPhcIdentifier(secretHash: string): string {
  const match = /^\$([a-z0-9-]+)\$/.exec(secretHash);
  return match?.[1] ?? '';
}

/**
 * `precomputeDummy` (the server's default) hashes the dummy at start-up so the first failed sign-in
 * costs what the others do; the admin CLI, which never signs anyone in, skips it.
 */
export async function createPasswordHasher(options: { precomputeDummy?: boolean } = {}): Promise<PasswordHasher> {
  const verifiers: Record<string, Verifier> = {
    argon2id: verifyArgon2,
    argon2i: verifyArgon2,
    argon2d: verifyArgon2,
  };
  const hashPassword = (password: string): Promise<string> => hash(password, ARGON2ID_PARAMETERS);
  const makeDummy = () => hashPassword(randomBytes(18).toString('base64url'));
  let dummyHash: Promise<string> | undefined = options.precomputeDummy === false ? undefined : Promise.resolve(await makeDummy());
  const verifyDummy = async (password: string): Promise<void> => {
    dummyHash ??= makeDummy();
    await verifyArgon2(await dummyHash, password);
  };
  return {
    hashPassword,
    verifyDummy,
    async verifyPassword(secretHash, password) {
      const verifier = verifiers[readPhcIdentifier(secretHash)];
      if (verifier === undefined) {
        await verifyDummy(password);
        return false;
      }
      try {
        return await verifier(secretHash, password);
      } catch {
        // A corrupt stored hash is a failed check, not a server error.
        return false;
      }
    },
  };
}
