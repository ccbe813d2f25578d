// Requests per second of the reference server against a bare node:http server answering a
// pre-serialized body of the same size, measured in the same run with autocannon (50 connections,
// three interleaved rounds of 4 s, medians reported).
// Target (issue 3): evaluate (count=10) and URL preview each reach at least half of the bare figure.
// Each server runs in its own child process so that autocannon does not share its event loop.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const CONNECTIONS = 50;
const DURATION_S = 4;
const ROUNDS = 3;
const TARGET_RATIO = 0.5;

async function child(mode: string): Promise<void> {
  if (mode === 'reference') {
    const { startReferenceServer } = await import('../reference/index.ts');
    // The rate limit is lifted so that URL preview measures the server, not the 429 path.
    const server = await startReferenceServer({ rateLimit: 1e9, quiet: true });
    console.log(JSON.stringify({ url: server.url, key: server.keys.full }));
    return;
  }
  const body = Buffer.from(process.argv[4] ?? '{}', 'base64');
  const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) };
  const bare = createServer({ keepAlive: true }, (_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  });
  bare.listen(0, '127.0.0.1', () => {
    const { port } = bare.address() as { port: number };
    console.log(JSON.stringify({ url: `http://127.0.0.1:${port}`, key: '' }));
  });
}

function startChild(mode: string, extra: string[] = []): Promise<{ process: ChildProcess; url: string; key: string }> {
  const file = fileURLToPath(import.meta.url);
  const proc = spawn(process.execPath, ['--import', 'tsx', file, '--child', mode, ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: proc.stdout! });
    lines.once('line', (line) => resolve({ process: proc, ...JSON.parse(line) }));
    proc.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

interface Figure {
  name: string;
  requestsPerSecond: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
}

async function measure(
  name: string,
  url: string,
  key: string,
  paths: string[] | ((n: number) => string),
  durationS = DURATION_S,
): Promise<Figure> {
  let next = 0;
  // Static requests (a list): autocannon serializes each once and cycles through them per connection.
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: durationS,
    headers: key ? { 'Ocp-Apim-Subscription-Key': key } : {},
    requests:
      typeof paths === 'function'
        ? [{ method: 'GET' as const, setupRequest: (request) => ({ ...request, path: paths(next++) }) }]
        : paths.map((path) => ({ method: 'GET' as const, path })),
  });
  const figure = {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    latencyP99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
  console.log(
    `${name.padEnd(34)} ${String(figure.requestsPerSecond).padStart(7)} req/s  p99 ${figure.latencyP99Ms} ms  non-2xx ${figure.non2xx}`,
  );
  return figure;
}

function median(figures: Figure[]): Figure {
  const sorted = [...figures].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return { ...sorted[Math.floor(sorted.length / 2)]!, name: sorted[0]!.name.replace(/ \(round \d+\)$/, '') };
}

async function main(): Promise<void> {
  const reference = await startChild('reference');
  const children = [reference.process];
  try {
    const exprs = ['Y>2005', 'Y>2010', 'Y=[2000,2010)', 'Y<2015', 'And(Y>2000,Y<2020)'];
    const evaluatePaths = exprs.map(
      (expr) => `/academic/v1.0/evaluate?expr=${encodeURIComponent(expr)}&count=10&attributes=Id,Ti,Y,CC,AA.AuN`,
    );
    const previewPaths = Array.from(
      { length: 1000 },
      (_, i) => `/urlpreview/v7.0/search?q=${encodeURIComponent(`https://example.com/page/${i}`)}`,
    );
    const sample = await fetch(`${reference.url}${evaluatePaths[0]}`, {
      headers: { 'Ocp-Apim-Subscription-Key': reference.key },
    });
    const body = Buffer.from(await sample.arrayBuffer());
    if (sample.status !== 200) throw new Error(`evaluate answered ${sample.status}: ${body.toString().slice(0, 200)}`);
    const bare = await startChild('bare', [body.toString('base64')]);
    children.push(bare.process);

    console.log(
      `autocannon: ${CONNECTIONS} connections, ${DURATION_S} s each; bare body ${body.length} bytes (the evaluate answer)`,
    );
    // Warm-up (not reported): JIT and answer caches of both servers, as a long-running server would have them.
    const quietly = console.log;
    console.log = () => {};
    await measure('warm-up', bare.url, '', ['/'], 1);
    await measure('warm-up', reference.url, reference.key, [...evaluatePaths, ...previewPaths], 2);
    console.log = quietly;
    // Interleaved rounds, median of each: a busy machine then skews all three alike.
    const rounds: Figure[][] = [[], [], []];
    for (let round = 1; round <= ROUNDS; round++) {
      rounds[0]!.push(await measure(`bare node:http (round ${round})`, bare.url, '', ['/']));
      rounds[1]!.push(await measure(`evaluate count=10 (round ${round})`, reference.url, reference.key, evaluatePaths));
      rounds[2]!.push(await measure(`URL preview (round ${round})`, reference.url, reference.key, previewPaths));
    }
    const [baseline, evaluate, preview] = rounds.map(median) as [Figure, Figure, Figure];
    // A counter in the query makes every request a cache miss: the engine computes each answer.
    const distinct = (n: number) =>
      `/academic/v1.0/evaluate?expr=Y%3E${1990 + (n % 30)}&count=10&offset=${n % 9000}&attributes=Id,Ti,Y&n=${n}`;
    const uncached = await measure('evaluate, every request distinct', reference.url, reference.key, distinct);

    const ratio = (figure: Figure) => Number((figure.requestsPerSecond / baseline.requestsPerSecond).toFixed(3));
    const report = {
      connections: CONNECTIONS,
      durationSeconds: DURATION_S,
      rounds: ROUNDS,
      roundFigures: { bare: rounds[0], evaluate: rounds[1], urlPreview: rounds[2] },
      target: TARGET_RATIO,
      bare: baseline,
      evaluate: { ...evaluate, ratio: ratio(evaluate), meetsTarget: ratio(evaluate) >= TARGET_RATIO },
      urlPreview: { ...preview, ratio: ratio(preview), meetsTarget: ratio(preview) >= TARGET_RATIO },
      evaluateDistinct: { ...uncached, ratio: ratio(uncached), note: 'informative: no answer cache hits' },
    };
    console.log(
      `medians: bare ${baseline.requestsPerSecond}, evaluate ${evaluate.requestsPerSecond}, URL preview ${preview.requestsPerSecond} req/s`,
    );
    console.log(`evaluate / bare    ${report.evaluate.ratio}  (target >= ${TARGET_RATIO})`);
    console.log(`URL preview / bare ${report.urlPreview.ratio}  (target >= ${TARGET_RATIO})`);
    console.log(`evaluate distinct / bare ${report.evaluateDistinct.ratio}  (informative)`);
    mkdirSync('reports/bench', { recursive: true });
    writeFileSync('reports/bench/reference.json', `${JSON.stringify(report, null, 2)}\n`);
    if (
      rounds
        .slice(1)
        .flat()
        .some((figure) => figure.non2xx + figure.errors > 0)
    ) {
      throw new Error('the reference server answered some benchmark requests with errors');
    }
  } finally {
    for (const proc of children) proc.kill('SIGTERM');
  }
}

const childIndex = process.argv.indexOf('--child');
if (childIndex >= 0) await child(process.argv[childIndex + 1]!);
else await main();
