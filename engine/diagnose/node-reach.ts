// Whether the node can be reached over UDP and over TCP from this network (node-udp, node-tcp).
// A tunnel that carries traffic is its own evidence; without one, the node a connect would pick
// is probed: the authenticated UDP latency probe, and a TCP connect to its Ferry port.
import {
  diagnosticCheck,
  TRANSPORT_NAMES,
  type DiagnosticAction,
  type DiagnosticCheck,
  type DiagnosticParams,
  type Transport,
} from '../../contracts/index.js';

/** A node to probe: its address (an IP: the kill switch lets addresses out, not names). */
export interface NodeTarget {
  id: string;
  region: string;
  address: string;
  /** The latency probe responder (null: the node runs none). */
  probe: { port: number; key: string } | null;
  /** Its Ferry port, where Ferry over TCP connects (null: no Ferry on this node). */
  ferryPort: number | null;
}

/** How a TCP connect ended. */
export type TcpOutcome = 'connected' | 'refused' | 'blocked' | 'timeout' | 'unreachable';

/** What a tunnel that carries traffic shows: its transport and the connect's notices. */
export interface TunnelEvidence {
  nodeId: string;
  transport: Transport;
  /** The codes of the connection's notices (engine/obfuscation.ts: udp-blocked, obfuscated). */
  notices: readonly string[];
}

/** Why there is no node to probe: in words, and as a finding both node checks carry. */
export interface NoNode {
  /** A sentence for the summary. */
  none: string;
  finding?: 'no-service' | 'signed-out' | 'no-node-list' | 'no-node' | 'no-address';
  params?: DiagnosticParams;
}

export interface NodeReachDeps {
  /** The tunnel that carries traffic now (null: none, so the node is probed). */
  tunnel: TunnelEvidence | null;
  /** The node to probe, or why there is none to probe (a sentence for the summary). */
  node(signal: AbortSignal): Promise<NodeTarget | NoNode>;
  /** Lets the probes out through a kill switch that holds; false: they cannot leave now. */
  allow(target: NodeTarget): Promise<boolean>;
  /** Takes back what `allow` let out that should not stay (called once the probes are done). */
  release?(): Promise<void>;
  /** The authenticated UDP probe: the average round trip in ms, null when nothing answered. */
  probeUdp(target: NodeTarget, signal: AbortSignal): Promise<number | null>;
  connectTcp(address: string, port: number, signal: AbortSignal): Promise<TcpOutcome>;
}

export const OBFUSCATION_FIX =
  'use obfuscation: netcli config set obfuscation on (auto already falls back to TCP)';
export const ANOTHER_REGION_FIX =
  'the node is unreachable from this network: try another region (netcli connect --region ...)';
const UDP_SILENT = 'UDP to the node gets no answer on this network';
const OBFUSCATION_ON: DiagnosticAction = { kind: 'setting', key: 'obfuscation', value: 'on' };
const ANOTHER_REGION: DiagnosticAction = { kind: 'region' };

const TCP_WORDS: Readonly<Record<Exclude<TcpOutcome, 'connected'>, string>> = {
  refused: 'was refused',
  blocked: 'was blocked by this host',
  timeout: 'got no answer within 2 s',
  unreachable: 'found no route',
};

/** The checks from a live tunnel's evidence. */
function fromTunnel(t: TunnelEvidence): [DiagnosticCheck, DiagnosticCheck] {
  const node = t.nodeId;
  if (t.transport === 'udp') {
    return [
      diagnosticCheck('node-udp', 'ok', `the tunnel to ${node} runs over UDP`, null, {
        finding: 'tunnel',
        params: { node },
      }),
      diagnosticCheck(
        'node-tcp',
        'skipped',
        'the tunnel runs over UDP: TCP (the fallback) is not needed while it works',
        null,
        { finding: 'not-needed' },
      ),
    ];
  }
  const name = TRANSPORT_NAMES[t.transport];
  const transport = t.transport;
  const tcp = diagnosticCheck('node-tcp', 'ok', `the tunnel to ${node} runs over ${name}`, null, {
    finding: 'tunnel',
    params: { node, transport },
  });
  if (t.notices.includes('udp-blocked'))
    return [
      diagnosticCheck(
        'node-udp',
        'problem',
        `${UDP_SILENT}: the connect fell back to ${name}`,
        OBFUSCATION_FIX,
        { finding: 'fell-back', params: { transport }, action: OBFUSCATION_ON },
      ),
      tcp,
    ];
  if (t.notices.includes('obfuscated'))
    return [
      diagnosticCheck(
        'node-udp',
        'skipped',
        `obfuscation is on: the tunnel uses ${name} only`,
        null,
        { finding: 'obfuscated', params: { transport } },
      ),
      tcp,
    ];
  return [
    diagnosticCheck('node-udp', 'skipped', `the tunnel runs over ${name}`, null, {
      finding: 'tunnel-other',
      params: { transport },
    }),
    tcp,
  ];
}

export async function checkNodeReach(
  deps: NodeReachDeps,
  signal: AbortSignal,
): Promise<[DiagnosticCheck, DiagnosticCheck]> {
  if (deps.tunnel) return fromTunnel(deps.tunnel);
  const node = await deps.node(signal);
  if ('none' in node) {
    const found = node.finding && {
      finding: node.finding,
      ...(node.params && { params: node.params }),
    };
    return [
      diagnosticCheck('node-udp', 'skipped', node.none, null, found),
      diagnosticCheck('node-tcp', 'skipped', node.none, null, found),
    ];
  }
  if (!(await deps.allow(node))) {
    const why = 'the kill switch holds (lockdown) and lets no probe out while disconnected';
    return [
      diagnosticCheck('node-udp', 'skipped', why, null, { finding: 'lockdown' }),
      diagnosticCheck('node-tcp', 'skipped', why, null, { finding: 'lockdown' }),
    ];
  }
  let udp: number | null | undefined;
  let tcp: TcpOutcome | undefined;
  try {
    [udp, tcp] = await Promise.all([
      node.probe ? deps.probeUdp(node, signal) : Promise.resolve(undefined),
      node.ferryPort !== null
        ? deps.connectTcp(node.address, node.ferryPort, signal)
        : Promise.resolve(undefined),
    ]);
  } finally {
    await deps.release?.();
  }
  const name = `${node.id} (${node.region})`;
  const about = { node: node.id, region: node.region };
  const udpOk = udp === undefined ? undefined : udp !== null;
  const tcpOk = tcp === undefined ? undefined : tcp === 'connected';

  let udpCheck: DiagnosticCheck;
  if (udpOk === undefined)
    udpCheck = diagnosticCheck(
      'node-udp',
      'skipped',
      `${name} runs no latency probe responder`,
      null,
      { finding: 'no-probe', params: about },
    );
  else if (udpOk) {
    const ms = Math.round(udp!);
    udpCheck = diagnosticCheck(
      'node-udp',
      'ok',
      `${name} answers authenticated UDP probes (${ms} ms)`,
      null,
      { finding: 'answers', params: { ...about, ms } },
    );
  } else
    udpCheck =
      tcpOk === true
        ? diagnosticCheck('node-udp', 'problem', `${UDP_SILENT} (${name})`, OBFUSCATION_FIX, {
            finding: 'udp-blocked',
            params: about,
            action: OBFUSCATION_ON,
          })
        : diagnosticCheck('node-udp', 'problem', `${UDP_SILENT} (${name})`, ANOTHER_REGION_FIX, {
            finding: 'unreachable',
            params: about,
            action: ANOTHER_REGION,
          });

  let tcpCheck: DiagnosticCheck;
  const failed = tcp as Exclude<TcpOutcome, 'connected'>;
  if (tcpOk === undefined)
    tcpCheck = diagnosticCheck('node-tcp', 'skipped', `${name} has no Ferry TCP port`, null, {
      finding: 'no-port',
      params: about,
    });
  else if (tcpOk)
    tcpCheck = diagnosticCheck(
      'node-tcp',
      'ok',
      `a TCP connect to ${name}'s Ferry port works`,
      null,
      { finding: 'connects', params: about },
    );
  else if (udpOk === false)
    tcpCheck = diagnosticCheck(
      'node-tcp',
      'problem',
      `a TCP connect to ${name}'s Ferry port ${TCP_WORDS[failed]}`,
      ANOTHER_REGION_FIX,
      { finding: 'unreachable', params: { ...about, outcome: failed }, action: ANOTHER_REGION },
    );
  else
    tcpCheck = diagnosticCheck(
      'node-tcp',
      'warning',
      `a TCP connect to ${name}'s Ferry port ${TCP_WORDS[failed]}: the fallback when UDP is blocked would fail here`,
      'keep obfuscation auto or off on this network, or try another region (netcli connect --region ...)',
      {
        finding: 'fallback-fails',
        params: { ...about, outcome: failed },
        action: ANOTHER_REGION,
      },
    );
  return [udpCheck, tcpCheck];
}
