import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Resolve } from "../../src/net/resolve.ts";
import { safeFetch, type SafeFetchOptions } from "../../src/net/safe-fetch.ts";
import { testFetchOptions } from "../helpers/fetch-options.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";

// HTTPS through a pinned IP: the name must still be what TLS sends as SNI and verifies the certificate against.

// Test-only self-signed certificate for DNS:pinned.linkpatrol.test, valid 2000-2125 (openssl, P-256).
// It protects nothing; it exists so the test can trust exactly one certificate through `ca`.
const CERT = `-----BEGIN CERTIFICATE-----
MIIBrTCCAVOgAwIBAgIBATAKBggqhkjOPQQDAjAhMR8wHQYDVQQDDBZwaW5uZWQu
bGlua3BhdHJvbC50ZXN0MCAXDTAwMDEwMTAwMDAwMFoYDzIxMjUwMTAxMDAwMDAw
WjAhMR8wHQYDVQQDDBZwaW5uZWQubGlua3BhdHJvbC50ZXN0MFkwEwYHKoZIzj0C
AQYIKoZIzj0DAQcDQgAE5oz0lO6yPEWp74JB+5hUB4OCCZEk5OuSrvIng5OX8qJH
T19PJ8I/Qsw3X+wyXD9miE0plROzOSs26vdqAz5pwqN6MHgwIQYDVR0RBBowGIIW
cGlubmVkLmxpbmtwYXRyb2wudGVzdDAPBgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB
/wQEAwIChDATBgNVHSUEDDAKBggrBgEFBQcDATAdBgNVHQ4EFgQUfncmHlitA2w0
Ie7Y8wmKZuoK50YwCgYIKoZIzj0EAwIDSAAwRQIgS9LY1g4AmwB+GfxVlvFMjH+W
sYYo72oW479uu8MyebYCIQDP5yDgeq269jfGL3JKC4Ym0hZmJvZy1WwHKacfMKTI
qw==
-----END CERTIFICATE-----`;
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgie4kE0jm4hXeabWh
jNRPpPUS+VdAEQeXR6FKrAny+VShRANCAATmjPSU7rI8RanvgkH7mFQHg4IJkSTk
65Ku8ieDk5fyokdPX08nwj9CzDdf7DJcP2aITSmVE7M5Kzbq92oDPmnC
-----END PRIVATE KEY-----`;

const resolve: Resolve = async (hostname) => {
  if (hostname.endsWith(".linkpatrol.test")) return [{ address: "127.0.0.1", family: 4 }];
  throw Object.assign(new Error("no such name"), { code: "ENOTFOUND" });
};

/** Every *.linkpatrol.test name reaches 127.0.0.1, and CERT is the only trusted certificate. */
function options(overrides: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return testFetchOptions({ resolve, ca: CERT, ...overrides });
}

let secure: LoopbackSite;
let plain: LoopbackSite;
beforeAll(async () => {
  const echoHost = (request: Request) => new Response(`host=${request.headers.get("host")}`);
  secure = await startLoopbackSite({ "/": echoHost }, { tls: { cert: CERT, key: KEY } });
  plain = await startLoopbackSite({ "/": echoHost });
});
afterAll(async () => {
  await secure.stop();
  await plain.stop();
});

describe("safeFetch over TLS with a pinned address", () => {
  test("the certificate is verified against the URL's name while the connection goes to the checked IP", async () => {
    const result = await safeFetch(`https://pinned.linkpatrol.test:${secure.port}/`, options());

    expect(result).toMatchObject({ kind: "response", status: 200 });
    if (result.kind === "response") {
      expect(new TextDecoder().decode(result.body)).toBe(`host=pinned.linkpatrol.test:${secure.port}`);
    }
  });

  test("a name the certificate does not cover is a tls error, even right after a good request to the same IP", async () => {
    const good = await safeFetch(`https://pinned.linkpatrol.test:${secure.port}/`, options());
    const bad = await safeFetch(`https://impostor.linkpatrol.test:${secure.port}/`, options());

    expect(good).toMatchObject({ kind: "response", status: 200 });
    expect(bad).toMatchObject({ kind: "error", error: "tls" });
  });

  test("an IP-literal https URL is checked against the IP, which this certificate does not name", async () => {
    const result = await safeFetch(`https://127.0.0.1:${secure.port}/`, options());

    expect(result).toMatchObject({ kind: "error", error: "tls" });
  });

  test("an untrusted (self-signed) certificate is a tls error", async () => {
    const result = await safeFetch(`https://pinned.linkpatrol.test:${secure.port}/`, options({ ca: undefined }));

    expect(result).toMatchObject({ kind: "error", error: "tls" });
  });

  test("https to a plain-HTTP port gets no response", async () => {
    const result = await safeFetch(`https://pinned.linkpatrol.test:${plain.port}/`, options());

    // Bun reports this handshake failure as ECONNREFUSED; either reading is a failed connection.
    expect(result.kind).toBe("error");
    if (result.kind === "error") expect(["refused", "tls", "protocol"]).toContain(result.error);
    expect(plain.requests).toEqual([]);
  });
});
