// report.html of a comparison, built from the page kit like every page of kgate: the verdict
// banner, the operation x (behaviour, latency) matrix, each difference once by cause with the
// operations it touched and both sides' curl lines, the noise learned, and per operation the
// latency distributions of both deployments side by side on one scale. The two sides' colours
// pass WCAG AA on white and every mark is labelled in text too.

import { histogram, histogramCounts, histogramEdges } from '../page/charts.ts';
import type { Cell, Finding } from '../page/components.ts';
import { mark, table } from '../page/components.ts';
import { html, text } from '../page/html.ts';
import { type ReportPage, renderPage } from '../page/page.ts';
import { envelopeSection } from '../reporting/envelope.ts';
import {
  type CompareResult,
  type DifferenceGroup,
  envelopeOfCompare,
  groupDifferences,
  type LatencyItem,
  type LatencySamples,
} from './run.ts';
import { comparePhrase, kindText, showValue } from './words.ts';

export { contrastOnWhite } from '../page/charts.ts';

/** Colour of the candidate's marks (6.6:1 on white). */
export const CANDIDATE_COLOUR = '#1d5fa6';
/** Colour of the current deployment's marks (5.3:1 on white). */
export const CURRENT_COLOUR = '#a64b00';

/** The row of the matrix that says whether an operation answered alike. */
const BEHAVIOUR = 'behaviour';
/** The row that says whether it got slower. */
const LATENCY = 'latency';

function latencyBlock(item: LatencyItem, samples: LatencySamples | undefined): string {
  const candidate = samples?.candidate ?? [];
  const current = samples?.current ?? [];
  const bounds = histogramEdges([...candidate, ...current]);
  const yMax = Math.max(1, ...histogramCounts(candidate, bounds), ...histogramCounts(current, bounds));
  const state = item.regression
    ? mark('fail', 'REGRESSION')
    : item.improvement
      ? mark('pass', 'faster')
      : mark('pass', 'alike');
  return [
    `<section class="op" id="latency-${text(item.operationId)}" data-operation="${text(item.operation)}">`,
    `<h3>${text(item.operation)} ${state}</h3>`,
    `<p class="intro">median ratio ${item.ratio.toFixed(2)}, 95 % interval [${item.interval[0].toFixed(2)}, ${item.interval[1].toFixed(2)}]${item.errors.candidate + item.errors.current > 0 ? `; no answer: candidate ${item.errors.candidate}, current ${item.errors.current}` : ''}</p>`,
    '<div class="pair">',
    histogram('candidate', CANDIDATE_COLOUR, candidate, bounds, yMax, item.candidate),
    histogram('current', CURRENT_COLOUR, current, bounds, yMax, item.current),
    '</div>',
    table({
      columns: [
        '',
        { title: 'p50 ms', numeric: true },
        { title: 'p95 ms', numeric: true },
        { title: 'p99 ms', numeric: true },
        { title: 'requests', numeric: true },
      ],
      rows: (['candidate', 'current'] as const).map((side) => ({
        cells: [side, item[side].p50, item[side].p95, item[side].p99, item[side].count],
      })),
    }),
    '</section>',
  ].join('\n');
}

/** A difference group as a card: the cause once, its places, the values and both sides' curl lines of one example. */
function card(group: DifferenceGroup): Finding {
  const first = group.places[0]!;
  const requests = group.places.reduce((sum, diff) => sum + diff.seenIn, 0);
  const side = (name: 'candidate' | 'current') =>
    (group.kind === 'absent-in-candidate' && name === 'candidate') ||
    (group.kind === 'absent-in-current' && name === 'current')
      ? '(absent)'
      : showValue(first[name], 400);
  return {
    level: 'fail',
    check: BEHAVIOUR,
    operation: first.operation,
    title: `${group.pointer || '(status or whole body)'}: ${kindText(group.kind)}`,
    seen: `${requests} request${requests === 1 ? '' : 's'}`,
    fields: [
      { label: 'candidate', value: side('candidate') },
      { label: 'current', value: side('current') },
      {
        label: 'request',
        value: `${first.example.request}${first.example.pointer !== first.pointer ? ` at ${first.example.pointer}` : ''}${group.places.length > 1 ? ` (${first.operation})` : ''}`,
      },
    ],
    places: group.places.map((diff) => ({
      operation: diff.operation,
      text: `${diff.operation} (${diff.seenIn} request${diff.seenIn === 1 ? '' : 's'})`,
    })),
    curls: [
      { label: 'candidate', curl: first.example.candidateCurl },
      { label: 'current', curl: first.example.currentCurl },
    ],
  };
}

/** The page of a comparison. */
export function comparePage(result: CompareResult, samples: LatencySamples[]): ReportPage {
  const groups = groupDifferences(result.differences);
  const regressions = result.latency.filter((item) => item.regression).length;
  const operations = [
    ...new Set([
      ...result.operations.map((entry) => entry.operation),
      ...result.differences.map((diff) => diff.operation),
      ...result.latency.map((item) => item.operation),
    ]),
  ];
  const cells: Record<string, Record<string, Cell>> = {};
  for (const operation of operations) {
    const latency = result.latency.find((item) => item.operation === operation);
    cells[operation] = {
      [BEHAVIOUR]: result.differences.some((diff) => diff.operation === operation) ? 'fail' : 'pass',
      ...(latency ? { [LATENCY]: latency.regression ? 'fail' : 'pass' } : {}),
    };
  }
  const noise = result.noise.map((noisy) => ({
    text: `${noisy.operation} ${noisy.pointer || '(status or body)'}: ${noisy.numeric ? `numbers moving by up to ${(noisy.spread * 100).toPrecision(2)} % or ${noisy.absolute}` : 'any value'} (${noisy.seen} pair(s))`,
  }));
  return {
    tool: 'kgate compare',
    verdict: result.verdict === 'error' ? 'info' : result.verdict,
    ...(result.verdict === 'error' ? { word: 'NO VERDICT' } : {}),
    headline:
      result.verdict === 'error' ? 'nothing compared' : result.verdict === 'pass' ? 'alike' : comparePhrase(result),
    target: result.candidate,
    durationMs: result.durationMs,
    requests: result.requests.sent,
    facts: [
      { label: 'current', value: result.current },
      { label: 'seed', value: String(result.seed) },
      {
        label: 'compared',
        value: `${result.requests.compared} requests (${result.requests.repeated} repeated to learn the noise, ${result.requests.confirmed} sent again to confirm)`,
      },
      ...(result.again ? [{ label: 'again', value: result.again }] : []),
    ],
    counts: [
      { label: 'differences', value: groups.length, cell: 'fail' },
      { label: 'places', value: result.differences.length, cell: 'info' },
      ...(result.latency.length > 0
        ? [{ label: 'latency regressions', value: regressions, cell: 'fail' as const }]
        : []),
      { label: 'set aside as noise', value: result.ignored, cell: 'info' },
    ],
    matrix: {
      title: `Operation x ${result.latency.length > 0 ? 'behaviour and latency' : 'behaviour'}`,
      operations,
      rows: [{ id: BEHAVIOUR }, ...(result.latency.length > 0 ? [{ id: LATENCY }] : [])],
      cells,
      anchors: Object.fromEntries(
        result.latency.map((item) => [item.operation, { [LATENCY]: `latency-${item.operationId}` }]),
      ),
      legend:
        'behaviour fails where the candidate answered a request otherwise than the current deployment, beyond its noise; latency fails on a regression. A cell links to its difference or its latency panel.',
    },
    sections: [
      {
        id: 'differences',
        title: 'Differences',
        tone: 'fail',
        intro:
          'Each difference once: the same pointer and kind on several operations is one entry, with the places it touched; the example request and both curl lines reproduce it.',
        findings: groups.map(card),
      },
      ...(envelopeOfCompare(result) ? [envelopeSection(envelopeOfCompare(result)!)] : []),
      { id: 'notes', title: 'Notes', tone: 'info', items: (result.notes ?? []).map((note) => ({ text: note })) },
      {
        id: 'noise',
        title: 'Learned to ignore',
        tone: 'info',
        intro:
          noise.length > 0
            ? `The current deployment varied there between identical calls (answers of ${result.ignored} request(s) set aside there).`
            : undefined,
        items:
          noise.length > 0
            ? noise
            : [{ text: 'Nothing: the current deployment answered identical calls identically.' }],
      },
      {
        id: 'operations-compared',
        title: 'Per operation',
        tone: 'info',
        html: table({
          id: 'compared',
          columns: ['operation', { title: 'requests', numeric: true }, 'behaviour', 'latency'],
          rows: result.operations.map((entry) => {
            const latency = result.latency.find((item) => item.operation === entry.operation);
            return {
              cells: [
                entry.operation,
                entry.requests,
                html(entry.differences > 0 ? mark('fail', `${entry.differences} differ`) : mark('pass', 'alike')),
                html(
                  latency
                    ? `<a href="#latency-${text(latency.operationId)}">${latency.regression ? mark('fail', 'REGRESSION') : mark('pass', latency.improvement ? 'faster' : 'alike')}</a>`
                    : mark('skip', 'not measured'),
                ),
              ],
              ...(entry.differences > 0 || entry.regression ? { tone: 'fail' as const } : {}),
            };
          }),
        }),
      },
      ...(result.latency.length > 0
        ? [
            {
              id: 'latency',
              title: 'Latency',
              tone: (regressions > 0 ? 'fail' : 'info') as Cell & ('fail' | 'info'),
              intro: `Both deployments on one arrival schedule, request by request interleaved; latency from the intended send time. A regression is a median slower by more than ${result.threshold.percent} % and ${result.threshold.ms} ms whose 95 % interval lies above 1. Solid line: p50, dashed: p95; both panels of an operation share their scales; candidate on the left, current on the right.`,
              html: result.latency
                .map((item) =>
                  latencyBlock(
                    item,
                    samples.find((entry) => entry.operation === item.operation),
                  ),
                )
                .join('\n'),
            },
          ]
        : []),
    ],
    files: ['summary.md', 'summary.json', 'junit.xml'],
  };
}

/** The whole page (see comparePage). */
export function renderCompareHtml(result: CompareResult, samples: LatencySamples[]): string {
  return renderPage(comparePage(result, samples));
}
