// Academic engine corpus: build time and resident memory for 5,000 papers, 10,000 (the server's default) and
// 1,000,000, each measured in a fresh child process so that one size's heap never inflates another's RSS.
// Also: the first queries (which build the indexes of corpora above 200,000 papers) and the per-call cost of
// evaluate (count=10) against JSON.stringify of the same answer, measured in the same run.
// Build CPU time is printed beside wall time because a shared machine inflates wall time.
// Targets (issue 3): 5,000 papers build in well under a second; 1,000,000 papers build and answer.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SIZES = [5_000, 10_000, 1_000_000];
const EXPRESSIONS = [
  "Composite(AA.AuN=='jaime teevan')",
  "And(Y>2012,W='learning')",
  "Composite(F.FN=='machine learning')",
];

interface SizeFigures {
  papers: number;
  buildMs: number;
  buildCpuMs: number;
  rssMb: number;
  heapMb: number;
  bytesPerPaper: number;
  firstQueryMs: number;
  rssAfterIndexesMb: number;
  evaluateUs: number;
  stringifyUs: number;
  evaluateOverStringify: number;
  uncachedEvaluateUs: number;
}

async function measure(papers: number): Promise<SizeFigures> {
  const { createAcademicEngine } = await import('../reference/academic/engine.ts');
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const engine = createAcademicEngine({ seed: 1, papers });
  const buildMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const buildCpuMs = (used.user + used.system) / 1000;
  gc?.();
  const rssMb = (process.memoryUsage().rss - rssBefore) / 1e6;
  const heapMb = process.memoryUsage().heapUsed / 1e6;

  const firstStarted = performance.now();
  for (const expr of EXPRESSIONS) engine.evaluate({ expr });
  const firstQueryMs = performance.now() - firstStarted;
  gc?.();
  const rssAfterIndexesMb = (process.memoryUsage().rss - rssBefore) / 1e6;

  const params = { expr: EXPRESSIONS[0]!, count: '10', attributes: 'Id,Ti,Y,CC,AA.AuN,AA.AuId' };
  const body = engine.evaluate(params).body;
  const rounds = 20_000;
  let t = performance.now();
  for (let i = 0; i < rounds; i++) engine.evaluate(params);
  const evaluateUs = ((performance.now() - t) * 1000) / rounds;
  t = performance.now();
  for (let i = 0; i < rounds; i++) JSON.stringify(body);
  const stringifyUs = ((performance.now() - t) * 1000) / rounds;
  // Distinct expressions defeat the caches: parse, plan and match every time.
  const distinct = 2_000;
  t = performance.now();
  for (let i = 0; i < distinct; i++)
    engine.evaluate({ expr: `And(Y>${1970 + (i % 50)},Composite(AA.AuN=='jaime teevan'),Y<${2030 + i})` });
  const uncachedEvaluateUs = ((performance.now() - t) * 1000) / distinct;
  return {
    papers,
    buildMs: round(buildMs),
    buildCpuMs: round(buildCpuMs),
    rssMb: round(rssMb),
    heapMb: round(heapMb),
    bytesPerPaper: Math.round((rssMb * 1e6) / papers),
    firstQueryMs: round(firstQueryMs),
    rssAfterIndexesMb: round(rssAfterIndexesMb),
    evaluateUs: round(evaluateUs),
    stringifyUs: round(stringifyUs),
    evaluateOverStringify: round(evaluateUs / stringifyUs),
    uncachedEvaluateUs: round(uncachedEvaluateUs),
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

if (process.argv[2] === '--child') {
  console.log(JSON.stringify(await measure(Number(process.argv[3]))));
} else {
  const file = fileURLToPath(import.meta.url);
  const results: SizeFigures[] = [];
  for (const papers of SIZES) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', file, '--child', String(papers)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (run.status !== 0) throw new Error(`corpus bench for ${papers} papers exited with ${run.status}`);
    const figures = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as SizeFigures;
    results.push(figures);
    console.log(
      `corpus ${papers.toLocaleString('en')} papers: build ${figures.buildMs} ms (CPU ${figures.buildCpuMs} ms), RSS +${figures.rssMb} MB ` +
        `(${figures.bytesPerPaper} B/paper), first queries incl. lazy indexes ${figures.firstQueryMs} ms ` +
        `(RSS then +${figures.rssAfterIndexesMb} MB)`,
    );
    console.log(
      `corpus ${papers.toLocaleString('en')} papers: evaluate count=10 ${figures.evaluateUs} us/call = ` +
        `${figures.evaluateOverStringify}x JSON.stringify of its answer (${figures.stringifyUs} us); ` +
        `uncached expression ${figures.uncachedEvaluateUs} us/call`,
    );
  }
  const root = fileURLToPath(new URL('..', import.meta.url));
  mkdirSync(`${root}reports/bench`, { recursive: true });
  writeFileSync(`${root}reports/bench/corpus.json`, `${JSON.stringify({ sizes: results }, null, 2)}\n`);
}
