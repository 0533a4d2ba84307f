// The test internet's "cover site": a real nginx serving HTTPS (HTTP/2 and 1.1) for a name such
// as cover.example with a self-signed certificate, on a host of its own behind the router. What
// a probe-proof TLS transport hands strangers to, and what the censor's prober compares with.
import { X509Certificate, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { selfSignedCertificate } from '../../../platform/tls/testing/self-signed.js';
import type { ManagedProcess, TestNetwork } from '../test-network.js';

export interface CoverSite {
  host: string;
  address: string;
  port: number;
  serverName: string;
  /** The certificate nginx presents (self-signed), PEM and DER. */
  certPem: string;
  certDer: Buffer;
  /** Files it serves, by path: `/` (a small page) and `/1m.bin` (1 MiB of random bytes). */
  paths: readonly string[];
  process: ManagedProcess;
}

export interface CoverSiteOptions {
  /** The host's name in the test network (default `cover`). */
  host?: string;
  serverName?: string;
  port?: number;
}

/** nginx's certificate and key files: self-signed for `name` (P-256, as many real sites use). */
function makeCertificate(dir: string, name: string): { cert: string; key: string } {
  const pem = selfSignedCertificate(name);
  const files = { cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') };
  writeFileSync(files.cert, pem.cert);
  writeFileSync(files.key, pem.key, { mode: 0o600 });
  return files;
}

/** nginx, in the foreground, with every path of its own under `dir` (nothing of the machine's). */
function nginxConfig(dir: string, port: number, name: string, tls: { cert: string; key: string }) {
  return `
daemon off;
master_process off;
user root;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  default_type application/octet-stream;
  client_body_temp_path ${dir}/tmp-body;
  proxy_temp_path ${dir}/tmp-proxy;
  fastcgi_temp_path ${dir}/tmp-fastcgi;
  uwsgi_temp_path ${dir}/tmp-uwsgi;
  scgi_temp_path ${dir}/tmp-scgi;
  server {
    listen ${port} ssl http2;
    server_name ${name};
    ssl_certificate ${tls.cert};
    ssl_certificate_key ${tls.key};
    ssl_protocols TLSv1.2 TLSv1.3;
    root ${dir}/www;
    location = / { default_type text/html; try_files /index.html =404; }
  }
}
`;
}

/** Starts the cover site on a new server host and waits until it serves. */
export async function startCoverSite(
  net: TestNetwork,
  opts: CoverSiteOptions = {},
): Promise<CoverSite> {
  const name = opts.host ?? 'cover';
  const serverName = opts.serverName ?? 'cover.example';
  const port = opts.port ?? 443;
  const dir = path.join(net.dir, `cover-${name}`);
  mkdirSync(path.join(dir, 'www'), { recursive: true });
  const tls = makeCertificate(dir, serverName);
  writeFileSync(
    path.join(dir, 'www', 'index.html'),
    `<!doctype html><title>${serverName}</title><p>${'Welcome. '.repeat(200)}</p>\n`,
  );
  writeFileSync(path.join(dir, 'www', '1m.bin'), randomBytes(1 << 20));
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(conf, nginxConfig(dir, port, serverName, tls));
  const h = net.addServerHost(name);
  const proc = net.spawn(name, `nginx-${name}`, ['nginx', '-c', conf, '-p', dir]);
  await net.waitFor(`nginx on ${name}`, 10_000, () => {
    if (proc.child.exitCode !== null) throw new Error(`nginx exited: ${proc.output()}`);
    const listening = net.exec(name, ['ss', '-Htln', `sport = :${port}`]);
    return listening.trim() ? true : undefined;
  });
  const certPem = readFileSync(tls.cert, 'utf8');
  return {
    host: name,
    address: h.address,
    port,
    serverName,
    certPem,
    certDer: Buffer.from(new X509Certificate(certPem).raw),
    paths: ['/', '/1m.bin'],
    process: proc,
  };
}
