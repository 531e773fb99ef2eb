// Access and refresh JWTs (RS256, separate key pairs). Claims include what v3 browser clients
// decode: exp, iat, user, uid, typ, perms. The `typ` claim keeps the two kinds apart.
import { randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { UnauthorizedError } from '../errors.js';
import type { SigningKey, TokenKeys } from './keys.js';
import type { Permissions } from './permissions.js';

export type TokenType = 'access' | 'refresh';

export interface TokenClaims {
  typ: TokenType;
  uid: number;
  user: string;
  perms?: Permissions;
  iat: number;
  exp: number;
  jti: string;
}

export interface TokenSubject {
  id: number;
  username: string;
  perms: Permissions;
}

export interface IssuedTokens {
  token_type: 'Bearer';
  access_token: string;
  refresh_token: string;
  expire_in: number;
}

const ISSUER = 'zmgate';
/** Access tokens whose signature was checked, kept so a client's next requests skip the RSA verify. */
const VERIFIED_MAX = 1000;
const CLOCK_TOLERANCE = 5;

export class TokenService {
  /** Verified access tokens → their claims. Expiry is checked again on every use. */
  private readonly verified = new Map<string, TokenClaims>();

  constructor(
    private readonly keys: TokenKeys,
    private readonly ttl: { access: number; refresh: number },
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
    /** Multi-server: the other hosts' public keys by key id (null: only this host's own keys). */
    private readonly peers: { key(kid: string, kind: TokenType): Promise<KeyObject | null> } | null = null,
  ) {}

  /** This host's signing keys (published for the other hosts of a multi-server install). */
  get ownKeys(): TokenKeys {
    return this.keys;
  }

  /** The key that verifies this token: this host's own, or (multi-server) the issuing host's. */
  async #keyFor(token: string, typ: TokenType): Promise<KeyObject> {
    const own = typ === 'access' ? this.keys.access : this.keys.refresh;
    if (!this.peers) return own.publicKey;
    const kid = jwt.decode(token, { complete: true })?.header.kid;
    if (typeof kid !== 'string' || kid === own.kid || kid.length > 64) return own.publicKey;
    return (await this.peers.key(kid, typ)) ?? own.publicKey;
  }

  /**
   * Issues a new pair. `floor` is the user's TokenMinExpiry: tokens issued before it are
   * revoked, so a token issued within the same second as a logout is dated at the floor.
   */
  issue(subject: TokenSubject, floor = 0): IssuedTokens {
    const iat = Math.max(this.now(), floor);
    const sign = (typ: TokenType, key: SigningKey, ttl: number, extra: object) =>
      jwt.sign(
        { typ, uid: subject.id, user: subject.username, ...extra, iat, exp: iat + ttl, jti: randomUUID() },
        key.privateKey,
        {
          algorithm: 'RS256',
          keyid: key.kid,
          issuer: ISSUER,
          subject: String(subject.id),
        },
      );
    return {
      token_type: 'Bearer',
      access_token: sign('access', this.keys.access, this.ttl.access, { perms: subject.perms }),
      refresh_token: sign('refresh', this.keys.refresh, this.ttl.refresh, {}),
      expire_in: this.ttl.access,
    };
  }

  /** Verifies signature, issuer, expiry and kind; anything wrong is a 401. */
  async verify(token: string, typ: TokenType): Promise<TokenClaims> {
    // Same answer as the full check below while the token has not expired (the signature and
    // claims of a given string never change); revocation is checked by the caller every time.
    const known = typ === 'access' ? this.verified.get(token) : undefined;
    if (known && this.now() < known.exp + CLOCK_TOLERANCE) return known;
    const key = await this.#keyFor(token, typ);
    let claims: TokenClaims;
    try {
      claims = jwt.verify(token, key, {
        algorithms: ['RS256'],
        issuer: ISSUER,
        clockTimestamp: this.now(),
        clockTolerance: CLOCK_TOLERANCE,
      }) as TokenClaims;
    } catch (err) {
      const expired = (err as Error).name === 'TokenExpiredError';
      throw new UnauthorizedError(expired ? 'Token expired' : 'Invalid token');
    }
    if (claims.typ !== typ || typeof claims.uid !== 'number' || typeof claims.iat !== 'number') {
      throw new UnauthorizedError(`Wrong token type: an ${typ} token is required`);
    }
    if (typ === 'access') {
      if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
      this.verified.set(token, claims);
    }
    return claims;
  }
}
