// The report page of `kgate probe`: the verdict (its problems), the limit found with how it was
// measured, and each step the probe took, built from the page kit like every page of kgate.
import { mark, table } from '../../page/components.ts';
import { html } from '../../page/html.ts';
import type { ReportPage } from '../../page/page.ts';
import type { BodyLimitProbeResult } from './body-limit.ts';
import type { RateLimitProbeResult } from './rate-limit.ts';

/** What the page of one probe needs besides its result. */
export interface ProbeRun {
  /** The target as the page names it (its credentials masked), or `embedded reference server`. */
  target: string;
  startedAt: string;
  durationMs: number;
}

function problemsSection(problems: readonly string[]) {
  return {
    id: 'problems',
    title: 'Problems',
    tone: problems.length > 0 ? ('fail' as const) : ('info' as const),
    intro:
      problems.length > 0
        ? 'The probe fails on each of these (also named on stderr).'
        : 'None: the limit was found and behaves as documented.',
    items: problems.map((problem) => ({ text: problem })),
  };
}

/** What both probes' pages open with: the tool, the verdict from the problems, the headline with what was found, the run. */
function probeFrame(tool: string, problems: readonly string[], found: string, run: ProbeRun, requests: number) {
  const failed = problems.length > 0;
  return {
    tool,
    verdict: failed ? ('fail' as const) : ('pass' as const),
    headline: failed
      ? `${problems.length} problem${problems.length === 1 ? '' : 's'}: ${found}`
      : `${found}, behaving as documented`,
    target: run.target,
    startedAt: run.startedAt,
    durationMs: run.durationMs,
    requests,
  };
}

/** The page of `kgate probe rate-limit`. */
export function rateLimitPage(result: RateLimitProbeResult, run: ProbeRun): ReportPage {
  const found = result.thresholdRps === null ? 'no rate limit found' : `${result.thresholdRps} requests/s accepted`;
  return {
    ...probeFrame(`kgate probe rate-limit ${result.operation}`, result.problems, found, run, result.requests),
    facts: [
      { label: 'limit', value: result.thresholdRps === null ? 'not found' : `${result.thresholdRps} requests/s` },
      { label: 'first 429 at', value: result.first429AtRate === null ? '-' : `${result.first429AtRate}/s` },
      {
        label: 'signalled',
        value: result.signal
          ? `${result.signal.status} ${result.signal.contentType} by ${result.signal.signalledBy}${result.signal.conforms ? ' (conforms)' : ' (does not conform)'}`
          : 'never throttled',
      },
      {
        label: 'wait stated',
        value: `message ${result.messageSeconds ?? '-'} s, Retry-After ${result.retryAfterSeconds ?? '-'} s`,
      },
      {
        label: 'recovered',
        value: result.recovered === null ? 'not checked' : `${result.recovered} after ${result.waitSeconds ?? '-'} s`,
      },
    ],
    counts: [
      { label: 'problems', value: result.problems.length, cell: 'fail' },
      { label: 'throttled answers', value: result.throttledResponses, cell: 'info' },
      { label: 'JSON 429s not matching the spec', value: result.invalid429.count, cell: 'warn' },
    ],
    sections: [
      problemsSection(result.problems),
      {
        id: 'steps',
        title: 'Steps',
        tone: 'info',
        intro:
          'The arrival rate doubles every second until the target throttles, holds there, then waits the time it stated and checks it answers again.',
        html: table({
          id: 'steps-table',
          columns: [
            'phase',
            { title: 'rate /s', numeric: true },
            { title: 'sent', numeric: true },
            { title: 'accepted', numeric: true },
            { title: 'throttled', numeric: true },
            { title: 'other', numeric: true },
          ],
          rows: result.steps.map((step) => ({
            cells: [step.phase, step.rate, step.sent, step.ok, step.throttled, step.other],
            ...(step.other > 0 ? { tone: 'warn' as const } : {}),
          })),
        }),
      },
      ...(result.invalid429.examples.length > 0
        ? [
            {
              id: 'invalid-429',
              title: 'Throttled answers that did not match the spec',
              tone: 'warn' as const,
              items: result.invalid429.examples.map((example) => ({ text: 'a 429 body', code: example })),
            },
          ]
        : []),
    ],
    files: ['summary.json', 'envelope.json'],
  };
}

/** The page of `kgate probe body-limit`. */
export function bodyLimitPage(result: BodyLimitProbeResult, run: ProbeRun): ReportPage {
  const failed = result.problems.length > 0;
  const found =
    result.limitBytes === null
      ? 'no body limit found'
      : `largest accepted body ${result.limitBytes.toLocaleString('en-US')} bytes (${result.matches})`;
  return {
    ...probeFrame('kgate probe body-limit', result.problems, found, run, result.requests),
    facts: [
      {
        label: 'limit',
        value: result.limitBytes === null ? 'not found' : `${result.limitBytes.toLocaleString('en-US')} bytes`,
      },
      { label: 'reads as', value: result.matches },
      {
        label: 'one byte over',
        value: `${result.overDetail || '-'}${result.overFrom ? ` (from ${result.overFrom === 'target' ? 'the target' : 'a front server'})` : ''}`,
      },
      {
        label: 'searched',
        value: `${result.interval[0].toLocaleString('en-US')} .. ${result.interval[1].toLocaleString('en-US')} bytes`,
      },
      { label: 'healthy afterwards', value: String(result.healthyAfter) },
    ],
    counts: [
      { label: 'problems', value: result.problems.length, cell: 'fail' },
      { label: 'notes', value: result.notes.length, cell: 'info' },
    ],
    sections: [
      problemsSection(result.problems),
      {
        id: 'limit',
        title: 'The limit',
        tone: failed ? 'fail' : 'info',
        intro:
          'A binary search over similarity POST bodies between the bounds searched: each request halves the interval between the largest body accepted and the smallest refused.',
        html: table({
          id: 'limit-table',
          columns: ['', 'what', 'found'],
          rows: [
            {
              cells: [
                html(mark(result.limitBytes === null ? 'skip' : 'info', 'limit')),
                'largest accepted body',
                result.limitBytes === null ? 'not found' : `${result.limitBytes.toLocaleString('en-US')} bytes`,
              ],
            },
            {
              cells: [html(mark(failed ? 'fail' : 'pass')), 'one byte over', result.overDetail || '-'],
              ...(failed ? { tone: 'fail' as const } : {}),
            },
            {
              cells: [
                html(mark(result.healthyAfter ? 'pass' : 'fail')),
                'an ordinary request afterwards',
                result.healthyAfter ? 'answered' : 'not answered',
              ],
            },
          ],
        }),
      },
      ...(result.notes.length > 0
        ? [{ id: 'notes', title: 'Notes', tone: 'info' as const, items: result.notes.map((note) => ({ text: note })) }]
        : []),
    ],
    files: ['summary.json', 'envelope.json'],
  };
}
