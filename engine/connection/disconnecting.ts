// The disconnecting state: the tunnel goes first; only then, with no tunnel left, the
// disconnected state is entered (disconnected.ts: the kill switch goes, or stays with lockdown,
// and the resolver comes back). A failure is reported, and what could not be removed keeps
// blocking.
import type { ClientConfig } from '../../contracts/index.js';
import type { EngineContext } from '../engine-context.js';
import type { DisconnectReason } from './machine.js';
import type { ConnectionMemory } from './memory.js';
import { enterDisconnected } from './disconnected.js';
import { endControlSession, teardown } from './teardown.js';

function controlOrNull(ctx: EngineContext, config: ClientConfig) {
  try {
    return ctx.control.client(config);
  } catch {
    return null;
  }
}

export async function disconnecting(
  ctx: EngineContext,
  mem: ConnectionMemory,
  reason: DisconnectReason,
  clearIntent: () => Promise<void>,
): Promise<void> {
  if (mem.machine.state === 'disconnected') return;
  mem.machine.dispatch({ type: 'disconnect', reason });
  let failure: unknown;
  try {
    if (mem.live) await teardown(ctx, mem, mem.live);
  } catch (e) {
    failure = e;
  }
  mem.live = null;
  mem.exitAfter = null;
  mem.notices = [];
  const config = await ctx.config.load().catch(() => null);
  try {
    await enterDisconnected(ctx, config);
  } catch (e) {
    failure ??= e;
  }
  if (reason !== 'shutdown') await clearIntent().catch(() => undefined);
  await endControlSession(ctx, config ? controlOrNull(ctx, config) : null);
  mem.machine.dispatch({ type: 'cleaned-up' });
  if (failure !== undefined) throw failure;
}
