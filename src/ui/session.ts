import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Dashboard sessions without a table (docs/decisions.md, "The dashboard"): an HMAC-signed cookie of key id, expiry
 * and nonce, so a revoked key or a rotated secret ends it. The CSRF token is a second HMAC over the nonce. Sessions
 * signed out before their expiry are refused by ui/sign-outs.ts.
 */

/** How long a session lasts after sign-in. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/**
 * Expiry is wall-clock (it must outlive a restart). One further ahead than this was issued under a clock since set
 * back; refused, or it would stay valid until that date came round.
 */
export const SESSION_MAX_AHEAD_MS = 2 * SESSION_TTL_MS;

/** What a valid session cookie says. */
export interface Session {
  keyId: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  nonce: string;
}

const ID_PATTERN = /^[0-9a-f-]{36}$/;
const NONCE_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export class SessionCodec {
  constructor(private readonly secret: Uint8Array) {}

  /** A new session for `keyId`, as the cookie value and its parts. */
  issue(keyId: string, now = Date.now(), ttlMs = SESSION_TTL_MS): { token: string; session: Session } {
    const session = { keyId, expiresAt: now + ttlMs, nonce: randomBytes(16).toString("base64url") };
    const payload = `${session.keyId}.${session.expiresAt}.${session.nonce}`;
    return { token: `${payload}.${this.mac("session", payload)}`, session };
  }

  /** The session a cookie value carries, or null when it is malformed, forged or expired (sign-outs: SignOuts). */
  read(token: string | undefined, now = Date.now()): Session | null {
    if (token === undefined || token.length > 200) return null;
    const parts = token.split(".");
    if (parts.length !== 4) return null;
    const [keyId, expiry, nonce, signature] = parts as [string, string, string, string];
    if (!ID_PATTERN.test(keyId) || !/^\d{1,16}$/.test(expiry) || !NONCE_PATTERN.test(nonce)) return null;
    if (!this.equal(signature, this.mac("session", `${keyId}.${expiry}.${nonce}`))) return null;
    const expiresAt = Number(expiry);
    if (expiresAt <= now || expiresAt - now > SESSION_MAX_AHEAD_MS) return null;
    return { keyId, expiresAt, nonce };
  }

  /** The CSRF token every state-changing form of this session must carry. */
  csrfToken(session: Session): string {
    return this.mac("csrf", session.nonce);
  }

  /** True when `token` is this session's CSRF token (constant time). */
  csrfValid(session: Session, token: string | undefined): boolean {
    return token !== undefined && this.equal(token, this.csrfToken(session));
  }

  /** A token for the sign-in form, bound to the pre-session nonce cookie (no session exists yet). */
  signInToken(nonce: string): string {
    return this.mac("sign-in", nonce);
  }

  /** True when `token` belongs to the pre-session `nonce`. */
  signInValid(nonce: string | undefined, token: string | undefined): boolean {
    if (nonce === undefined || token === undefined || !NONCE_PATTERN.test(nonce)) return false;
    return this.equal(token, this.signInToken(nonce));
  }

  /** A fresh pre-session nonce. */
  static nonce(): string {
    return randomBytes(16).toString("base64url");
  }

  private mac(purpose: string, value: string): string {
    return createHmac("sha256", this.secret).update(`${purpose}\n${value}`).digest("base64url");
  }

  private equal(given: string, expected: string): boolean {
    const a = Buffer.from(given);
    const b = Buffer.from(expected);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
