// Says so while the control plane is reached over plain HTTP on the network (accepted when the
// service was set up as insecure): the account and the tunnel's keys travel where anyone can
// read them.
import { useWords } from '../i18n/use-words.js';
import { useEngine } from '../store-context.js';

export function InsecureServiceBanner() {
  const { t } = useWords();
  const insecure = useEngine((s) => s.status?.service_insecure === true);
  if (!insecure) return null;
  return (
    <div className="banner banner--warning">
      <p role="alert" className="banner__text">
        {t('app.shell.insecure')}
      </p>
    </div>
  );
}
