// Taking a tunnel down (its events, its latency reports, its link) and ending the control
// plane's session: what connecting (a switch), error and disconnecting share.
import type { ControlClient } from '../../contracts/index.js';
import type { EngineContext } from '../engine-context.js';
import type { ConnectionMemory, LiveTunnel } from './memory.js';

export async function teardown(
  ctx: EngineContext,
  mem: ConnectionMemory,
  live: LiveTunnel,
): Promise<void> {
  live.stopEvents();
  live.reporter.stop();
  try {
    await live.tunnel.close();
  } finally {
    ctx.api.tunnel(false);
    ctx.deps.resetConnections?.();
  }
  if (mem.live === live) mem.live = null;
}

/** Ends the control plane's session (best effort: the node forgets it anyway when idle). */
export async function endControlSession(
  ctx: EngineContext,
  control: ControlClient | null,
): Promise<void> {
  if (!control || !(await ctx.sessions.token())) return;
  await control.disconnect({ timeoutMs: 3_000 }).catch(() => undefined);
}
