// The gate through real infrastructure: the whole `kgate conform` against the reference server
// through a TLS-terminating nginx with its default limits (the CA given with --ca-file), and through
// squid as the forward proxy (HTTP_PROXY), each timed against a direct run of the same command in
// the same bench, rounds interleaved so that a busy moment weighs on all three alike.
// Targets: within 1.2x (nginx) and 1.3x (squid) of the direct run.
// KGATE_BENCH_NETWORK_ROUNDS (default 3) rounds; the median of each is reported.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startReferenceServer } from '../reference/index.ts';
import { makeTestCertificates, missingBinaries, startNginx, startSquid } from '../scripts/real-servers.ts';
import { RUN_ALONE_ENV, referenceKeyEnv, runKgate } from '../scripts/run-process.ts';
import { median } from './conform-runs.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.KGATE_BENCH_NETWORK_ROUNDS ?? 3);
const TARGETS = { nginx: 1.2, squid: 1.3 };

const missing = missingBinaries(['nginx', 'squid', 'openssl']);
if (missing) {
  console.log(`network bench not run: ${missing}`);
  process.exit(0);
}

const server = await startReferenceServer({ quiet: true });
const pki = makeTestCertificates();
const nginx = await startNginx({ upstream: server.url, tls: pki });
const squid = await startSquid();
const env = {
  ...RUN_ALONE_ENV,
  ...referenceKeyEnv(server.keys),
};

interface Timed {
  seconds: number;
  code: number | null;
  requests: number;
}

async function gate(args: string[], extra: Record<string, string> = {}): Promise<Timed> {
  const started = performance.now();
  const run = await runKgate(['conform', '--json', '--report-dir', 'reports/bench/network', ...args], {
    env: { ...env, ...extra },
    timeoutMs: 600_000,
  });
  let requests = 0;
  try {
    requests = (JSON.parse(run.stdout) as { requests: number }).requests;
  } catch {
    console.error(run.stderr);
  }
  return { seconds: (performance.now() - started) / 1000, code: run.code, requests };
}

const runs: Record<'direct' | 'nginx' | 'squid', Timed[]> = { direct: [], nginx: [], squid: [] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    runs.direct.push(await gate(['--base-url', server.url]));
    runs.nginx.push(await gate(['--base-url', nginx.url, '--ca-file', pki.ca]));
    runs.squid.push(await gate(['--base-url', server.url], { HTTP_PROXY: squid.url }));
    console.log(
      `round ${round + 1}: direct ${runs.direct.at(-1)!.seconds.toFixed(1)} s, nginx ${runs.nginx.at(-1)!.seconds.toFixed(1)} s, squid ${runs.squid.at(-1)!.seconds.toFixed(1)} s`,
    );
  }
} finally {
  await nginx.stop();
  await squid.stop();
  await server.close();
  pki.remove();
}

const direct = median(runs.direct.map((run) => run.seconds));
const through = {
  nginx: median(runs.nginx.map((run) => run.seconds)),
  squid: median(runs.squid.map((run) => run.seconds)),
};
const exits = (name: keyof typeof runs) => runs[name].map((run) => run.code).join('/');
console.log(
  `direct: ${direct.toFixed(1)} s (median of ${ROUNDS}; exit ${exits('direct')}; ${runs.direct[0]!.requests} requests)`,
);
for (const name of ['nginx', 'squid'] as const) {
  const ratio = through[name] / direct;
  console.log(
    `through ${name === 'nginx' ? 'a TLS-terminating nginx, default limits' : 'squid (HTTP_PROXY)'}: ${through[name].toFixed(1)} s = ${ratio.toFixed(2)}x direct (target <= ${TARGETS[name]}x; exit ${exits(name)}; ${runs[name][0]!.requests} requests)`,
  );
}

mkdirSync(`${ROOT}reports/bench`, { recursive: true });
writeFileSync(
  `${ROOT}reports/bench/network.json`,
  `${JSON.stringify(
    {
      rounds: ROUNDS,
      directSeconds: direct,
      nginxSeconds: through.nginx,
      squidSeconds: through.squid,
      nginxOverDirect: through.nginx / direct,
      squidOverDirect: through.squid / direct,
      targets: TARGETS,
      runs,
    },
    null,
    2,
  )}\n`,
);
