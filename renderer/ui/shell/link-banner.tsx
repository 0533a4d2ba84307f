// Says so while the engine's event stream is broken: what is shown may be out of date.
import { useEngine } from '../store-context.js';

export function LinkBanner() {
  const link = useEngine((s) => s.link);
  const known = useEngine((s) => s.status !== null);
  if (link !== 'down' || !known) return null;
  return (
    <div className="banner banner--warning">
      <p role="alert" className="banner__text">
        Lost contact with Ferry’s engine. What you see may be out of date; trying again…
      </p>
    </div>
  );
}
