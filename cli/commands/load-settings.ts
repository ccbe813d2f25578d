// What a team says of its load runs, read once for `kgate load` and `kgate k6 bundle`, so that a run
// of either judges the same: the thresholds (the scenario's own, then the configuration file's
// load.thresholds, then --threshold, each replacing those before it that judge the same operation
// and measure) and the mix (--mix-from FILE.har, else load.mix of the file, else the scenario's).
import type { KgateConfig } from '../../config/file.ts';
import { HarFileError, readHarFile } from '../../http/har.ts';
import { scenarioRules } from '../../load/run-scenario.ts';
import type { Scenario } from '../../load/scenarios.ts';
import {
  checkScope,
  mergeRules,
  parseExpression,
  parseThreshold,
  THRESHOLD_RULE,
  type ThresholdRule,
  ThresholdSyntaxError,
} from '../../load/threshold-rules.ts';
import type { SourcedRule } from '../../load/thresholds.ts';
import { harMix, type MixOrigin, TrafficError, weightedMix } from '../../load/traffic.ts';
import { OPERATION_IDS } from '../../openapi/spec.ts';
import { option, RuleBroken, UsageError, type ValueSpec } from '../door/args.ts';

/** --threshold: one rule in k6's syntax, given as often as there are rules. */
export const THRESHOLD_OPTION: ValueSpec<ThresholdRule> & { multiple: true } = {
  ...option.text(THRESHOLD_RULE, 'evaluateGet: p(95)<300', (raw) => {
    try {
      return parseThreshold(raw, OPERATION_IDS);
    } catch (error) {
      if (error instanceof ThresholdSyntaxError) throw new RuleBroken(error.message);
      throw error;
    }
  }),
  multiple: true,
};

/** A HAR file read for --mix-from: its name and its parsed log. */
export interface HarFile {
  file: string;
  har: unknown;
}

/** --mix-from: a HAR file of recorded traffic, read and checked to be one. */
export const MIX_FROM_OPTION: ValueSpec<HarFile> = option.text(
  'a HAR file of recorded traffic (HAR 1.2, as browsers, proxies and gateways export it)',
  'no-such-file.har',
  (raw) => {
    let har: unknown;
    try {
      har = readHarFile(raw);
    } catch (error) {
      if (!(error instanceof HarFileError)) throw error;
      throw new RuleBroken(
        error.problem === 'unreadable'
          ? `cannot read it: ${error.detail}`
          : error.problem === 'not JSON'
            ? `not JSON: ${error.detail.split('\n')[0]}`
            : 'no log.entries array: not a HAR file',
      );
    }
    return { file: raw, har };
  },
);

/** The thresholds of the configuration file (`load.thresholds`), read as rules; a bad one is a usage error naming its key. */
export function fileRules(config: KgateConfig, configFile: string | undefined): SourcedRule[] {
  const rules: SourcedRule[] = [];
  for (const [scope, given] of Object.entries(config.load?.thresholds ?? {})) {
    const key = `load.thresholds.${scope}`;
    const source = configFile ?? 'the configuration file';
    for (const expression of Array.isArray(given) ? given : [given]) {
      try {
        rules.push({ ...parseExpression(expression, checkScope(scope, OPERATION_IDS)), source: 'configuration file' });
      } catch (error) {
        if (!(error instanceof ThresholdSyntaxError)) throw error;
        const rule = `must hold thresholds in k6's syntax: MEASURE COMPARISON VALUE, MEASURE one of p(N), avg, min, max, med (VALUE in ms or s), error_rate or valid_share (VALUE in %), such as p(95)<300ms`;
        throw new UsageError(`${source}: key '${key}' ${rule}, got '${expression}' (${error.message})`, {
          key,
          ...(configFile ? { file: configFile } : {}),
          rule,
        });
      }
    }
  }
  return rules;
}

/** The rules in force: the scenario's own, replaced or joined by the file's, then by --threshold's. */
export function rulesInForce(
  scenario: Scenario,
  config: KgateConfig,
  configFile: string | undefined,
  given: readonly ThresholdRule[] = [],
): SourcedRule[] {
  return mergeRules(
    scenarioRules(scenario),
    fileRules(config, configFile),
    given.map((rule) => ({ ...rule, source: '--threshold' as const })),
  ) as SourcedRule[];
}

/** The scenario with the team's mix (--mix-from, else load.mix of the file), and where its mix came from. */
export function withTeamMix(
  scenario: Scenario,
  config: KgateConfig,
  mixFrom: HarFile | undefined,
  seed: number,
): { scenario: Scenario; origin: MixOrigin } {
  if (mixFrom) {
    try {
      const traffic = harMix(mixFrom.har, mixFrom.file, seed);
      return { scenario: { ...scenario, mix: traffic.mix }, origin: traffic.origin };
    } catch (error) {
      if (!(error instanceof TrafficError)) throw error;
      throw new UsageError(`option --mix-from: ${error.message}`, {
        option: '--mix-from',
        rule: 'names a HAR file with requests of the interface that the spec accepts',
      });
    }
  }
  const weights = config.load?.mix;
  if (weights) {
    try {
      return {
        scenario: { ...scenario, mix: weightedMix(scenario.mix, weights) },
        origin: { kind: 'configuration file' },
      };
    } catch (error) {
      if (!(error instanceof TrafficError)) throw error;
      throw new UsageError(`key 'load.mix': ${error.message}`, {
        key: 'load.mix',
        rule: 'gives some operation a weight above 0',
      });
    }
  }
  return { scenario, origin: { kind: 'scenario' } };
}
