// The signed-in account: its number (to copy), plan, use this period.
import { bytesWords, groupedAccountNumber } from '../words/amounts.js';
import { useEngine } from '../store-context.js';
import { CopyButton } from './copy-button.js';

export function AccountDetails() {
  const account = useEngine((s) => s.account);
  if (!account) return <p className="muted">Loading the account…</p>;
  const { plan, usage, devices } = account;
  return (
    <dl className="facts">
      <div>
        <dt>Account number</dt>
        <dd>
          <span className="account-number">{groupedAccountNumber(account.account_number)}</span>{' '}
          <CopyButton text={account.account_number} label="Copy account number" />
        </dd>
      </div>
      <div>
        <dt>Plan</dt>
        <dd>
          {plan.name}
          {/* A free plan's name says so already ("Basic (free)"). */}
          {plan.price_monthly_eur > 0 ? ` (€${plan.price_monthly_eur} a month)` : ''}
        </dd>
      </div>
      <div>
        <dt>Devices</dt>
        <dd>
          {devices.used} of {devices.limit} in use
        </dd>
      </div>
      <div>
        <dt>Data this month</dt>
        <dd>
          {bytesWords(usage.bytes)}
          {usage.data_cap_bytes !== null ? ` of ${bytesWords(usage.data_cap_bytes)}` : ' (no cap)'}
        </dd>
      </div>
    </dl>
  );
}
