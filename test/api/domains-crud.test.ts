import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

const UNKNOWN_ID = "0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f";

async function create(name: string, root_url?: string) {
  const res = await svc.call("POST", "/domains", { body: root_url === undefined ? { name } : { name, root_url } });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  return res.json.data;
}

describe("POST /domains", () => {
  test("201 with the contract's shape and verification instructions", async () => {
    const res = await svc.call("POST", "/domains", { body: { name: "Docs.Example.COM" } });
    expect(res.status).toBe(201);
    const d = res.json.data;
    expect(d).toMatchObject({ name: "docs.example.com", root_url: "https://docs.example.com/", verified: false });
    expect(d.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Date(d.created_at).toISOString()).toBe(d.created_at);
    const token = d.verification.token;
    expect(token.length).toBeGreaterThanOrEqual(24);
    expect(d.verification.methods).toEqual({
      dns_txt: { name: "_linkpatrol.docs.example.com", value: `linkpatrol-verify=${token}` },
      http_file: { url: "https://docs.example.com/.well-known/linkpatrol-verify.txt", body: token },
      meta_tag: { html: `<meta name="linkpatrol-verify" content="${token}">` },
    });
  });

  test("a name with a port and a root_url on the same host and port", async () => {
    const d = await create("intranet.example:8443", "https://intranet.example:8443/start#top");
    expect(d.name).toBe("intranet.example:8443");
    expect(d.root_url).toBe("https://intranet.example:8443/start");
    expect(d.verification.methods.dns_txt.name).toBe("_linkpatrol.intranet.example");
  });

  test("a registered name again: 409 conflict naming the existing id", async () => {
    const first = await create("twice.example");
    const error = expectErrorEnvelope(await svc.call("POST", "/domains", { body: { name: "TWICE.example" } }), 409, "conflict");
    expect(error.details).toEqual([{ field: "name", id: first.id }]);
  });

  test.each([
    ["https://scheme.example", "name"],
    ["path.example/docs", "name"],
    ["bad host.example", "name"],
    ["port.example:99999", "name"],
    ["-dash.example", "name"],
    ["", "name"],
  ])("invalid name %p: 400 naming the field", async (name, field) => {
    const error = expectErrorEnvelope(await svc.call("POST", "/domains", { body: { name } }), 400, "invalid_request");
    expect(error.details?.[0]?.field).toBe(field);
  });

  test.each([["https://other.example/"], ["https://root.example:8443/"], ["not a url"], ["https://user:pw@root.example/"]])(
    "root_url %p off the domain or malformed: 400",
    async (root_url) => {
      const error = expectErrorEnvelope(await svc.call("POST", "/domains", { body: { name: "root.example", root_url } }), 400, "invalid_request");
      expect(error.details?.[0]?.field).toBe("root_url");
    },
  );

  test.each(["ftp://root.example/", "javascript:alert(1)", "file:///etc/passwd"])("root_url with scheme %p: 422 unsafe_url", async (root_url) => {
    const error = expectErrorEnvelope(await svc.call("POST", "/domains", { body: { name: "root.example", root_url } }), 422, "unsafe_url");
    expect(error.message).toContain("scheme");
  });

  test("one site cannot be registered twice under another spelling", async () => {
    const first = await create("canon.example");
    for (const name of ["CANON.example.", "canon.example:443", "canon.example.:443"]) {
      const error = expectErrorEnvelope(await svc.call("POST", "/domains", { body: { name } }), 409, "conflict");
      expect(error.details).toEqual([{ field: "name", id: first.id }]);
    }
    const plainHttp = await create("canon-http.example:80", "http://canon-http.example/");
    expect(plainHttp.name).toBe("canon-http.example");
    const otherPort = await create("canon.example:8443");
    expect(otherPort).toMatchObject({ name: "canon.example:8443", root_url: "https://canon.example:8443/" });
  });
});

describe("GET /domains", () => {
  test("pages newest first with true totals; past the end: empty data", async () => {
    const fresh = await startTestService();
    try {
      const names = ["a.example", "b.example", "c.example"];
      for (const name of names) await fresh.call("POST", "/domains", { body: { name } });
      const first = await fresh.call("GET", "/domains?limit=2");
      expect(first.status).toBe(200);
      expect(first.json.meta).toEqual({ page: 1, limit: 2, total: 3 });
      expect(first.json.data.map((d: { name: string }) => d.name)).toEqual(["c.example", "b.example"]);
      const second = await fresh.call("GET", "/domains?limit=2&page=2");
      expect(second.json.data.map((d: { name: string }) => d.name)).toEqual(["a.example"]);
      const past = await fresh.call("GET", "/domains?limit=2&page=9");
      expect(past.json).toEqual({ data: [], meta: { page: 9, limit: 2, total: 3 } });
      const defaults = await fresh.call("GET", "/domains");
      expect(defaults.json.meta).toEqual({ page: 1, limit: 20, total: 3 });
    } finally {
      await fresh.stop();
    }
  });

  test.each(["limit=0", "limit=101", "limit=abc", "limit=1.5", "limit=1e2", "limit=0x10", "limit=%203", "limit=", "page=0", "page=-1", "page=x"])(
    "%s: 400 invalid_request",
    async (query) => {
      const error = expectErrorEnvelope(await svc.call("GET", `/domains?${query}`), 400, "invalid_request");
      expect(error.details?.[0]?.field).toBe(query.split("=")[0]);
    },
  );
});

describe("GET, PATCH, DELETE /domains/{id}", () => {
  test("get returns the domain, whatever the case of the id", async () => {
    const d = await create("get.example");
    const res = await svc.call("GET", `/domains/${d.id}`);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual(d);
    const upper = await svc.call("GET", `/domains/${d.id.toUpperCase()}`);
    expect(upper.status).toBe(200);
    expect(upper.json.data.id).toBe(d.id);
  });

  test.each(["GET", "PATCH", "DELETE"])("%s with an unknown or malformed id: 404", async (method) => {
    const body = method === "PATCH" ? { schedule: null } : undefined;
    expectErrorEnvelope(await svc.call(method, `/domains/${UNKNOWN_ID}`, { body }), 404, "not_found");
    expectErrorEnvelope(await svc.call(method, "/domains/not-a-uuid", { body }), 404, "not_found");
    expectErrorEnvelope(await svc.call(method, "/domains/1", { body }), 404, "not_found");
  });

  test("patch sets and clears the schedule and default options", async () => {
    const d = await create("patch.example");
    const options = { scan_images: true, scan_scripts: false, scan_stylesheets: false, follow_external: true };
    const set = await svc.call("PATCH", `/domains/${d.id}`, { body: { schedule: "0 3 * * *", default_options: { scan_images: true, follow_external: true } } });
    expect(set.status).toBe(200);
    expect(set.json.data).toMatchObject({ schedule: "0 3 * * *", default_options: options });
    expect(set.json.data.updated_at).not.toBeNull();
    const onlySchedule = await svc.call("PATCH", `/domains/${d.id}`, { body: { schedule: "@daily" } });
    expect(onlySchedule.json.data).toMatchObject({ schedule: "@daily", default_options: options });
    const cleared = await svc.call("PATCH", `/domains/${d.id}`, { body: { schedule: null, default_options: null } });
    expect(cleared.json.data).toMatchObject({ schedule: null, default_options: null });
  });

  test.each([
    [{ schedule: "every night" }, "schedule"],
    [{ schedule: "61 * * * *" }, "schedule"],
    [{ schedule: "* * * *" }, "schedule"],
    [{ schedule: 5 }, "schedule"],
    [{ default_options: { scan_images: "yes" } }, "default_options.scan_images"],
    [{ default_options: { scan_video: true } }, "default_options.scan_video"],
    [{ name: "rename.example" }, "name"],
  ])("patch with %j: 400 naming %s", async (body, field) => {
    const d = await create(`bad-patch-${field.replace(/\W/g, "")}-${Math.random().toString(36).slice(2, 7)}.example`);
    const error = expectErrorEnvelope(await svc.call("PATCH", `/domains/${d.id}`, { body }), 400, "invalid_request");
    expect(error.details?.[0]?.field).toBe(field);
  });

  test("delete answers 204 with no body, then the domain is gone", async () => {
    const d = await create("delete.example");
    const res = await svc.call("DELETE", `/domains/${d.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expectErrorEnvelope(await svc.call("GET", `/domains/${d.id}`), 404, "not_found");
    expectErrorEnvelope(await svc.call("DELETE", `/domains/${d.id}`), 404, "not_found");
  });
});

describe("unsafe root URLs", () => {
  test("with the default policy a loopback root_url is refused: 422 unsafe_url", async () => {
    const strict = await startTestService({ crawler: { allow_private_networks: false } });
    try {
      for (const name of ["127.0.0.1:8080", "localhost", "[::1]:8080", "10.1.2.3", "169.254.169.254"]) {
        expectErrorEnvelope(await strict.call("POST", "/domains", { body: { name } }), 422, "unsafe_url");
      }
      expect((await strict.call("GET", "/domains")).json.meta.total).toBe(0);
    } finally {
      await strict.stop();
    }
  });

  test("allowed_cidrs opens one range without opening the rest", async () => {
    const scoped = await startTestService({ crawler: { allow_private_networks: false, allowed_cidrs: ["10.9.0.0/16"] } });
    try {
      expect((await scoped.call("POST", "/domains", { body: { name: "10.9.1.1" } })).status).toBe(201);
      expectErrorEnvelope(await scoped.call("POST", "/domains", { body: { name: "10.8.1.1" } }), 422, "unsafe_url");
    } finally {
      await scoped.stop();
    }
  });
});
