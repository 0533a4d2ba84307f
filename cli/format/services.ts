// netcli's words for services and service tunnels.
import type {
  DestinationSet,
  ServiceTunnel,
  StopTunnelResponse,
  Translate,
} from '../../contracts/index.js';
import { protocolName } from './connection.js';
import { table } from './table.js';
import { english, latencyText } from './words.js';

export function formatDestinationSets(
  view: { services: DestinationSet[] },
  t: Translate = english,
): string[] {
  const lines = table(
    [
      t('output.services.columns.service'),
      t('output.services.columns.from'),
      t('output.services.columns.networks'),
      t('output.services.columns.domains'),
    ],
    view.services.map((s) => [
      s.name,
      s.builtin ? t('output.services.shipped') : t('output.services.yours'),
      s.cidrs.join(', ') || '-',
      s.domains.join(', ') || '-',
    ]),
  );
  if (!view.services.some((s) => !s.builtin)) lines.push('', t('output.services.addYourOwn'));
  return lines;
}

export function formatDestinationSetAdded(s: DestinationSet, t: Translate = english): string[] {
  const what = [
    s.cidrs.length ? t('output.services.networks', { count: s.cidrs.length }) : undefined,
    s.domains.length ? t('output.services.domains', { count: s.domains.length }) : undefined,
  ].filter((w): w is string => w !== undefined);
  return [
    t('output.services.added', {
      name: s.name,
      what:
        what.length === 2 ? t('output.services.and', { first: what[0], second: what[1] }) : what[0],
    }),
    t('output.services.carry', { name: s.name }),
  ];
}

export function formatTunnelStarted(tunnel: ServiceTunnel, t: Translate = english): string[] {
  const protocol = protocolName(tunnel.protocol, t);
  return [
    t('output.services.established', {
      tag: tunnel.tag,
      node: tunnel.node.id,
      region: tunnel.region,
      latency: tunnel.latency ? latencyText(tunnel.latency, t) : t('output.connection.notMeasured'),
    }),
    t('output.services.carries', {
      service: tunnel.service,
      destinations: t('output.services.destinations', { count: tunnel.destinations }),
      interface: tunnel.interface,
      how:
        tunnel.transport === 'tcp'
          ? t('output.services.overTcp', { protocol, cipher: tunnel.cipher })
          : t('output.services.over', { protocol, cipher: tunnel.cipher }),
    }),
  ];
}

export function formatTunnels(
  view: { tunnels: ServiceTunnel[] },
  t: Translate = english,
): string[] {
  if (view.tunnels.length === 0) return [t('output.services.noTunnels')];
  return table(
    [
      t('output.services.columns.tag'),
      t('output.services.columns.service'),
      t('output.services.columns.region'),
      t('output.services.columns.node'),
      t('output.services.columns.latency'),
      t('output.services.columns.interface'),
      t('output.services.columns.status'),
    ],
    view.tunnels.map((tunnel) => [
      tunnel.tag,
      tunnel.service,
      tunnel.region,
      tunnel.node.id,
      tunnel.latency ? latencyText(tunnel.latency, t) : '-',
      tunnel.interface,
      tunnel.status,
    ]),
  );
}

export function formatTunnelStopped(r: StopTunnelResponse, t: Translate = english): string[] {
  return [t('output.services.stopped', { tag: r.tag, service: r.service })];
}
