/** @jsxImportSource hono/jsx */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import { Hono } from "hono";
import { KeysRepo } from "../../src/store/keys.repo.ts";
import { EndedSessionsRepo } from "../../src/store/ended-sessions.repo.ts";
import { SecretsRepo } from "../../src/store/secrets.repo.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { PostgresDb } from "../../src/store/postgres/postgres-db.ts";
import { KeysService } from "../../src/services/keys.service.ts";
import { dashboardSession, requireCsrf, requireViewer } from "../../src/ui/middleware/dashboard-session.ts";
import { pageLayout } from "../../src/ui/middleware/page-layout.tsx";
import { signInRouter } from "../../src/ui/routes/sign-in.tsx";
import { SESSION_COOKIE, SIGN_IN_COOKIE } from "../../src/ui/session-cookie.ts";
import { loadSharedSessionSecret } from "../../src/ui/session-secret.ts";
import { SessionCodec } from "../../src/ui/session.ts";
import { SignInBackoff } from "../../src/ui/sign-in-backoff.ts";
import { SignOuts } from "../../src/ui/sign-outs.ts";
import type { UiEnv } from "../../src/ui/ui-env.ts";
import { freshDatabase, HAS_POSTGRES } from "../helpers/postgres.ts";

/**
 * Two dashboard nodes over one PostgreSQL database, each with its own client, built from the dashboard's own parts
 * (session middleware, sign-in router, the shared session key): a sign-in on node A holds on node B, and a sign-out
 * on A is refused by B with the very next request (issue 43). The runtime does not start on PostgreSQL yet, hence
 * the parts rather than two services.
 */

interface Node {
  app: Hono<UiEnv>;
  codec: SessionCodec;
  keys: KeysService;
  client: SQL;
}

async function startNode(url: string, name: string): Promise<Node> {
  const client = await connectPostgres(url, { bigint: true, max: 2 });
  const db = new PostgresDb(client);
  const keys = new KeysService(new KeysRepo(db));
  const codec = new SessionCodec(await loadSharedSessionSecret(new SecretsRepo(db)));
  const signOuts = new SignOuts({ store: new EndedSessionsRepo(db), shared: true });
  const app = new Hono<UiEnv>();
  app.use("*", async (c, next) => {
    c.set("clientAddress", "127.0.0.1");
    await next();
  });
  app.use("*", pageLayout(name));
  app.use("*", dashboardSession(keys, codec, signOuts));
  app.route("/", signInRouter(keys, codec, new SignInBackoff(), signOuts));
  app.use("*", requireViewer());
  app.use("*", requireCsrf(codec));
  app.get("/ui/whoami", (c) => c.text(`${name}: ${c.get("viewer")!.principal.keyId}`));
  return { app, codec, keys, client };
}

/** The value of cookie `name` among a response's Set-Cookie headers (undefined when not set or cleared). */
function cookieOf(response: Response, name: string): string | undefined {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const [key, value] = pair!.split("=");
    if (key === name && value !== "") return value;
  }
  return undefined;
}

describe.skipIf(!HAS_POSTGRES)("sign-out across two nodes on one PostgreSQL", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let a: Node;
  let b: Node;
  beforeAll(async () => {
    database = await freshDatabase();
    const setup = await connectPostgres(database.url, { max: 1 });
    await migratePostgres(setup);
    await setup.close();
    [a, b] = await Promise.all([startNode(database.url, "node-a"), startNode(database.url, "node-b")]);
  });
  afterAll(async () => {
    await a?.client.close();
    await b?.client.close();
    await database?.drop();
  });

  test("signed in on A, the session works on B; signed out on A, B refuses it at once", async () => {
    const { key, secret } = await a.keys.create("operator");
    const form = await a.app.request("http://node/ui/sign-in");
    const nonce = cookieOf(form, SIGN_IN_COOKIE)!;
    const body = new URLSearchParams({ key: secret, _token: a.codec.signInToken(nonce), next: "/ui/whoami" });
    const signedIn = await a.app.request("http://node/ui/sign-in", { method: "POST", body, headers: { cookie: `${SIGN_IN_COOKIE}=${nonce}` } });
    expect(signedIn.status).toBe(303);
    const token = cookieOf(signedIn, SESSION_COOKIE)!;
    const cookie = { cookie: `${SESSION_COOKIE}=${token}` };

    const onB = await b.app.request("http://node/ui/whoami", { headers: cookie });
    expect([onB.status, await onB.text()]).toEqual([200, `node-b: ${key.id}`]);

    const session = a.codec.read(token)!;
    const out = await a.app.request("http://node/ui/sign-out", {
      method: "POST",
      body: new URLSearchParams({ _csrf: a.codec.csrfToken(session) }),
      headers: cookie,
    });
    expect(out.status).toBe(303);

    for (const node of [b, a]) {
      const after = await node.app.request("http://node/ui/whoami", { headers: cookie });
      expect(after.status).toBe(303);
      expect(after.headers.get("location")).toBe("/ui/sign-in?next=%2Fui%2Fwhoami");
    }
    // A second sign-in (a new nonce) is not caught by the first one's sign-out.
    const again = b.codec.issue(key.id).token;
    expect((await a.app.request("http://node/ui/whoami", { headers: { cookie: `${SESSION_COOKIE}=${again}` } })).status).toBe(200);
  });
});
