import { SQL } from "bun";

/**
 * A fresh PostgreSQL database per test, on the server at LINKPATROL_TEST_POSTGRES (default
 * postgres://postgres@127.0.0.1:5432/postgres, trust auth). Without a server the tests that need one skip,
 * saying so; under CI=true they fail instead (.ci/run starts or installs PostgreSQL).
 */

export const POSTGRES_ADMIN_URL = process.env.LINKPATROL_TEST_POSTGRES ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function serverAnswers(): Promise<boolean> {
  const sql = new SQL(POSTGRES_ADMIN_URL, { max: 1, connectionTimeout: 3 });
  try {
    await sql`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.close().catch(() => {});
  }
}

const answers = await serverAnswers();
if (!answers && process.env.CI === "true") throw new Error(`PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL}, and CI=true: .ci/run should have started it`);
if (!answers) console.warn(`PostgreSQL tests SKIPPED: no server at ${POSTGRES_ADMIN_URL} (set LINKPATROL_TEST_POSTGRES, or start PostgreSQL)`);

/** True when the PostgreSQL tests can run here. */
export const HAS_POSTGRES = answers;

/** Creates an empty database; `url` reaches it, `drop` removes it (connections to it are ended first). */
export async function freshDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `lp_test_${Date.now().toString(36)}_${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`;
  const admin = new SQL(POSTGRES_ADMIN_URL, { max: 1 });
  try {
    // Two CREATE DATABASE at once (tests of other processes) refuse each other: template1 is "being accessed".
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.unsafe(`CREATE DATABASE "${name}"`);
        break;
      } catch (error) {
        if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
        await Bun.sleep(50 * attempt);
      }
    }
  } finally {
    await admin.close();
  }
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.href,
    async drop() {
      const sql = new SQL(POSTGRES_ADMIN_URL, { max: 1 });
      await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await sql.close();
    },
  };
}
