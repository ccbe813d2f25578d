// The environment Playwright's processes start with (run/run.ts): the extra CA certificates
// only for workers that may open TLS. That the workers of an https run still trust them is proven by
// the whole gate through a TLS-terminating nginx (front-servers.test.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { rootCertificates } from 'node:tls';
import { processTree } from '../scripts/process-memory.ts';
import { runKgate } from '../scripts/run-process.ts';
import { type SuiteRun, suiteEnv } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-run-env-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the runner starts without NODE_EXTRA_CA_CERTS; its workers get it when the target or a proxy is https, or in a sweep', () => {
  const from = { NODE_EXTRA_CA_CERTS: '/etc/extra.pem', KGATE_WORKER_EXTRA_CA_CERTS: '/stale.pem', HOME: '/root' };
  const run = (baseUrl: string | undefined, proxies?: SuiteRun['proxies']): SuiteRun => ({
    baseUrl,
    keys: {},
    options: { reportDir: dir } as SuiteRun['options'],
    proxies,
  });
  const workersGet = (given: SuiteRun) => {
    const env = suiteEnv(given, dir, '.js', undefined, from);
    assert.equal(env.NODE_EXTRA_CA_CERTS, undefined, 'the runner never opens TLS');
    assert.equal(env.HOME, '/root');
    return env.KGATE_WORKER_EXTRA_CA_CERTS;
  };
  assert.equal(workersGet(run('http://127.0.0.1:8080')), undefined);
  assert.equal(workersGet(run('http://127.0.0.1:8080', { http: 'http://proxy:3128', noProxy: [] })), undefined);
  assert.equal(workersGet(run('https://api.example.org')), '/etc/extra.pem');
  assert.equal(
    workersGet(run('http://api.example.org', { http: 'https://proxy:3129', noProxy: [] })),
    '/etc/extra.pem',
  );
  assert.equal(workersGet(run(undefined)), '/etc/extra.pem', "a sweep's targets are its projects'");
  const without = suiteEnv(run('https://api.example.org'), dir, '.js', undefined, { HOME: '/root' });
  assert.equal(without.KGATE_WORKER_EXTRA_CA_CERTS, undefined, 'none set, none handed on');
});

/** The processes below `pid`, each with the environment it was started with. */
function descendants(pid: number): { pid: number; command: string; environ: string[] }[] {
  const found: { pid: number; command: string; environ: string[] }[] = [];
  for (const child of processTree(pid).slice(1)) {
    try {
      found.push({
        pid: child,
        command: readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' '),
        environ: readFileSync(`/proc/${child}/environ`, 'utf8').split('\0'),
      });
    } catch {
      // Ended meanwhile.
    }
  }
  return found;
}

test('against an http target, neither Playwright’s runner nor its workers load the extra CA certificates', async () => {
  const bundle = join(dir, 'extra.pem');
  writeFileSync(bundle, rootCertificates.slice(0, 3).join('\n'));
  const seen = new Map<number, { command: string; extraCa: boolean }>();
  let watch: NodeJS.Timeout | undefined;
  const run = await runKgate(
    ['conform', '--checks', 'response-matches-spec', '--generate', '0', '--json', '--report-dir', join(dir, 'run')],
    {
      env: { NODE_EXTRA_CA_CERTS: bundle },
      timeoutMs: 120_000,
      onSpawn: (pid) => {
        watch = setInterval(() => {
          for (const child of descendants(pid))
            seen.set(child.pid, {
              command: child.command,
              extraCa: child.environ.some((variable) => variable.startsWith('NODE_EXTRA_CA_CERTS=')),
            });
        }, 10);
      },
    },
  );
  clearInterval(watch);
  assert.equal(run.code, 0, run.stderr);
  const runner = [...seen.values()].filter((child) => / test --config /.test(child.command));
  const workers = [...seen.values()].filter((child) => child.command.includes('workerProcessEntry'));
  assert.equal(runner.length, 1, [...seen.values()].map((child) => child.command).join('\n'));
  assert.ok(workers.length >= 1, 'a worker was seen');
  assert.deepEqual(
    [...runner, ...workers].filter((child) => child.extraCa),
    [],
  );
});
