// What the engine and the service want the person to know about this connection: failover,
// a cipher substituted, the data cap.
import { useMemo } from 'react';
import { mergeNotices } from '../../store/notices.js';
import { sentence } from '../../store/error-words.js';
import { noticeTitle } from '../../../contracts/words/notices.js';
import { useEngine } from '../store-context.js';

export function NoticeList() {
  const own = useEngine((s) => s.status?.notices);
  const announced = useEngine((s) => s.notices);
  const notices = useMemo(() => mergeNotices(own ?? [], announced), [own, announced]);
  if (notices.length === 0) return null;
  return (
    <section aria-label="Notices" className="card notices">
      <h2 className="card__title">Notices</h2>
      <ul className="notices__list">
        {notices.map((n) => (
          <li key={`${n.code}:${n.message}`} className="notice">
            <strong className="notice__title">{noticeTitle(n.code)}</strong>
            <span className="notice__message">{sentence(n.message)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
