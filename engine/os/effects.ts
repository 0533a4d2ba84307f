// Every OS effect the engine has, as one bundle of narrow seams: the engine takes an OsEffects,
// the daemon gives it the Linux implementations (platform/os, and the engine's own resolver),
// unit tests the fakes (effects.fake.ts).
import type { Links } from '../../platform/os/links.js';
import type { Firewall } from '../../platform/os/nftables.js';
import type { Routes } from '../../platform/os/routes.js';
import type { Sysctl } from '../../platform/os/sysctl.js';
import type { Resolver } from './resolver.js';

export interface OsEffects {
  links: Links;
  routes: Routes;
  firewall: Firewall;
  resolver: Resolver;
  sysctl: Sysctl;
}

export type { Firewall, NftObject, NftTable, NftTableView } from '../../platform/os/nftables.js';
export type { LinkInfo, LinkKind, Links } from '../../platform/os/links.js';
export type { Resolver } from './resolver.js';
export type { PolicyRule, Route, RouteTable, Routes } from '../../platform/os/routes.js';
export type { Family } from '../../platform/os/arguments.js';
export type { Sysctl } from '../../platform/os/sysctl.js';
