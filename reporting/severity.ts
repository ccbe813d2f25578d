import type { Check } from '../contracts/checks/registry.ts';
import type { Failure, Severity } from '../contracts/failure.ts';

/** Per-check severity overrides of the configuration file (`off` ones are excluded from the run instead). */
export type SeverityOverrides = Record<string, Severity> | undefined;

/** The severity a check runs with: the configuration file's override, else its built-in one. */
export function severityOf(check: Pick<Check, 'id' | 'severity'>, overrides: SeverityOverrides): Severity {
  return overrides?.[check.id] ?? check.severity;
}

/**
 * Applies a `warn` override to a finding of the request fixture (or of discovery), as a built-in
 * `warn` check weighs its own failures: a warning unless --strict. A `fail` override leaves
 * findings as they are: a built-in `fail` check also reports warnings (an expected field missing).
 * kgate's own errors are never softened.
 */
export function applyOverride(finding: Failure, overrides: SeverityOverrides, strict: boolean): Failure {
  if (strict || finding.origin === 'error' || (finding.level ?? 'fail') !== 'fail') return finding;
  return overrides?.[finding.check] === 'warn' ? { ...finding, level: 'warn' } : finding;
}

/**
 * The checks of a run as its reports show them: without the excluded ones (and those set `off`,
 * which the CLI excludes), each with the severity it ran with.
 */
export function checksOfRun(
  checks: readonly Check[],
  options: { severity?: SeverityOverrides; excludeChecks?: readonly string[] },
): Check[] {
  const excluded = new Set(options.excludeChecks ?? []);
  return checks
    .filter((check) => !excluded.has(check.id))
    .map((check) => {
      const severity = severityOf(check, options.severity);
      return severity === check.severity ? check : { ...check, severity };
    });
}
