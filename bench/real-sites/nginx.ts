/**
 * One nginx per site, as a child of this process: its config, pid, logs and temp files all live in a temp
 * dir (`-p DIR -c DIR/nginx.conf`), so it needs no system config, leaves nothing behind and cannot clash with
 * an nginx the machine already runs. It listens on 127.0.0.1 only, on a port that was free a moment ago
 * (retried when another process takes it in between).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";

export interface RunningNginx {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  origin: string;
  /** The access log: every request of every tool (access-log.ts reads it). */
  accessLog: string;
  stop: () => Promise<void>;
}

/** nginx processes still running; killed if this process exits without stopping them (an uncaught error). */
const live = new Set<Subprocess>();
process.on("exit", () => {
  for (const proc of live) proc.kill("SIGKILL");
});

/** A port nothing listens on right now (the kernel's pick for port 0). */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** How nginx serves the tree; the same for every tool on the site. */
export interface NginxOptions {
  /** Send nginx's ETag (mtime + size); without it (--no-etag) wget2 must GET every page (README). */
  etag: boolean;
}

/** `etag off;` when ETags are off; nothing otherwise, so the default run's config is nginx's default. */
function etagDirective(options: NginxOptions): string {
  if (options.etag) return "";
  return `    # --no-etag: a Debian tree gives every file one mtime, so mtime + size ETags make pages of equal size
    # look alike, and wget2 skips the GET of a page whose ETag it has seen. Without them every tool parses
    # every page (README, "pages, wget2 lower").
    etag off;
`;
}

function config(dir: string, root: string, port: number, options: NginxOptions): string {
  return `# Written by bench/real-sites/nginx.ts; serves one Debian doc tree for the crawler comparison.
daemon off;
# One process, so killing the child this harness holds stops the server (a master killed hard leaves its
# workers serving). One core is plenty for static files at these sizes.
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  # Unbuffered, so the harness can read a tool's requests as soon as it exits (access-log.ts). The URI
  # comes last: it is the one field that may hold spaces.
  log_format harness '$request_method $status "$sent_http_content_type" $request_uri';
  access_log ${dir}/access.log harness;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    index index.html;
    autoindex off;
    # Debian doc packages symlink jquery & co. into /usr/share/javascript: follow those links.
    disable_symlinks off;
    # LinkChecker sleeps 0.1-0.6 s between requests to a host unless the host answers with this header;
    # without it, it would measure its politeness, not its crawling (README, "Fairness").
    add_header LinkChecker "throttle lifted: loopback benchmark" always;
${etagDirective(options)}  }
}
`;
}

async function answers(origin: string, proc: Subprocess): Promise<boolean> {
  // Bounded: 50 x 100 ms. nginx that exits (port taken) ends the wait at once.
  for (let i = 0; i < 50 && proc.exitCode === null; i++) {
    try {
      await fetch(`${origin}/`, { method: "HEAD" });
      return true;
    } catch {
      await Bun.sleep(100);
    }
  }
  return false;
}

/** Starts nginx serving `root` under `dir`; throws with nginx's error log when it cannot. */
export async function startNginx(dir: string, root: string, options: NginxOptions): Promise<RunningNginx> {
  mkdirSync(join(dir, "tmp"), { recursive: true });
  const confPath = join(dir, "nginx.conf");
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = freePort();
    writeFileSync(confPath, config(dir, root, port, options));
    const proc = Bun.spawn(["nginx", "-p", dir, "-c", confPath], { stdin: "ignore", stdout: "ignore", stderr: Bun.file(join(dir, "nginx.stderr")) });
    const origin = `http://127.0.0.1:${port}`;
    live.add(proc);
    if (await answers(origin, proc)) {
      return {
        origin,
        accessLog: join(dir, "access.log"),
        stop: async () => {
          proc.kill("SIGTERM"); // nginx's fast shutdown
          const killer = setTimeout(() => proc.kill("SIGKILL"), 5_000);
          await proc.exited;
          clearTimeout(killer);
          live.delete(proc);
        },
      };
    }
    proc.kill("SIGKILL");
    await proc.exited;
    live.delete(proc);
  }
  let log = "";
  try {
    log = readFileSync(join(dir, "error.log"), "utf8").trim().split("\n").slice(-5).join("\n");
  } catch {
    // no log: nginx did not get that far
  }
  throw new Error(`nginx did not start for ${root}:\n${log}`);
}
