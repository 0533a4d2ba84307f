// The disconnecting state, and the disconnected state it ends in: the tunnel goes first; only
// then, with no tunnel left, the kill switch goes (or stays, with lockdown: the disconnected
// state's policy, one nftables transaction) and the resolver comes back. A failure is reported,
// and what could not be removed keeps blocking.
import type { ClientConfig } from '../../contracts/index.js';
import type { EngineContext } from '../engine-context.js';
import type { DisconnectReason } from './machine.js';
import type { ConnectionMemory } from './memory.js';
import { statePolicy } from './policy.js';
import { endControlSession, teardown } from './teardown.js';

/** The disconnected state's policy: nothing, or lockdown's block with the control plane let out. */
export async function disconnectedPolicy(ctx: EngineContext, config: ClientConfig): Promise<void> {
  const known = ctx.guard.facts.controlPlane;
  const controlPlane =
    known.length > 0 ? known : await ctx.controlEndpoints(config).catch(() => []);
  await ctx.guard.apply(statePolicy('off', config, { controlPlane, split: ctx.guard.facts.split }));
}

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
    if (config) await disconnectedPolicy(ctx, config);
    else await ctx.guard.update({ stage: 'off', nodes: [], probes: [], dns: [], pinned: [] });
    await ctx.guard.restoreResolver();
  } catch (e) {
    failure ??= e;
  }
  if (reason !== 'shutdown') await clearIntent().catch(() => undefined);
  await endControlSession(ctx, config ? controlOrNull(ctx, config) : null);
  mem.machine.dispatch({ type: 'cleaned-up' });
  if (failure !== undefined) throw failure;
}
