// Each connection state's whole protection policy, from the few facts that state knows: what
// it does not name is empty (nothing let out), so no state inherits another's allowances by
// accident. A state applies its policy once, on entry, in one nftables transaction.
import type { ClientConfig } from '../../contracts/index.js';
import {
  guardSettings,
  type GuardFacts,
  type GuardStage,
  type StateFacts,
} from '../protection/connection-guard.js';

/** What a state lets out besides the settings: the control plane, nodes, probes, DNS, split. */
export type PolicyParts = Partial<
  Pick<GuardFacts, 'controlPlane' | 'nodes' | 'probes' | 'dns' | 'homeDns' | 'split' | 'pinned'>
>;

export function statePolicy(
  stage: GuardStage,
  config: Pick<ClientConfig, 'kill_switch' | 'lockdown' | 'allow_lan'>,
  parts: PolicyParts,
): StateFacts {
  return {
    stage,
    ...guardSettings(config),
    controlPlane: [],
    nodes: [],
    probes: [],
    dns: [],
    homeDns: [],
    split: null,
    pinned: [],
    ...parts,
  };
}
