// Changes of this host's network (a link down or up, a new address, a new default route), so that
// the engine recovers a tunnel at once after sleep or roaming: the seam, and its Linux
// implementation over `ip monitor` (iproute2), debounced. The engine's own tunnels do not count.
import { spawn, type ChildProcess } from 'node:child_process';

import { TUNNEL_INTERFACE_PREFIX } from '../tunnel/names.js';

export interface NetworkWatch {
  /** Calls `onChange` after each burst of changes; returns the function that stops watching. */
  watch(onChange: () => void): () => void;
}

/** Whether a line of `ip -o monitor` is about the network rather than one of our tunnels. */
export function isNetworkChange(line: string): boolean {
  const text = line.trim();
  if (text === '') return false;
  return !new RegExp(`\\b${TUNNEL_INTERFACE_PREFIX}[a-z0-9]+\\b`).test(text);
}

/** How long a burst of changes may last before it counts as one (a link comes up in steps). */
const SETTLE_MS = 300;

export class IpMonitorWatch implements NetworkWatch {
  watch(onChange: () => void): () => void {
    let stopped = false;
    let child: ChildProcess | null = null;
    let timer: NodeJS.Timeout | null = null;
    let restarts = 0;
    const fire = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        if (!stopped) onChange();
      }, SETTLE_MS);
      timer.unref();
    };
    const start = () => {
      child = spawn('ip', ['-o', 'monitor', 'link', 'address', 'route'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let rest = '';
      child.stdout?.setEncoding('utf8');
      child.stdout?.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        if (lines.some(isNetworkChange)) fire();
      });
      child.on('error', () => undefined);
      child.on('exit', () => {
        // ip monitor should run as long as we do; a few restarts cover a killed one.
        if (!stopped && restarts++ < 5) setTimeout(start, 1_000).unref();
      });
      child.unref();
      (child.stdout as { unref?: () => void } | null)?.unref?.();
    };
    start();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      child?.kill('SIGTERM');
    };
  }
}
