// Passwords as ZoneMinder stores them in Users.Password (docs/zoneminder/users.md): bcrypt ($2y$ from PHP,
// $2a$ from Perl, $2b$), the MySQL 4.1 `*HEX` hash, the `-ZM-` overlay (bcrypt of the `*HEX`
// string), and plain text as a last resort.
import { createHash, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';

export type PasswordScheme = 'bcrypt' | 'mysql41' | 'zm-overlay' | 'plain';

const BCRYPT = /^\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}$/;
const MYSQL41 = /^\*[0-9A-F]{40}$/i;

/** Cost of new hashes; the same as PHP's password_hash default that ZoneMinder's web UI writes. */
const BCRYPT_COST = 10;

/** A valid bcrypt hash of a random string, checked when the user does not exist so timing matches. */
const DUMMY_HASH = bcrypt.hashSync(createHash('sha256').update(String(Math.random())).digest('hex'), BCRYPT_COST);

export function passwordScheme(stored: string): PasswordScheme {
  if (BCRYPT.test(stored)) return 'bcrypt';
  if (stored.startsWith('-ZM-') && BCRYPT.test(stored.slice(4))) return 'zm-overlay';
  if (MYSQL41.test(stored)) return 'mysql41';
  return 'plain';
}

/** MySQL 4.1 PASSWORD(): '*' + upper-case hex of SHA1(SHA1(pw)) (inner digest raw). */
export function mysql41Hash(plain: string): string {
  const inner = createHash('sha1').update(plain, 'utf8').digest();
  return `*${createHash('sha1').update(inner).digest('hex').toUpperCase()}`;
}

function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}

/** bcryptjs accepts $2a$/$2b$/$2y$ alike; $2x$ is normalised to $2a$ for it. */
function bcryptCompare(plain: string, hash: string): Promise<boolean> {
  return bcrypt.compare(plain, hash.startsWith('$2x$') ? `$2a$${hash.slice(4)}` : hash);
}

export async function verifyPassword(
  plain: string,
  stored: string | null,
): Promise<{ ok: boolean; scheme: PasswordScheme }> {
  if (stored === null || stored === '') {
    await bcryptCompare(plain, DUMMY_HASH);
    return { ok: false, scheme: 'plain' };
  }
  const scheme = passwordScheme(stored);
  switch (scheme) {
    case 'bcrypt':
      return { ok: await bcryptCompare(plain, stored), scheme };
    case 'zm-overlay':
      return { ok: await bcryptCompare(mysql41Hash(plain), stored.slice(4)), scheme };
    case 'mysql41':
      // Spend the same time as a bcrypt check so the scheme cannot be told from timing.
      await bcryptCompare(plain, DUMMY_HASH);
      return { ok: constantTimeEqual(mysql41Hash(plain), stored.toUpperCase()), scheme };
    case 'plain':
      await bcryptCompare(plain, DUMMY_HASH);
      return { ok: constantTimeEqual(plain, stored), scheme };
  }
}

/** Burns the time of one password check; used when the user is unknown or disabled. */
export async function equaliseTiming(plain: string): Promise<void> {
  await bcryptCompare(plain, DUMMY_HASH);
}

export function hashPassword(plain: string): Promise<string> {
  return bcrypt.hash(plain, BCRYPT_COST);
}
