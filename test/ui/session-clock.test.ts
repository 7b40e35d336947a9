import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { SESSION_TTL_MS, SessionCodec } from "../../src/ui/session.ts";
import { SignOuts } from "../../src/ui/sign-outs.ts";

/**
 * Session expiry is wall-clock time in a signed cookie (it outlives restarts), read against the clock of the
 * moment: a clock set back a few hours lengthens sessions by that much; one set back further than a session's
 * life (a wrong date corrected) does not leave a cookie from then valid until that date.
 */

const HOUR = 3_600_000;
const issuedAt = Date.parse("2026-03-10T12:00:00Z");

describe("session expiry across clock steps", () => {
  test("set back 5 hours: still signed in; set back 13 hours or more: signed out", () => {
    const codec = new SessionCodec(randomBytes(32));
    const { token } = codec.issue("0191c2a0-0000-7000-8000-000000000001", issuedAt);
    expect(codec.read(token, issuedAt + HOUR)).not.toBeNull();
    expect(codec.read(token, issuedAt - 5 * HOUR)).not.toBeNull();
    expect(codec.read(token, issuedAt - 13 * HOUR)).toBeNull();
    // A cookie issued under a clock ten years ahead, read after the clock was corrected.
    const { token: future } = codec.issue("0191c2a0-0000-7000-8000-000000000001", issuedAt + 10 * 365 * 24 * HOUR);
    expect(codec.read(future, issuedAt)).toBeNull();
  });

  test("set forward past the expiry: signed out", () => {
    const codec = new SessionCodec(randomBytes(32));
    const { token } = codec.issue("0191c2a0-0000-7000-8000-000000000001", issuedAt);
    expect(codec.read(token, issuedAt + SESSION_TTL_MS + 1)).toBeNull();
  });

  test("a signed-out session stays refused when the clock goes forward past its expiry and back", async () => {
    const codec = new SessionCodec(randomBytes(32));
    const signOuts = new SignOuts();
    const { token, session } = codec.issue("0191c2a0-0000-7000-8000-000000000001", issuedAt);
    await signOuts.end(session, issuedAt + HOUR);
    // Someone else signs out while the clock is a day ahead (which once forgot the first sign-out).
    const other = codec.issue("0191c2a0-0000-7000-8000-000000000002", issuedAt + 24 * HOUR);
    await signOuts.end(other.session, issuedAt + 24 * HOUR);
    expect(codec.read(token, issuedAt + 2 * HOUR)).not.toBeNull();
    expect(signOuts.isEnded(session)).toBe(true);
  });
});
