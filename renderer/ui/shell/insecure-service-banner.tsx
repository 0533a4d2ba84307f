// Says so while the control plane is reached over plain HTTP on the network (accepted with
// netcli init --insecure): the account and the tunnel's keys travel where anyone can read them.
import { useEngine } from '../store-context.js';

export function InsecureServiceBanner() {
  const insecure = useEngine((s) => s.status?.service_insecure === true);
  if (!insecure) return null;
  return (
    <div className="banner banner--warning">
      <p role="alert" className="banner__text">
        Ferry reaches its service over plain HTTP. Anyone on your network’s path can read your
        account number and send you to a server of theirs. Ask your provider for its https address.
      </p>
    </div>
  );
}
