// Home: connect in one click, see the state, the latency, where to, and what protects you.
import { ConnectionCard } from './connection-card.js';
import { LatencyPanel } from './latency-panel.js';
import { NoticeList } from './notice-list.js';
import { ProtectionSummary } from './protection-summary.js';

export function HomeScreen() {
  return (
    <div className="home">
      <ConnectionCard />
      <div className="home__side">
        <LatencyPanel />
        <NoticeList />
        <ProtectionSummary />
      </div>
    </div>
  );
}
