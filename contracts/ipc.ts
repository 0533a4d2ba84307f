// The desktop app's IPC schema: one object from channel to the request and response schemas, and
// the events, derived from the local API's route table so that the app, the web graphical mode
// and netcli speak the same language. Electron main's handler table, the preload's exposed API
// and the renderer's client are all typed from it. Results cross the boundary as
// `{ok: true, value} | {ok: false, error: {code, message}}`: error codes are kept, never a stack.
import { z } from 'zod';
import { Notice } from './control-api.js';
import type { RouteDef } from './control-routes.js';
import { faceCodeOf } from './face-codes.js';
import { FieldError } from './problem.js';
import { LocalStatus, localRoutes, type LocalRouteId, type LocalRoutes } from './local-api.js';
import type { RoutePayload } from './route-client.js';

/**
 * Routes that only make sense to a client of the socket (netcli): not offered to the faces
 * (`splitExec` puts netcli's own process on a way: a face has no program to start).
 */
const HOST_ONLY = ['events', 'openGui', 'splitExec'] as const;
type HostOnly = (typeof HOST_ONLY)[number];

/** The calls a face (the desktop app, the web graphical mode) may make. */
export type FaceRouteId = Exclude<LocalRouteId, HostOnly>;
export const FACE_ROUTE_IDS = (Object.keys(localRoutes) as LocalRouteId[]).filter(
  (id): id is FaceRouteId => !(HOST_ONLY as readonly string[]).includes(id),
);

/** What a call sends: the route's path parameters, query and body (RoutePayload). */
export type FacePayload<K extends FaceRouteId> = RoutePayload<LocalRoutes[K]>;
/** What a call answers: the route's response, or nothing for a 204 route. */
export type FaceValue<K extends FaceRouteId> = LocalRoutes[K] extends {
  response: infer S extends z.ZodType;
}
  ? z.output<S>
  : undefined;

/** The IPC channel of a call. */
export function ipcChannel(id: FaceRouteId): string {
  return `ferry:${id}`;
}
/** The one channel main pushes engine events on (status on every change, notices). */
export const IPC_EVENT_CHANNEL = 'ferry:event';

/** A refusal as it crosses a boundary: the code (face-codes.ts: known, or a newer build's). */
export const FaceError = z.object({
  code: z.string().min(1).transform(faceCodeOf),
  message: z.string(),
  /** Per-field validation errors, when the refusal was about input. */
  errors: z.array(FieldError).optional(),
});
export type FaceError = z.infer<typeof FaceError>;

export type FaceResult<T> = { ok: true; value: T } | { ok: false; error: FaceError };

/** The events a face receives: the route table's `events` route, as objects. */
export const FaceEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('status'), status: LocalStatus }),
  z.object({ type: z.literal('notice'), notice: Notice }),
]);
export type FaceEvent = z.infer<typeof FaceEvent>;

interface ChannelSchema {
  channel: string;
  /** The payload: `{params, query, body}`, each checked by the route's own schema. */
  request: z.ZodType;
  /** The value of `{ok: true, value}` (undefined for a route without an answer). */
  response: z.ZodType;
}

function requestSchema(def: RouteDef): z.ZodType {
  const part = (s: z.ZodType | undefined, required: boolean) =>
    s === undefined ? z.undefined().optional() : required ? s : s.optional();
  // A body whose members are all optional may be left out, as over HTTP.
  const bodyOptional = def.body !== undefined && def.body.safeParse({}).success;
  return z.strictObject({
    params: part(def.params, true),
    query: part(def.query, false),
    body: part(def.body, !bodyOptional),
  });
}

/** channel -> request and response schemas, for every face call, and the events. */
export const ipcSchema = {
  calls: Object.fromEntries(
    FACE_ROUTE_IDS.map((id) => {
      const def: RouteDef = localRoutes[id];
      return [
        id,
        {
          channel: ipcChannel(id),
          request: requestSchema(def),
          response: def.response ?? z.undefined(),
        },
      ];
    }),
  ) as Record<FaceRouteId, ChannelSchema>,
  event: { channel: IPC_EVENT_CHANNEL, schema: FaceEvent },
} as const;

/**
 * What the preload exposes to the renderer as `window.ferry`, and nothing else: one call per
 * channel (checked on both sides) and the event subscription.
 */
export interface FerryBridge {
  invoke<K extends FaceRouteId>(id: K, payload: FacePayload<K>): Promise<FaceResult<FaceValue<K>>>;
  /** Every engine event; returns the unsubscribe. */
  onEvent(listener: (event: FaceEvent) => void): () => void;
}
