// Per-install RS256 signing keys: one pair for access tokens, one for refresh tokens. Created on
// first start in the state directory with mode 0600, reused afterwards, never packaged.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface TokenKeys {
  access: SigningKey;
  refresh: SigningKey;
  /** True when this call created at least one key file. */
  created: boolean;
}

export const KEY_FILES = { access: 'jwt-access.key', refresh: 'jwt-refresh.key' } as const;

function keyId(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64url')
    .slice(0, 16);
}

function loadOrCreate(file: string): { key: SigningKey; created: boolean } {
  let pem: string;
  let created = false;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    try {
      // 'wx' fails if another process created the file meanwhile; then its key is used.
      writeFileSync(file, pem, { mode: 0o600, flag: 'wx' });
      created = true;
    } catch (writeErr) {
      if ((writeErr as NodeJS.ErrnoException).code !== 'EEXIST') throw writeErr;
      pem = readFileSync(file, 'utf8');
    }
  }
  // A key readable by others is a leaked key waiting to happen: tighten it.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const privateKey = createPrivateKey(pem);
  const publicKey = createPublicKey(privateKey);
  return { key: { kid: keyId(publicKey), privateKey, publicKey }, created };
}

export function loadOrCreateKeys(stateDir: string): TokenKeys {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const access = loadOrCreate(join(stateDir, KEY_FILES.access));
  const refresh = loadOrCreate(join(stateDir, KEY_FILES.refresh));
  return { access: access.key, refresh: refresh.key, created: access.created || refresh.created };
}
