// netcli's words for services and service tunnels.
import type { DestinationSet, ServiceTunnel, StopTunnelResponse } from '../../contracts/index.js';
import { protocolName } from './connection.js';
import { table } from './table.js';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function formatDestinationSets(view: { services: DestinationSet[] }): string[] {
  const lines = table(
    ['SERVICE', 'FROM', 'NETWORKS', 'DOMAINS'],
    view.services.map((s) => [
      s.name,
      s.builtin ? 'shipped' : 'yours',
      s.cidrs.join(', ') || '-',
      s.domains.join(', ') || '-',
    ]),
  );
  if (!view.services.some((s) => !s.builtin))
    lines.push(
      '',
      'Add your own: netcli service add <name> --cidr <network>... --domain <name>...',
    );
  return lines;
}

export function formatDestinationSetAdded(s: DestinationSet): string[] {
  const what = [
    s.cidrs.length ? plural(s.cidrs.length, 'network') : undefined,
    s.domains.length ? plural(s.domains.length, 'domain') : undefined,
  ].filter(Boolean);
  return [
    `Service ${s.name} added: ${what.join(' and ')}.`,
    `Carry it through a tunnel of its own: netcli tunnel start --service ${s.name} --tag <tag>`,
  ];
}

export function formatTunnelStarted(t: ServiceTunnel): string[] {
  return [
    `Tunnel ${t.tag} established via ${t.node.id} (${t.region}), latency ${t.latency ?? 'not measured'}.`,
    `Service ${t.service}: ${plural(t.destinations, 'destination')} through ${t.interface} ` +
      `(${protocolName(t.protocol)}${t.transport === 'tcp' ? ' over TCP' : ''}, ${t.cipher}).`,
  ];
}

export function formatTunnels(view: { tunnels: ServiceTunnel[] }): string[] {
  if (view.tunnels.length === 0)
    return ['No service tunnels (start one: netcli tunnel start --service <name> --tag <tag>).'];
  return table(
    ['TAG', 'SERVICE', 'REGION', 'NODE', 'LATENCY', 'INTERFACE', 'STATUS'],
    view.tunnels.map((t) => [
      t.tag,
      t.service,
      t.region,
      t.node.id,
      t.latency ?? '-',
      t.interface,
      t.status,
    ]),
  );
}

export function formatTunnelStopped(r: StopTunnelResponse): string[] {
  return [`Tunnel ${r.tag} (service ${r.service}) stopped.`];
}
