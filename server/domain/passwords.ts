// Password hashing with argon2id at OWASP's recommended parameters.
import argon2 from 'argon2';

// OWASP Password Storage Cheat Sheet: argon2id, m=19 MiB, t=2, p=1.
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, OPTIONS);
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    // A malformed stored hash fails closed.
    return false;
  }
}
