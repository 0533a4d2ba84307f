// The local API's handler table: one plain function per route of `localRoutes`, from the
// route's parsed input to an EngineApi call. The mapped type makes a route without a handler
// a type error; the host also refuses to start with one missing.
import type { z } from 'zod';
import type { LocalRouteId, LocalRoutes, OpenGuiResponse } from '../../contracts/index.js';
import type { EngineApi } from '../engine-api.js';

type Parsed<R, K extends 'params' | 'query' | 'body'> = R extends {
  [P in K]: infer S extends z.ZodType;
}
  ? z.output<S>
  : undefined;
type Answer<R> = R extends { response: infer S extends z.ZodType } ? z.input<S> : void;

export interface HandlerInput<R> {
  params: Parsed<R, 'params'>;
  query: Parsed<R, 'query'>;
  body: Parsed<R, 'body'>;
  /** Aborted when the client goes away or the host shuts down. */
  signal: AbortSignal;
}

/** Routes answered with a stream rather than one value. */
export type StreamRouteId = {
  [K in LocalRouteId]: LocalRoutes[K] extends { stream: string } ? K : never;
}[LocalRouteId];
export type ValueRouteId = Exclude<LocalRouteId, StreamRouteId>;

export type LocalHandlers = {
  [K in ValueRouteId]: (
    input: HandlerInput<LocalRoutes[K]>,
  ) => Answer<LocalRoutes[K]> | Promise<Answer<LocalRoutes[K]>>;
};

/** Routes the host answers itself rather than the engine. */
export interface HostHandlers {
  /** The web graphical mode's one-time URL (the host serves the app on 127.0.0.1). */
  openGui(): Promise<OpenGuiResponse>;
}

export function localHandlers(engine: EngineApi, host: HostHandlers): LocalHandlers {
  return {
    openGui: () => host.openGui(),
    status: () => engine.status(),
    connect: ({ body, signal }) => engine.connect(body, signal),
    disconnect: () => engine.disconnect(),
    getConfig: () => engine.getConfig(),
    patchConfig: ({ body }) => engine.patchConfig(body),
    setConfigKey: ({ params, body }) => engine.setConfigKey(params.key, body.value),
    init: ({ body }) => engine.init(body),
    createAccount: ({ body }) => engine.createAccount(body),
    login: ({ body }) => engine.login(body),
    logout: () => engine.logout(),
    account: () => engine.account(),
    listDevices: () => engine.listDevices(),
    addDevice: ({ body }) => engine.addDevice(body),
    renameDevice: ({ params, body }) => engine.renameDevice(params.id, body.name),
    revokeDevice: ({ params }) => engine.revokeDevice(params.id),
    listRegions: () => engine.listRegions(),
    addRegionRule: ({ body }) => engine.addRegionRule(body),
    removeRegionRule: ({ params }) => engine.removeRegionRule(params.name),
    latencyCheck: ({ body }) => engine.latencyCheck(body),
    streamTest: ({ body, signal }) => engine.streamTest(body, signal),
    apiAccess: () => engine.apiAccess(),
    testApiAccess: ({ body, signal }) => engine.testApiAccess(body, signal),
    useApiAccess: ({ body, signal }) => engine.useApiAccess(body, signal),
    diagnose: ({ signal }) => engine.diagnose(signal),
    listServices: () => engine.listServices(),
    addService: ({ body }) => engine.addService(body),
    removeService: ({ params }) => engine.removeService(params.name),
    listSplitRules: () => engine.listSplitRules(),
    addSplitRule: ({ body }) => engine.addSplitRule(body),
    removeSplitRule: ({ query }) => engine.removeSplitRule(query),
    splitExec: ({ body }) => engine.splitExec(body),
    startTunnel: ({ body, signal }) => engine.startTunnel(body, signal),
    listTunnels: () => engine.listTunnels(),
    stopTunnel: ({ params }) => engine.stopTunnel(params.tag),
  };
}
