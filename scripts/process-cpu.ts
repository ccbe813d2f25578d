// CPU time of processes, read from /proc (Linux only, like the benches that report it): what a
// command and every process it started used, and what a server running beside it used meanwhile.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on every Linux kgate runs on). */
const TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat after the command name, which may itself hold spaces. */
function statFields(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * CPU seconds (user and system) of every child this process has waited for, and of their own
 * waited-for children: sampled before and after running a command, the difference is what the
 * command's whole process tree used (kgate conform: the CLI, Playwright's runner, its workers).
 */
export function waitedChildrenCpuSeconds(): number {
  const fields = statFields('self');
  // cutime and cstime are the 16th and 17th fields of stat; the list starts at the 3rd.
  return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
}

/** CPU seconds (user and system) a running process has used so far. */
export function processCpuSeconds(pid: number): number {
  const fields = statFields(pid);
  // utime and stime are the 14th and 15th fields.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}
