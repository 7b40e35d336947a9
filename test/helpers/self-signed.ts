import { execFileSync } from "node:child_process";
import { join } from "node:path";

/**
 * A throwaway self-signed P-256 certificate for `hostname` and 127.0.0.1, made by openssl in `dir`: the TLS test
 * receivers (SMTP, webhooks) present it and the test trusts exactly it.
 */
export function selfSignedCertificate(dir: string, hostname: string): { cert: string; key: string } {
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "2",
      "-subj",
      `/CN=${hostname}`,
      "-addext",
      `subjectAltName=DNS:${hostname},IP:127.0.0.1`,
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,digitalSignature,keyCertSign",
      "-addext",
      "extendedKeyUsage=serverAuth",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  return { cert, key };
}
