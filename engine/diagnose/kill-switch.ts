// Whether the kill switch is on, in force when it should hold, and complete (kill-switch): the
// table the kernel has now against the one the engine put in force (its chains with their hooks,
// its sets, and the guard chains ending in a drop).
import { diagnosticCheck, type DiagnosticCheck } from '../../contracts/index.js';
import type { NftTableView } from '../../platform/os/nftables.js';
import type { GuardStage } from '../protection/connection-guard.js';
import { protectionTable, type ProtectionPolicy } from '../protection/firewall-policy.js';

export interface KillSwitchDeps {
  /** The kill_switch setting. */
  setting: boolean;
  /** The lockdown setting: the kill switch holds while disconnected too. */
  lockdown: boolean;
  stage: GuardStage;
  /** The policy the engine put in force (null: none). */
  policy: ProtectionPolicy | null;
  /** The protection table as the kernel has it (null: there is none). */
  inspect(): Promise<NftTableView | null>;
}

const RECONNECT = 'reconnect (netcli connect)';

/** What of the expected table is missing from the one in force, in words (empty: nothing). */
export function missingFromTable(policy: ProtectionPolicy, actual: NftTableView): string[] {
  return missingParts(policy, actual).map((m) => m.words);
}

/** What is missing: the chain's or set's name, and what of it, in words. */
function missingParts(
  policy: ProtectionPolicy,
  actual: NftTableView,
): { name: string; words: string }[] {
  const missing: { name: string; words: string }[] = [];
  for (const o of protectionTable(policy)) {
    if ('chain' in o) {
      const c = o.chain as { name: string; hook: string };
      const have = actual.chains.find((x) => x.name === c.name);
      if (!have) missing.push({ name: c.name, words: `chain ${c.name}` });
      else if (have.hook !== c.hook)
        missing.push({ name: c.name, words: `chain ${c.name} on the ${c.hook} hook` });
      else if (c.name.startsWith('guard_') && !endsInDrop(have.lastRule))
        missing.push({ name: c.name, words: `the drop at the end of ${c.name}` });
    } else if ('set' in o) {
      const name = (o.set as { name: string }).name;
      if (!actual.sets.some((s) => s.name === name)) missing.push({ name, words: `set ${name}` });
    }
  }
  return missing;
}

function endsInDrop(rule: readonly unknown[] | null): boolean {
  const last = rule?.at(-1);
  return typeof last === 'object' && last !== null && 'drop' in last;
}

export async function checkKillSwitch(deps: KillSwitchDeps): Promise<DiagnosticCheck> {
  if (!deps.setting)
    return diagnosticCheck(
      'kill-switch',
      'warning',
      'off: traffic leaves outside the tunnel whenever it drops',
      'netcli config set kill_switch on',
      { finding: 'off', action: { kind: 'setting', key: 'kill_switch', value: 'on' } },
    );
  const holds = deps.stage !== 'off' || deps.lockdown;
  if (!holds)
    return diagnosticCheck('kill-switch', 'ok', 'armed: holds from the next connect', null, {
      finding: 'armed',
    });
  const actual = await deps.inspect();
  if (actual === null || deps.policy === null || !deps.policy.block)
    return diagnosticCheck('kill-switch', 'problem', 'the kill switch is not in force', RECONNECT, {
      finding: 'not-in-force',
      action: { kind: 'reconnect' },
    });
  const missing = missingParts(deps.policy, actual);
  if (missing.length > 0)
    return diagnosticCheck(
      'kill-switch',
      'problem',
      `incomplete: ${missing.map((m) => m.words).join(', ')} missing from the table in force`,
      RECONNECT,
      {
        finding: 'incomplete',
        params: { missing: [...new Set(missing.map((m) => m.name))].join(', ') },
        action: { kind: 'reconnect' },
      },
    );
  const rules = actual.chains.reduce((n, c) => n + c.rules, 0);
  const lockdown = deps.stage === 'off';
  return diagnosticCheck(
    'kill-switch',
    'ok',
    `in force${lockdown ? ' (lockdown)' : ''}: ${rules} rules`,
    null,
    { finding: lockdown ? 'in-force-lockdown' : 'in-force', params: { count: rules } },
  );
}
