// netcli service add|list|remove and tunnel start|list|stop, in process against the in-memory
// engine through the real host on a temp socket: what a person reads, the stable JSON a script
// reads, and the refusals with what to do.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceTunnel } from '../contracts/index.js';
import { CliHarness } from './testing/cli-harness.js';

describe('netcli service and tunnel', () => {
  const cli = new CliHarness('ferry-cli-svc-');
  const { netcli, ok, json } = cli;
  beforeEach(() => cli.startSignedIn());
  afterEach(() => cli.close());

  it('service add takes networks and domains, and service list shows them beside the shipped ones', async () => {
    const added = await ok(
      'service',
      'add',
      'Office',
      '--cidr',
      '10.20.0.0/16',
      '198.51.100.7',
      '--domain',
      'Wiki.Corp.Example',
    );
    expect(added.stdout).toBe(
      'Service office added: 2 networks and 1 domain.\n' +
        'Carry it through a tunnel of its own: netcli tunnel start --service office --tag <tag>\n',
    );
    expect(
      await json('service', 'add', 'lab', '--cidr', '10.30.0.0/16', '--cidr', '10.31.0.0/16'),
    ).toEqual({
      name: 'lab',
      builtin: false,
      description: null,
      cidrs: ['10.30.0.0/16', '10.31.0.0/16'],
      domains: [],
    });
    const list = (await ok('service', 'list')).stdout.split('\n');
    expect(list[0]).toMatch(/^SERVICE\s+FROM\s+NETWORKS\s+DOMAINS$/);
    expect(list).toContainEqual(expect.stringMatching(/^github\s+shipped\s+-\s+github\.com, /));
    expect(list).toContainEqual(
      expect.stringMatching(
        /^office\s+yours\s+10\.20\.0\.0\/16, 198\.51\.100\.7\/32\s+wiki\.corp\.example$/,
      ),
    );
    const listed = await json('service');
    expect(listed.services.filter((s: { builtin: boolean }) => !s.builtin)).toHaveLength(2);
    expect(await json('service', 'remove', 'lab')).toEqual({ removed: 'lab' });
    expect((await ok('service', 'remove', 'office')).stdout).toBe('Service office removed.\n');
  });

  it('service add refuses a bad network with what it takes, and names taken', async () => {
    const bad = await netcli(
      'service',
      'add',
      'office',
      '--cidr',
      '10.20.1.5/16',
      '--cidr',
      'corp',
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^netcli: invalid body: cidrs\.0, cidrs\.1\n/);
    expect(bad.stderr).toMatch(/hint: cidrs\.0: it has host bits set.*CIDR notation/);
    expect(bad.stderr).toMatch(/hint: cidrs\.1: not an IPv4 or IPv6 address/);
    const empty = await netcli('service', 'add', 'office');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/at least one network \(--cidr\) or domain \(--domain\)/);
    const shipped = await netcli('service', 'add', 'github', '--cidr', '10.0.0.0/8');
    expect(shipped.code).toBe(1);
    expect(shipped.stderr).toMatch(
      /^netcli: a service named github exists\nhint: choose another name/,
    );
    const missing = await netcli('tunnel', 'start', '--service', 'nowhere', '--tag', 'x');
    expect(missing.stderr).toMatch(/there is no service nowhere\nhint: netcli service list/);
  });

  it('tunnel start says it is established, via which node, with its latency', async () => {
    await ok('service', 'add', 'office', '--cidr', '10.20.0.0/16', '--domain', 'wiki.corp.example');
    const r = await ok(
      'tunnel',
      'start',
      '--service',
      'office',
      '--tag',
      'work',
      '--region',
      'global',
    );
    const t = cli.engine.serviceTunnels.running.get('work')!;
    expect(r.stdout).toBe(
      'Tunnel work established via zrh-1 (global), latency 18ms.\n' +
        `Service office: 2 destinations through ${t.interface} (WireGuard, ChaCha20-Poly1305).\n`,
    );
    const again = await netcli('tunnel', 'start', '--service', 'github', '--tag', 'work');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/tunnel tagged work is running\nhint: netcli tunnel list/);
    const j = await json(
      'tunnel',
      'start',
      '--service',
      'github',
      '--tag',
      'Code',
      '--protocol',
      'Ferry',
    );
    expect(ServiceTunnel.parse(j)).toMatchObject({
      tag: 'code',
      service: 'github',
      protocol: 'ferry',
      region: 'global',
    });

    const list = (await ok('tunnel', 'list')).stdout.split('\n');
    expect(list[0]).toMatch(/^TAG\s+SERVICE\s+REGION\s+NODE\s+LATENCY\s+INTERFACE\s+STATUS$/);
    expect(list[1]).toMatch(/^work\s+office\s+global\s+zrh-1\s+18ms\s+fytwork\d+\s+connected$/);
    expect(list[2]).toMatch(/^code\s+github\s+global\s+zrh-1/);
    expect((await json('tunnel')).tunnels.map((x: { tag: string }) => x.tag)).toEqual([
      'work',
      'code',
    ]);
  });

  it('tunnel stop stops it and removes its registration; an unknown tag is refused', async () => {
    await ok('service', 'add', 'office', '--cidr', '10.20.0.0/16');
    await ok('tunnel', 'start', '--service', 'office', '--tag', 'work');
    const stopped = await ok('tunnel', 'stop', '--tag', 'work');
    expect(stopped.stdout).toBe('Tunnel work (service office) stopped.\n');
    expect(cli.engine.serviceTunnels.unregistered).toEqual(['work']);
    expect((await ok('tunnel', 'list')).stdout).toMatch(/^No service tunnels/);
    const unknown = await netcli('tunnel', 'stop', '--tag', 'work');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no tunnel tagged work is running\nhint: netcli tunnel list/);
    const usage = await netcli('tunnel', 'stop');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--tag/);
  });

  it('tunnel start refuses a service whose domain does not resolve, naming no domain', async () => {
    await ok('service', 'add', 'office', '--domain', 'wiki.corp.example', 'gone.corp.example');
    cli.engine.serviceTunnels.unresolvable.add('gone.corp.example');
    const r = await netcli('tunnel', 'start', '--service', 'office', '--tag', 'work');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/1 of the 2 domains of service office did not resolve/);
    expect(r.stderr).toMatch(/hint: check this host’s DNS/);
    expect(r.stderr).not.toMatch(/corp\.example/);
    expect(cli.engine.serviceTunnels.running.size).toBe(0);
  });

  it('tunnel start needs a signed-in device, and logout stops the tunnels', async () => {
    await ok('service', 'add', 'office', '--cidr', '10.20.0.0/16');
    await ok('tunnel', 'start', '--service', 'office', '--tag', 'work');
    await ok('logout');
    expect(cli.engine.serviceTunnels.running.size).toBe(0);
    const r = await netcli('tunnel', 'start', '--service', 'office', '--tag', 'work');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not signed in\nhint: netcli account create or netcli login/);
  });
});
