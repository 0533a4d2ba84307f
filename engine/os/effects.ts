// Every OS effect the engine has, as one bundle of narrow seams: the engine takes an OsEffects,
// the daemon gives it the Linux implementations, unit tests the fakes (effects.fake.ts).
import type { Firewall } from './firewall.js';
import type { Links } from './links.js';
import type { Resolver } from './resolver.js';
import type { Routes } from './routes.js';
import type { Sysctl } from './sysctl.js';

export interface OsEffects {
  links: Links;
  routes: Routes;
  firewall: Firewall;
  resolver: Resolver;
  sysctl: Sysctl;
}

export type { Firewall, NftObject, NftTable, NftTableView } from './firewall.js';
export type { LinkInfo, LinkKind, Links } from './links.js';
export type { Resolver } from './resolver.js';
export type { PolicyRule, Route, RouteTable, Routes } from './routes.js';
export type { Family } from './arguments.js';
export type { Sysctl } from './sysctl.js';
