// The connection: the engine's status (its latency history with it), the regions to choose
// from, the notices and what the last connect measured; connect (also in stream mode),
// disconnect, the region choice and a latency check of every region. Status events and answers
// reach the replica through the status feed.
import type { Notice } from '../../contracts/control-api.js';
import type { FaceCode, NewerCode } from '../../contracts/face-codes.js';
import type { FaceValue } from '../../contracts/ipc.js';
import type { LocalConnectResponse, LocalStatus } from '../../contracts/local-api.js';
import { toFaceCallError } from '../transport/face-call-error.js';
import type { ConfigQueue } from './settings-slice.js';
import type { EngineSlice, SliceDeps } from './slice.js';
import type { StatusFeed } from './status-feed.js';

export type Regions = FaceValue<'listRegions'>;

/** What the last connect answered besides its status: measured, never assumed. */
export interface ConnectFacts {
  exit: LocalConnectResponse['exit_ip'];
  routing: LocalConnectResponse['routing'];
}

export interface ConnectionReplica {
  status: LocalStatus | null;
  regions: Regions | null;
  /** Notices the engine announced since the connection began (the status holds its own). */
  notices: Notice[];
  lastConnect: ConnectFacts | null;
  /**
   * What the last latency check said of the nodes it left out (while connected only the one in
   * use is measured); null when it measured every one.
   */
  latencyNote: string | null;
}

export interface ConnectionActions {
  connect(): Promise<void>;
  /** Also cancels a connect under way (the engine aborts it). */
  disconnect(): Promise<void>;
  /**
   * Saves the region; a live tunnel follows it (the engine reconnects, and its status events
   * show it). Saved rather than passed to connect: the picker shows the setting, and a
   * connect's own region would be invisible in the status and gone after a disconnect.
   */
  chooseRegion(region: string): Promise<void>;
  /** Stream mode for a platform (its id): a connect that pins it. */
  streamFor(platform: string): Promise<void>;
  /**
   * Has the engine probe every node the plan allows (it keeps the results), then reads the
   * regions again: each shows its latency. While connected the engine measures the node in use
   * only, and says why (latencyNote).
   */
  measureLatencies(): Promise<void>;
}

export const EMPTY_CONNECTION: ConnectionReplica = {
  status: null,
  regions: null,
  notices: [],
  lastConnect: null,
  latencyNote: null,
};

export interface ConnectionDeps extends SliceDeps {
  feed: StatusFeed;
  configQueue: ConfigQueue;
}

/** Codes that mean another request replaced this one (a Cancel, a newer connect): not errors. */
const REPLACED: ReadonlySet<FaceCode | NewerCode> = new Set<FaceCode>([
  'cancelled',
  'superseded',
  'aborted',
]);

function statusOf(answer: LocalStatus | LocalConnectResponse): LocalStatus {
  if (!('exit_ip' in answer)) return answer;
  const { exit_ip: _exit, routing: _routing, ...status } = answer;
  return status;
}

export const createConnectionSlice =
  ({
    transport,
    calls,
    feed,
    configQueue,
  }: ConnectionDeps): EngineSlice<ConnectionReplica & { actions: ConnectionActions }> =>
  (set, get) => {
    /** A connect with the configured settings, pinned to a platform in stream mode. */
    async function connectWith(body: { platform?: string }): Promise<void> {
      await calls.exclusive('connect', async () => {
        set({ error: null });
        // A setting changed just before (the region picked, then Connect) goes first.
        await configQueue.settled();
        const keep = feed.since();
        try {
          const answer = await transport.call('connect', { body });
          set({ lastConnect: { exit: answer.exit_ip, routing: answer.routing } });
          keep(statusOf(answer));
        } catch (e) {
          const error = toFaceCallError(e);
          if (!REPLACED.has(error.code)) calls.fail(error);
        }
      });
    }

    return {
      ...EMPTY_CONNECTION,
      actions: {
        connect: () => connectWith({}),

        async disconnect() {
          await calls.exclusive('disconnect', async () => {
            const keep = feed.since();
            try {
              keep(await transport.call('disconnect', {}));
            } catch (e) {
              calls.fail(e);
            }
          });
        },

        async chooseRegion(region) {
          const { actions, status } = get();
          const wasConnecting = status?.status === 'connecting';
          const saved = await actions.patchConfig({ region });
          // A connect under way keeps its old target: a new one replaces it (the engine cancels).
          if (saved && wasConnecting) await actions.connect();
        },

        streamFor: (platform) => connectWith({ platform }),

        async measureLatencies() {
          await calls.exclusive('latencyCheck', async () => {
            set({ error: null, latencyNote: null });
            try {
              const answer = await transport.call('latencyCheck', { body: { all: true } });
              set({ latencyNote: answer.note ?? null });
            } catch (e) {
              calls.fail(e);
              return;
            }
            await feed.loadRegions();
          });
        },
      },
    };
  };
