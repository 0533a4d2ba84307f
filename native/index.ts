// Typed wrapper over the native Ferry data-plane addon: finds the built .node file and maps its errors.
import { closeSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { compileHelloTemplate, type HelloTemplate } from './hello-template.js';
import {
  NativeTunnelError,
  screenChange,
  validateClientOptions,
  validateServerOptions,
  ZERO_COUNTERS,
  type ClientTunnelOptions,
  type DataPlane,
  type NativeErrorCode,
  type PeerRejection,
  type PeerStats,
  type ServerPeer,
  type ServerTunnel,
  type ServerTunnelOptions,
  type TunnelCounters,
  type TunnelEventListener,
} from './tunnel-types.js';

export * from './tunnel-types.js';
export { loadHelloTemplate, type HelloTemplate } from './hello-template.js';

interface NativeHandle {
  close(): void;
  counters(): TunnelCounters | null;
  eventDrops(): number;
  interfaceName(): string;
  /** Removals first (always applied), then each upsert on its own; returns the refused upserts. */
  updatePeers(upsert: ServerPeer[], remove: string[], replaceAll: boolean): PeerRejection[];
  peerStats(): PeerStats[];
}

/** The client options as the addon reads them: the hello template in its compiled line form. */
type NativeClientOptions = Omit<ClientTunnelOptions, 'tls'> & {
  tls?: { serverName: string; hello: string };
};

interface NativeModule {
  startClient(options: NativeClientOptions, onEvent: TunnelEventListener): NativeHandle;
  startServer(options: ServerTunnelOptions, onEvent: TunnelEventListener): NativeHandle;
  generatePrivateKey(): string;
  publicKey(privateKey: string): string;
  markedSocket(family: 4 | 6, kind: 'tcp' | 'udp', mark: number): number;
  apiHello(nodePublicKey: string, serverName: string, helloTemplate: string): Buffer;
}

const ADDON = 'ferry_native.node';

// This file runs both as native/index.ts (tests, via vitest) and as dist/native/index.js (built);
// the addon always stays in native/build/Release.
function addonCandidates(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  return [
    join(here, 'build', 'Release', ADDON),
    join(here, '..', '..', 'native', 'build', 'Release', ADDON),
  ];
}

const NATIVE_CODES: readonly NativeErrorCode[] = [
  'ERR_FERRY_OPTIONS',
  'ERR_FERRY_KEY',
  'ERR_FERRY_TUN',
  'ERR_FERRY_START',
  'ERR_FERRY_MARK',
];

function translate(err: unknown): NativeTunnelError {
  if (err instanceof NativeTunnelError) return err;
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  const known = NATIVE_CODES.find((c) => c === code);
  return new NativeTunnelError(known ?? 'ERR_FERRY_START', message, { cause: err });
}

let loaded: NativeModule | undefined;

function load(): NativeModule {
  if (loaded) return loaded;
  if (process.platform !== 'linux') {
    throw new NativeTunnelError(
      'ERR_FERRY_UNSUPPORTED',
      `the Ferry data plane is only implemented on Linux so far (this is ${process.platform})`,
    );
  }
  const path = addonCandidates().find((p) => existsSync(p));
  if (!path) {
    throw new NativeTunnelError(
      'ERR_FERRY_NOT_BUILT',
      'the native addon is not built: run npm run build:native',
    );
  }
  const require = createRequire(import.meta.url);
  loaded = require(path) as NativeModule;
  return loaded;
}

function wrap(handle: NativeHandle): ServerTunnel {
  const name = handle.interfaceName();
  let last: TunnelCounters | null = null;
  return {
    interfaceName: name,
    counters(): TunnelCounters {
      const c = handle.counters();
      if (c) last = c;
      return last ?? { ...ZERO_COUNTERS };
    },
    eventDrops: () => handle.eventDrops(),
    close: () => handle.close(),
    setPeers(peers) {
      if (!Array.isArray(peers))
        throw new NativeTunnelError('ERR_FERRY_OPTIONS', 'peers must be an array');
      const { upsert, rejected } = screenChange({ upsert: peers });
      try {
        // replaceAll: every peer not in `peers` goes, including those whose entry was refused here.
        return { rejected: [...rejected, ...handle.updatePeers(upsert, [], true)] };
      } catch (err) {
        throw translate(err);
      }
    },
    updatePeers(change) {
      const { upsert, remove, rejected } = screenChange(change);
      // Fail closed: an id whose new entry is refused here loses its old one in the data plane too.
      const refusedIds = rejected.map((r) => r.id).filter((id) => id !== '');
      try {
        return {
          rejected: [...rejected, ...handle.updatePeers(upsert, [...remove, ...refusedIds], false)],
        };
      } catch (err) {
        throw translate(err);
      }
    },
    peerStats() {
      try {
        return handle.peerStats();
      } catch (err) {
        throw translate(err);
      }
    },
  };
}

/**
 * A descriptor handler as the addon calls it: the descriptor is the handler's; if the handler throws,
 * nobody holds it, so it is closed here (nothing may escape into the addon's callback).
 */
function guarded(take: (fd: number, bytes: Buffer) => void): (fd: number, bytes: Buffer) => void {
  return (fd, bytes) => {
    try {
      take(fd, bytes);
    } catch {
      try {
        closeSync(fd);
      } catch {
        // A descriptor the handler closed is gone already.
      }
    }
  };
}

/** The real data plane. Loading is lazy so that importing this module never fails on other platforms. */
export const nativeDataPlane: DataPlane = {
  generatePrivateKey: () => load().generatePrivateKey(),
  publicKey(privateKey) {
    try {
      return load().publicKey(privateKey.trim());
    } catch (err) {
      throw translate(err);
    }
  },
  startClient(options, onEvent) {
    validateClientOptions(options);
    const { tls, ...rest } = options;
    const native: NativeClientOptions = tls
      ? { ...rest, tls: { serverName: tls.serverName, hello: compileHelloTemplate(tls.hello) } }
      : rest;
    try {
      return wrap(load().startClient(native, onEvent));
    } catch (err) {
      throw translate(err);
    }
  },
  startServer(options, onEvent) {
    validateServerOptions(options);
    const onStranger = options.onStranger && guarded(options.onStranger);
    const onApiStream = options.onApiStream && guarded(options.onApiStream);
    try {
      return wrap(load().startServer({ ...options, onStranger, onApiStream }, onEvent));
    } catch (err) {
      throw translate(err);
    }
  },
};

/**
 * A new socket (neither bound nor connected, non-blocking) whose every packet carries `mark`
 * (SO_MARK, set before the descriptor is handed out), for `new net.Socket({ fd })` or a dgram
 * socket's `bind({ fd })`; the caller owns the descriptor. Needs CAP_NET_ADMIN: without it,
 * ERR_FERRY_MARK (never an unmarked socket).
 */
export function markedSocket(family: 4 | 6, kind: 'tcp' | 'udp', mark: number): number {
  try {
    return load().markedSocket(family, kind, mark);
  } catch (err) {
    throw translate(err);
  }
}

/**
 * The first flight of an API stream through a relay (one TLS record: a ClientHello from the template for
 * `serverName`, authenticated for the node whose static public key is `nodePublicKey`, asking for its control
 * plane; docs/protocol.md, "API streams").
 */
export function apiHello(nodePublicKey: string, serverName: string, hello: HelloTemplate): Buffer {
  try {
    return load().apiHello(nodePublicKey, serverName, compileHelloTemplate(hello));
  } catch (err) {
    throw translate(err);
  }
}
