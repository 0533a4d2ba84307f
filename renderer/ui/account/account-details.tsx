// The signed-in account: its number (to copy), plan, use this period.
import { useWords } from '../i18n/use-words.js';
import { bytesWords, euroWords, groupedAccountNumber } from '../words/amounts.js';
import { useEngine } from '../store-context.js';
import { CopyButton } from './copy-button.js';

export function AccountDetails() {
  const { t, language } = useWords();
  const account = useEngine((s) => s.account);
  if (!account) return <p className="muted">{t('app.account.loading')}</p>;
  const { plan, usage, devices } = account;
  const used = bytesWords(usage.bytes, language);
  return (
    <dl className="facts">
      <div>
        <dt>{t('app.account.number')}</dt>
        <dd>
          <span className="account-number" dir="ltr">
            {groupedAccountNumber(account.account_number)}
          </span>{' '}
          <CopyButton text={account.account_number} label={t('app.account.copyNumber')} />
        </dd>
      </div>
      <div>
        <dt>{t('app.account.plan')}</dt>
        <dd>
          {/* A free plan's name says so already ("Basic (free)"). */}
          {plan.price_monthly_eur > 0
            ? t('app.account.planPrice', {
                name: plan.name,
                price: euroWords(plan.price_monthly_eur, language),
              })
            : plan.name}
        </dd>
      </div>
      <div>
        <dt>{t('app.account.devices')}</dt>
        <dd>{t('app.account.devicesUsed', { used: devices.used, limit: devices.limit })}</dd>
      </div>
      <div>
        <dt>{t('app.account.data')}</dt>
        <dd>
          {usage.data_cap_bytes !== null
            ? t('app.account.dataOf', { used, cap: bytesWords(usage.data_cap_bytes, language) })
            : t('app.account.dataNoCap', { used })}
        </dd>
      </div>
    </dl>
  );
}
