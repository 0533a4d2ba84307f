// Home: connect in one click, see the state on a map of where you are and where you exit, the
// latency, the places to choose from, and what protects you.
import { RegionList } from '../places/region-list.js';
import { ConnectionCard } from './connection-card.js';
import { LatencyPanel } from './latency-panel.js';
import { NoticeList } from './notice-list.js';
import { ProtectionSummary } from './protection-summary.js';

export function HomeScreen() {
  return (
    <div className="home">
      <div className="home__main">
        <ConnectionCard />
        <NoticeList />
      </div>
      <div className="home__side">
        <RegionList />
        <LatencyPanel />
        <ProtectionSummary />
      </div>
    </div>
  );
}
