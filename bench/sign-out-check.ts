/**
 * What checking a session against the sign-outs costs a dashboard request (issue 43; bench/README.md, "Sign-out
 * across nodes"): the memory lookup every request makes (ui/sign-outs.ts), against asking the `ended_sessions`
 * table of a SQLite store (what the appliance would pay without its memory) and of a PostgreSQL store (what a
 * node of a cluster pays for a nonce it does not know), each over 1,000 sign-outs on record.
 *
 *   bun bench/sign-out-check.ts        (PostgreSQL at LINKPATROL_TEST_POSTGRES; skipped without it)
 */
import { randomBytes } from "node:crypto";
import { EndedSessionsRepo } from "../src/store/ended-sessions.repo.ts";
import { type Session, SessionCodec } from "../src/ui/session.ts";
import { SignOuts } from "../src/ui/sign-outs.ts";
import { DIALECTS } from "../test/helpers/dbs.ts";

const codec = new SessionCodec(randomBytes(32));
const KEY_ID = "0191c2a0-0000-7000-8000-000000000001";

async function perCall(label: string, calls: number, check: (session: Session) => unknown, session: Session): Promise<void> {
  for (let i = 0; i < Math.min(calls, 1_000); i++) await check(session);
  const start = performance.now();
  for (let i = 0; i < calls; i++) await check(session);
  console.log(`${label}: ${(((performance.now() - start) * 1000) / calls).toFixed(2)} µs a check`);
}

for (const dialect of DIALECTS.filter((d) => d.available)) {
  const store = await dialect.open();
  try {
    const repo = new EndedSessionsRepo(store.db);
    const signOuts = await SignOuts.load(repo, dialect.name === "postgres");
    for (let i = 0; i < 1_000; i++) await signOuts.end(codec.issue(KEY_ID).session);
    const live = codec.issue(KEY_ID).session;
    const calls = dialect.name === "sqlite" ? 300_000 : 5_000;
    if (dialect.name === "sqlite") await perCall("sqlite: memory (what a request pays)", calls, (s) => signOuts.isEnded(s), live);
    await perCall(`${dialect.name}: a query of ended_sessions`, calls, (s) => repo.has(s.nonce), live);
    if (dialect.name === "postgres")
      await perCall("postgres: SignOuts.isEnded, a live session (memory, then the query)", calls, (s) => signOuts.isEnded(s), live);
  } finally {
    await store.close();
  }
}
