// The reconnecting state: the tunnel in use stopped answering (or a failover's attempt failed).
// The kill switch holds with the lost node still let out (the tunnel may come back by itself),
// the recovery tries the next best node meanwhile. One nftables transaction on entry; the same
// policy as connected's, stage aside, so a tunnel that comes back is connected again at once.
import type { EngineContext } from '../engine-context.js';
import type { GuardStage } from '../protection/connection-guard.js';
import type { ConnectionMemory, LiveTunnel } from './memory.js';
import type { PolicyParts } from './policy.js';
import type { Recovery } from './recovery.js';

/** The policy in force with its stage changed (what a lost or restored tunnel keeps). */
function restage(ctx: EngineContext, stage: GuardStage, parts: PolicyParts = {}): Promise<void> {
  const { serviceNodes: _theirs, ...facts } = ctx.guard.facts;
  return ctx.guard.apply({ ...facts, ...parts, stage });
}

/** The tunnel in use went silent: reconnecting, the node passed over, the recovery started. */
export function tunnelLost(
  ctx: EngineContext,
  mem: ConnectionMemory,
  live: LiveTunnel,
  recovery: Recovery,
): void {
  mem.machine.dispatch({ type: 'tunnel-lost', reason: 'node-unreachable' });
  void restage(ctx, 'reconnecting').catch(() => undefined);
  recovery.markUnreachable(live.answer.node.id);
  mem.lostNode = live.answer.node.id;
  void recovery.start();
}

/** The lost tunnel answers again: connected, as it was. */
export function tunnelRestored(
  ctx: EngineContext,
  mem: ConnectionMemory,
  live: LiveTunnel,
  recovery: Recovery,
): void {
  recovery.stop();
  void restage(ctx, 'connected').catch(() => undefined);
  mem.machine.dispatch({
    type: 'tunnel-up',
    tunnel: {
      nodeId: live.answer.node.id,
      region: live.answer.region,
      protocol: live.answer.protocol,
      cipher: live.answer.cipher,
      interfaceName: live.tunnel.interfaceName,
    },
    latencyMs: mem.machine.snapshot.latencyMs ?? live.tunnel.latencyMs(),
  });
}

/** A failover's attempt failed: still reconnecting, no node let out until the next attempt. */
export function attemptFailed(ctx: EngineContext): Promise<void> {
  return restage(ctx, 'reconnecting', { nodes: [] }).catch(() => undefined);
}
