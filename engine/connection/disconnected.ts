// The disconnected state: no tunnel. Its policy (one nftables transaction on entry) is nothing,
// or with lockdown the kill switch's block with only the control plane let out; the system
// resolver is the one the host had.
import type { ClientConfig } from '../../contracts/index.js';
import type { EngineContext } from '../engine-context.js';
import { statePolicy } from './policy.js';

/** The disconnected state's policy: nothing, or lockdown's block with the control plane let out. */
async function disconnectedPolicy(ctx: EngineContext, config: ClientConfig): Promise<void> {
  const known = ctx.guard.facts.controlPlane;
  const controlPlane =
    known.length > 0 ? known : await ctx.controlEndpoints(config).catch(() => []);
  await ctx.guard.apply(statePolicy('off', config, { controlPlane, split: ctx.guard.facts.split }));
}

/**
 * Enters the disconnected state's protections: its policy (without the configuration, which
 * could not be read, the settings in force stay), then the resolver the host had.
 */
export async function enterDisconnected(
  ctx: EngineContext,
  config: ClientConfig | null,
): Promise<void> {
  if (config) await disconnectedPolicy(ctx, config);
  else
    await ctx.guard.update({
      stage: 'off',
      nodes: [],
      probes: [],
      dns: [],
      homeDns: [],
      pinned: [],
    });
  await ctx.dns.restore();
  // The programs' table and cgroups, if no program needs them any more.
  await ctx.apps?.tidy().catch(() => undefined);
}
