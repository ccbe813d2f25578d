import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  BINARIES,
  makeTestCertificates,
  missingBinaries,
  startNginx,
  startSquid,
  type TestCertificates,
} from './real-servers.ts';

const skip = missingBinaries(['nginx', 'squid', 'openssl', 'htpasswd', 'basicNcsaAuth']);

/** An upstream that answers every request with its method, path and Host as JSON. */
let upstream: Server;
let upstreamUrl = '';
let pki: TestCertificates;

before(async () => {
  if (skip) return;
  upstream = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ method: req.method, path: req.url, host: req.headers.host }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  pki = makeTestCertificates();
});

after(() => {
  upstream?.close();
  pki?.remove();
});

interface Answer {
  status: number;
  type: string;
  body: string;
}

function get(
  url: string,
  options: { ca?: string; cert?: string; key?: string; path?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        host: target.hostname,
        port: target.port,
        path: options.path ?? `${target.pathname}${target.search}`,
        headers: options.headers,
        agent: false,
        ...(options.ca ? { ca: readFileSync(options.ca) } : {}),
        ...(options.cert && options.key ? { cert: readFileSync(options.cert), key: readFileSync(options.key) } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: res.headers['content-type'] ?? '',
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('a missing binary skips a test with its package named, and fails it in CI', () => {
  const where = { ...BINARIES, nginx: process.execPath, squid: '/nonexistent/squid' };
  assert.equal(missingBinaries(['nginx'], false, where), undefined);
  assert.equal(
    missingBinaries(['nginx', 'squid'], false, where),
    '/nonexistent/squid not installed (apt-get install squid)',
  );
  assert.throws(
    () => missingBinaries(['squid'], true, where),
    /not installed \(apt-get install squid\): CI must install it/,
  );
});

describe('test certificates', { skip }, () => {
  test('the server and client certificates verify against the test CA; the expired one does not', () => {
    const verify = (file: string) =>
      spawnSync(BINARIES.openssl, ['verify', '-CAfile', pki.ca, file], { encoding: 'utf8' }).status;
    assert.equal(verify(pki.serverCert), 0, 'server certificate must verify');
    assert.equal(verify(pki.clientCert), 0, 'client certificate must verify');
    assert.equal(verify(pki.wrongHostCert), 0, 'the wrong-host certificate is valid, only for another name');
    assert.notEqual(verify(pki.expiredCert), 0, 'the expired certificate must not verify');
  });
});

describe('nginx', { skip }, () => {
  test('proxies a path prefix to the upstream root, and answers 404 itself outside it', async () => {
    const nginx = await startNginx({ upstream: upstreamUrl, prefix: '/api/' });
    try {
      assert.match(nginx.url, /^http:\/\/127\.0\.0\.1:\d+\/api$/);
      const inside = await get(`${nginx.url}/academic/v1.0/evaluate?expr=x`);
      assert.equal(inside.status, 200);
      assert.equal(JSON.parse(inside.body).path, '/academic/v1.0/evaluate?expr=x', 'the prefix must be stripped');
      const outside = await get(`${new URL(nginx.url).origin}/academic/v1.0/evaluate`);
      assert.equal(outside.status, 404);
      assert.match(outside.type, /text\/html/);
      assert.equal(nginx.accessLog().length, 2, 'one access log line per request');
    } finally {
      await nginx.stop();
    }
  });

  test('large_client_header_buffers 4 2k answers a 3 KB request line with its own 414', async () => {
    const nginx = await startNginx({ upstream: upstreamUrl, largeClientHeaderBuffers: '4 2k' });
    try {
      const long = await get(`${nginx.url}/x?q=${'a'.repeat(3000)}`);
      assert.equal(long.status, 414);
      assert.match(long.type, /text\/html/);
      assert.equal((await get(`${nginx.url}/x?q=${'a'.repeat(1000)}`)).status, 200);
    } finally {
      await nginx.stop();
    }
  });

  test('terminates TLS with the test certificate and, with verifyClient, requires the client certificate', async () => {
    const nginx = await startNginx({ upstream: upstreamUrl, tls: pki, verifyClient: true });
    try {
      assert.match(nginx.url, /^https:/);
      const withCert = await get(`${nginx.url}/x`, { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey });
      assert.equal(withCert.status, 200);
      const without = await get(`${nginx.url}/x`, { ca: pki.ca });
      assert.equal(without.status, 400, 'nginx answers a missing client certificate with 400');
      await assert.rejects(
        get(`${nginx.url}/x`),
        /self-signed|unable to (get|verify)/,
        'the test CA is not trusted by default',
      );
    } finally {
      await nginx.stop();
    }
  });

  test('stop() ends nginx and removes its folder', async () => {
    const nginx = await startNginx({ upstream: upstreamUrl });
    await nginx.stop();
    await assert.rejects(get(`${nginx.url}/x`), /ECONNREFUSED/);
    assert.throws(() => readFileSync(`${nginx.dir}/nginx.conf`), /ENOENT/);
  });
});

describe('squid', { skip }, () => {
  test('forwards absolute-form requests and logs one line for each', async () => {
    const squid = await startSquid();
    try {
      const target = `${upstreamUrl}/academic/v1.0/evaluate?expr=x`;
      const answer = await get(squid.url, { path: target, headers: { host: new URL(upstreamUrl).host } });
      assert.equal(answer.status, 200);
      assert.equal(JSON.parse(answer.body).path, '/academic/v1.0/evaluate?expr=x');
      assert.equal(squid.accessLog().length, 1);
      assert.match(squid.accessLog()[0]!, /TCP_MISS\/200 .* GET http:\/\/127\.0\.0\.1:\d+\/academic\/v1\.0\/evaluate/);
    } finally {
      await squid.stop();
    }
  });

  test('with auth, answers 407 without credentials and forwards with them', async () => {
    const squid = await startSquid({ auth: { user: 'runner', password: 'p@ss word' } });
    try {
      const target = `${upstreamUrl}/x`;
      assert.equal((await get(squid.url, { path: target })).status, 407);
      const credentials = Buffer.from('runner:p@ss word').toString('base64');
      const answer = await get(squid.url, { path: target, headers: { 'proxy-authorization': `Basic ${credentials}` } });
      assert.equal(answer.status, 200);
      assert.equal(
        new URL(squid.proxyUrl({ user: 'runner', password: 'p@ss word' })).password,
        encodeURIComponent('p@ss word'),
      );
    } finally {
      await squid.stop();
    }
  });
});
