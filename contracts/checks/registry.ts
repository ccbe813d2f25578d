import type { Api, ApiResponse, Operation } from '../api.ts';
import type { Failure, Severity } from '../failure.ts';
import type { TestData } from '../test-data.ts';

/** Which key roles a target provides; a check that needs a missing one is skipped with that reason. */
export interface KeyRoles {
  full: boolean;
  unsubscribed: boolean;
  exhausted: boolean;
}

/** What a check gets to work with: one operation, the request fixture, discovered data, and test helpers. */
export interface CheckContext {
  /** The operation under test. */
  op: Operation;
  /** Sends requests; every response is validated against the spec on the way. */
  api: Api;
  /** Test data discovered from the target itself. */
  data: TestData;
  /** Key roles the run was given. */
  keys: KeyRoles;
  /** Groups the unsubscribed key is known not to cover (exact expectations), if known. */
  unsubscribedGroups?: string[];
  /** Per-request deadline of the run, in milliseconds. */
  timeoutMs: number;
  /** Runs a named step (a Playwright `test.step`). */
  step<T>(title: string, body: () => Promise<T>): Promise<T>;
  /** Ends the check as skipped with a reason: it lacked what it needs to judge (never a pass). */
  skip(reason: string): never;
  /** Throws this check's failure; `response` adds the body excerpt and the curl line. */
  fail(
    title: string,
    detail: { received: string; documented: string; pointer?: string },
    response?: ApiResponse,
  ): never;
  /** Fails with `title` unless `condition` holds. */
  expect(
    condition: boolean,
    title: string,
    detail: () => { received: string; documented: string; pointer?: string },
    response?: ApiResponse,
  ): void;
  /**
   * Records a warning of this check without ending it: behaviour the real service showed that a
   * strict reading of the interface would fail (facts.md). Fails the gate only under --strict.
   */
  warn(title: string, detail: { received: string; documented: string; pointer?: string }, response?: ApiResponse): void;
  /** Adds a note to the run summary (for example: this check could not be exact on this target). */
  note(text: string): void;
  /**
   * Marks the test as run only to carry other checks' findings (the generated valid requests the
   * properties judge, its own check not selected): its own cell is left empty.
   */
  carry(): void;
  /**
   * Records a finding without ending the check: a generated request among many, each distinct
   * finding reported (on its own check and operation; level `fail` unless it says otherwise).
   */
  report(finding: Failure): void;
  /**
   * The generative phase of the run: cases in all (0: off), the seed they are drawn from, the
   * checks that judge them, and the checks whose properties judge its valid requests.
   */
  generate: {
    cases: number;
    seed: number;
    checks: string[];
    properties: string[];
    /**
     * The run's coverage plan for this operation: the input items its generated requests carry, in
     * the order they are planned (contracts/coverage/plan.ts). Absent: a draw of `cases` requests.
     */
    targets?: readonly string[];
    /** Open items the target (or the reference server) refused before: the plan sends them alone. */
    refused?: ReadonlySet<string>;
    /** The base URL a finding's seed line names; none when the target is the embedded reference server. */
    target?: string;
    /**
     * Checks of `properties` whose relations do not run: a budgeted plan holds no cell of theirs on
     * this operation, and a relation costs requests (their properties still judge what they read).
     */
    relationsOff?: readonly string[];
  };
  /**
   * A value computed once per worker for `key` and shared by every test that asks for it (the
   * generated requests of an operation, sent once for its three generative tests).
   */
  shared<T>(key: string, make: () => Promise<T>): Promise<T>;
}

/** Thrown by `ctx.skip`: the check lacked the data or keys it needs; the test is reported skipped with the reason. */
export class SkipCheck extends Error {
  override name = 'SkipCheck';
}

/**
 * A named property of the interface. `test` checks run as one Playwright test per operation they
 * apply to; `fixture` checks are applied by the request fixture to every response of every test;
 * `generative` checks judge generated requests, one test per operation, only when the run's
 * generative phase is on (`--generate N`, N > 0).
 */
/** The tag of the tests that burst traffic to find the rate limit: opted into, and run after every other test of the operations they burst. */
export const RATE_LIMIT_TAG = '@rate-limit';

export interface Check {
  /** Reads as the property verified; also the file name, the test title and the CLI name. */
  id: string;
  /** `fail` for what the interface states, `warn` for what it only saw in samples. */
  severity: Severity;
  /** One sentence: what the check verifies. */
  verifies: string;
  /** `test`: runs as its own test per operation; `fixture`: applied to every response; `generative`: judges generated requests. */
  kind: 'test' | 'fixture' | 'generative';
  /** Tag for tests that need opting in (bursts of traffic). */
  tag?: typeof RATE_LIMIT_TAG;
  /** Which operations the check's test runs on (fixture checks: every operation). */
  appliesTo(op: Operation): boolean;
  /**
   * For cross-operation checks: the other operations whose answers the check judges on `op`
   * (histogram-agrees-with-evaluate on calchistogram reads evaluate). A fault in one of them may
   * fail this check on `op`; a fault anywhere else must not.
   */
  reads?(op: Operation): string[];
  /** The test body; absent for pure fixture checks. */
  run?(ctx: CheckContext): Promise<void>;
}

/** Declares a check; the identity function exists so each check file reads as a declaration. */
export function defineCheck(check: Check): Check {
  return check;
}

/** Builds a failure object for `check` on `op`, adding the response's excerpt and curl line. */
export function failureOf(
  check: string,
  operation: string,
  title: string,
  detail: { received: string; documented: string; pointer?: string },
  response?: ApiResponse,
): Failure {
  return {
    check,
    operation,
    title,
    ...detail,
    excerpt: response?.excerpt,
    curl: response?.curl,
    ...(response?.items ? { items: response.items } : {}),
  };
}
