// What a command prints as its outcome with --json: exactly one JSON object on stdout, for every
// outcome, usage errors included. Every object starts with the same three fields:
//   { "command": "conform", "verdict": "pass" | "fail" | "error", "exitCode": 0 | 1 | 2, ... }
// `verdict` says the exit code in a word (0 pass, 1 fail, 2 error: nothing was judged); the rest is
// the command's own result. When the command stopped before a result, the rest is `error`:
//   "error": { "kind": "usage" | "target" | "internal", "option"?: "--max-rps", "key"?: "maxRps",
//              "file"?: "kgate.config.json", "variable"?: "KGATE_BASE_URL", "argument"?: "...",
//              "rule"?: "takes a number of requests per second from 0.001 to 10000",
//              "suggestion"?: "--max-rps", "message": "<the line printed on stderr>" }
// (an internal error, a defect of kgate, is exit code 1 with verdict "error").
import { redactSecrets } from '../../config/redact.ts';
import type { UsageDetails } from './args.ts';

/** A verdict as the last line of a command says it: PASS, FAIL, or NO VERDICT for a run that judged nothing. */
export function verdictWord(verdict: 'pass' | 'fail' | 'error'): string {
  return verdict === 'error' ? 'NO VERDICT' : verdict.toUpperCase();
}

/** The verdict word of an exit code. */
export function verdictOf(exitCode: number): 'pass' | 'fail' | 'error' {
  return exitCode === 0 ? 'pass' : exitCode === 1 ? 'fail' : 'error';
}

let printed = false;

/** Whether the outcome's JSON object has been printed in this process (since the last reset). */
export function jsonPrinted(): boolean {
  return printed;
}

/** Forgets that an object was printed (main calls it before each command). */
export function resetJsonPrinted(): void {
  printed = false;
}

/** The one JSON object of an outcome: command, verdict and exit code first, then the command's own fields. */
export function outcomeObject(
  command: string,
  exitCode: number,
  body: object = {},
  verdict = verdictOf(exitCode),
): Record<string, unknown> {
  const { command: _c, verdict: _v, exitCode: _e, ...rest } = body as Record<string, unknown>;
  return { command, verdict, exitCode, ...rest };
}

/** Prints the outcome of a command as its one JSON object on stdout, secrets masked. */
export function printJson(
  command: string,
  exitCode: number,
  body: object = {},
  verdict: 'pass' | 'fail' | 'error' = verdictOf(exitCode),
): void {
  printed = true;
  console.log(redactSecrets(JSON.stringify(outcomeObject(command, exitCode, body, verdict))));
}

/** What kind of stop an error object describes. */
export type StopKind = 'usage' | 'target' | 'internal';

/** The subject of a line that does not say it in its details: the option, key or variable it names. */
export function inferSubject(message: string): UsageDetails {
  const option =
    /\boption (--[a-z0-9][a-z0-9-]*)/.exec(message)?.[1] ?? /unknown option (-{1,2}[^\s(:]+)/.exec(message)?.[1];
  if (option) return { option };
  const key = /\bkey '([^']+)'/.exec(message)?.[1];
  if (key) return { key };
  const variable =
    /\b(KGATE_[A-Z0-9_]+|(?:HTTPS|HTTP|ALL|NO)_PROXY|(?:https|http|all|no)_proxy|NODE_EXTRA_CA_CERTS)\b/.exec(
      message,
    )?.[1];
  return variable ? { variable } : {};
}

/** The `error` member of a stopped command's JSON object. */
export function errorMember(kind: StopKind, message: string, details: UsageDetails = {}): Record<string, unknown> {
  const { command: _, ...given } = details;
  const subject =
    given.option || given.key || given.variable || given.argument ? given : { ...inferSubject(message), ...given };
  return { kind, ...subject, message: redactSecrets(message) };
}

/** The --json lines of every command's usage: the shape every outcome shares. */
export const JSON_USAGE = `                     every --json outcome is exactly one object on stdout: {"command", "verdict" (pass,
                     fail or error), "exitCode", ...}; a stop adds "error": {"kind" (usage, target or
                     internal), "option" | "key" | "variable", "rule", "message"}`;
