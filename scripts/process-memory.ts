// Measures the memory of a process and every process it starts (kgate conform runs Playwright,
// which runs workers), by reading /proc while they run: Linux only, like the CI it guards.
import { readdirSync, readFileSync } from 'node:fs';

/** Peak memory of a process tree, in bytes. */
export interface TreeMemory {
  /** The highest peak resident set (VmHWM) of any one process of the tree. */
  peakProcess: number;
  /** The highest sum of the resident sets (VmRSS) of the whole tree at one sample. */
  peakTree: number;
}

function field(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** The process ids of `root` and all its descendants alive now. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) found.push(...(children.get(found[i]!) ?? []));
  return found;
}

/** Samples the tree of `pid` every `everyMs` until stopped; `stop()` returns the peaks seen. */
export function watchMemory(pid: number, everyMs = 200): { stop(): TreeMemory } {
  const peak: TreeMemory = { peakProcess: 0, peakTree: 0 };
  const sample = () => {
    let sum = 0;
    for (const id of processTree(pid)) {
      try {
        const status = readFileSync(`/proc/${id}/status`, 'utf8');
        peak.peakProcess = Math.max(peak.peakProcess, field(status, 'VmHWM'));
        sum += field(status, 'VmRSS');
      } catch {
        // Ended meanwhile.
      }
    }
    peak.peakTree = Math.max(peak.peakTree, sum);
  };
  const timer = setInterval(sample, everyMs);
  sample();
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}
