// The store as a replica of the engine, driven through a fake transport: what each action asks
// the engine, what it keeps of the answers and events, and the words it shows for errors.
import { describe, expect, it } from 'vitest';
import type { LocalConnectResponse } from '../../contracts/local-api.js';
import { FakeTransport } from '../transport/transport.fake.js';
import {
  ACCOUNT,
  ADDED_PHONE,
  CONFIG,
  NEW_PHONE,
  REGIONS,
  REPORT,
  THIS_DEVICE,
  OTHER_DEVICE,
  configAnswer,
  connectedStatus,
  listed,
  signedInEngine,
  statusOf,
} from './engine-answers.fake.js';
import { createEngineStore, type EngineStore, type Regions } from './engine-store.js';
import { ENGINE_DOWN_WORDS, OFFLINE_WORDS } from './error-words.js';

/** Lets every pending promise of the store settle. */
const settle = () => new Promise((r) => setTimeout(r, 0));

function started(engine: FakeTransport): EngineStore {
  const store = createEngineStore(engine);
  store.getState().actions.start();
  return store;
}

async function upAndRead(engine: FakeTransport): Promise<EngineStore> {
  const store = started(engine);
  engine.link('up');
  await settle();
  engine.calls.length = 0;
  return store;
}

function connectAnswer(): LocalConnectResponse {
  return {
    ...connectedStatus(),
    exit_ip: { before: '203.0.113.9', after: '198.51.100.7' },
    routing: { strategy: 'lowest-latency', reasons: ['lowest latency in asia-east (42 ms)'] },
  };
}

describe('reading the engine', () => {
  it('reads status, configuration, regions and account when the link comes up', async () => {
    const engine = signedInEngine();
    const store = started(engine);
    expect(store.getState().link).toBe('unknown');
    engine.link('up');
    await settle();
    const s = store.getState();
    expect(s.link).toBe('up');
    expect(engine.ids().sort()).toEqual(
      ['account', 'getConfig', 'listDevices', 'listRegions', 'status'].sort(),
    );
    expect(s.status?.signed_in).toBe(true);
    expect(s.config).toEqual(CONFIG);
    expect(s.regions).toEqual(REGIONS);
    expect(s.account).toEqual(ACCOUNT);
    expect(s.devices).toEqual([listed(THIS_DEVICE), listed(OTHER_DEVICE)]);
  });

  it('asks nothing that needs a session of a device that is not signed in', async () => {
    const engine = signedInEngine(statusOf({ signed_in: false }));
    const store = started(engine);
    engine.link('up');
    await settle();
    expect(engine.ids().sort()).toEqual(['getConfig', 'status']);
    expect(store.getState().account).toBeNull();
  });

  it('loads the account once a status event says the device signed in', async () => {
    const engine = signedInEngine(statusOf({ signed_in: false }));
    const store = await upAndRead(engine);
    engine.emit({ type: 'status', status: statusOf({ signed_in: true }) });
    await settle();
    expect(engine.ids()).toContain('account');
    expect(store.getState().account?.account_number).toBe('1234567812345678');
    engine.emit({ type: 'status', status: statusOf({ signed_in: false }) });
    expect(store.getState().account).toBeNull();
    expect(store.getState().devices).toBeNull();
  });

  it('keeps the link state, and reads everything again when it comes back', async () => {
    const engine = signedInEngine();
    const store = await upAndRead(engine);
    engine.link('down');
    expect(store.getState().link).toBe('down');
    engine.link('up');
    await settle();
    expect(engine.ids()).toContain('status');
  });

  it('drops a status answer that an event overtook', async () => {
    const engine = signedInEngine();
    let answer!: (v: ReturnType<typeof statusOf>) => void;
    engine.answer('status', () => new Promise((r) => (answer = r)));
    const store = started(engine);
    engine.link('up');
    await settle();
    engine.emit({ type: 'status', status: connectedStatus() });
    answer(statusOf());
    await settle();
    expect(store.getState().status?.status).toBe('connected');
  });
});

describe('status events', () => {
  it('carry the engine’s latency history: the replica keeps none of its own', async () => {
    const engine = signedInEngine();
    const store = started(engine);
    engine.emit({ type: 'status', status: connectedStatus({ latency_history: [40, 41] }) });
    expect(store.getState().status?.latency_history).toEqual([40, 41]);
    expect(store.getState()).not.toHaveProperty('latency');
    engine.emit({ type: 'status', status: statusOf() });
    expect(store.getState().status?.latency_history).toEqual([]);
  });

  it('collect announced notices once each, until disconnected', () => {
    const engine = signedInEngine();
    const store = started(engine);
    const failover = { code: 'failover', message: 'node tyo-1 stopped answering' };
    engine.emit({ type: 'notice', notice: failover });
    engine.emit({ type: 'notice', notice: { code: 'cipher-substituted', message: 'ChaCha20' } });
    engine.emit({ type: 'notice', notice: failover });
    expect(store.getState().notices.map((n) => n.code)).toEqual(['cipher-substituted', 'failover']);
    engine.emit({ type: 'status', status: statusOf() });
    expect(store.getState().notices).toEqual([]);
  });
});

describe('connect and disconnect', () => {
  it('connects with the configured settings and keeps what was measured', async () => {
    const engine = signedInEngine().answer('connect', () => connectAnswer());
    const store = await upAndRead(engine);
    await store.getState().actions.connect();
    // Connected: the regions are read again (the connected one's latency is the tunnel's).
    expect(engine.calls).toEqual([
      { id: 'connect', payload: { body: {} } },
      { id: 'listRegions', payload: {} },
    ]);
    const s = store.getState();
    expect(s.status?.status).toBe('connected');
    expect(s.status).not.toHaveProperty('exit_ip');
    expect(s.lastConnect?.exit.after).toBe('198.51.100.7');
    expect(s.lastConnect?.routing.reasons).toHaveLength(1);
    expect(s.busy.connect).toBeUndefined();
  });

  it('does not connect twice while a connect is under way', async () => {
    const engine = signedInEngine();
    let finish!: (v: LocalConnectResponse) => void;
    engine.answer('connect', () => new Promise((r) => (finish = r)));
    const store = await upAndRead(engine);
    const first = store.getState().actions.connect();
    expect(store.getState().busy.connect).toBe(true);
    await store.getState().actions.connect();
    finish(connectAnswer());
    await first;
    expect(engine.ids()).toEqual(['connect', 'listRegions']);
  });

  it('says in plain words when the service cannot be reached', async () => {
    const engine = signedInEngine().refuse('connect', 'unreachable', 'no answer (ECONNREFUSED)');
    const store = await upAndRead(engine);
    await store.getState().actions.connect();
    expect(store.getState().error).toMatchObject({ code: 'unreachable', words: OFFLINE_WORDS });
  });

  it('blames the engine, not the service, when the engine link is down', async () => {
    const engine = signedInEngine().refuse('connect', 'unreachable', 'no answer');
    const store = await upAndRead(engine);
    engine.link('down');
    await store.getState().actions.connect();
    expect(store.getState().error?.words).toBe(ENGINE_DOWN_WORDS);
  });

  it('offers to sign in when the engine says not signed in', async () => {
    const engine = signedInEngine().refuse('connect', 'not-signed-in', 'sign in first');
    const store = await upAndRead(engine);
    await store.getState().actions.connect();
    expect(store.getState().error).toMatchObject({ action: 'sign-in' });
  });

  it('shows the engine’s own message for other refusals, as a sentence', async () => {
    const engine = signedInEngine().refuse(
      'connect',
      'region-not-in-plan',
      'the basic plan does not include eu-west',
    );
    const store = await upAndRead(engine);
    await store.getState().actions.connect();
    expect(store.getState().error?.words).toBe('The basic plan does not include eu-west.');
  });

  it('treats a connect the user cancelled as no error', async () => {
    const engine = signedInEngine().refuse('connect', 'cancelled', 'the connect was cancelled');
    const store = await upAndRead(engine);
    await store.getState().actions.connect();
    expect(store.getState().error).toBeNull();
  });

  it('disconnects and forgets the measured exit address with the disconnected status', async () => {
    const engine = signedInEngine()
      .answer('connect', () => connectAnswer())
      .answer('disconnect', () => statusOf());
    const store = await upAndRead(engine);
    await store.getState().actions.connect();
    await store.getState().actions.disconnect();
    expect(engine.ids()).toEqual(['connect', 'listRegions', 'disconnect', 'listRegions']);
    expect(store.getState().status?.status).toBe('disconnected');
    expect(store.getState().lastConnect).toBeNull();
  });

  it('connects in stream mode for a platform', async () => {
    const engine = signedInEngine().answer('connect', () => connectAnswer());
    const store = await upAndRead(engine);
    await store.getState().actions.streamFor('netflix');
    expect(engine.calls[0]).toEqual({ id: 'connect', payload: { body: { platform: 'netflix' } } });
    expect(engine.ids()).toEqual(['connect', 'listRegions']);
  });
});

describe('settings', () => {
  it('checks a DNS server before the engine sees it', async () => {
    const engine = signedInEngine();
    const store = await upAndRead(engine);
    for (const bad of ['dns.example', '1.2.3', '224.0.0.1', '']) {
      expect(await store.getState().actions.setDns(bad)).toBe(false);
      expect(store.getState().fieldErrors).toHaveLength(1);
      expect(store.getState().fieldErrors[0]!.field).toBe('dns');
    }
    expect(engine.calls).toEqual([]);
  });

  it('sends a valid DNS server and keeps the engine’s configuration and effect', async () => {
    const engine = signedInEngine().answer('patchConfig', configAnswer('applied'));
    const store = await upAndRead(engine);
    expect(await store.getState().actions.setDns(' 2620:FE::FE ')).toBe(true);
    expect(engine.calls).toEqual([
      { id: 'patchConfig', payload: { body: { dns: '2620:fe::fe' } } },
    ]);
    expect(store.getState().config?.dns).toBe('2620:fe::fe');
    expect(store.getState().configChange).toEqual({ changed: ['dns'], effect: 'applied' });
    expect(store.getState().fieldErrors).toEqual([]);
  });

  it('shows the engine’s field errors beside the field, not as a banner', async () => {
    const errors = [{ field: 'obfuscation', message: 'obfuscation must be one of: auto, on, off' }];
    const engine = signedInEngine().refuse('patchConfig', 'config-invalid', 'refused', errors);
    const store = await upAndRead(engine);
    expect(await store.getState().actions.patchConfig({ obfuscation: 'on' })).toBe(false);
    expect(store.getState().fieldErrors).toEqual(errors);
    expect(store.getState().error).toBeNull();
    expect(store.getState().config).toEqual(CONFIG);
  });

  it('saves a region, and a live tunnel follows it (the engine reconnects)', async () => {
    const engine = signedInEngine(connectedStatus())
      .answer('connect', () => connectAnswer())
      .answer('patchConfig', configAnswer('reconnected'));
    const store = await upAndRead(engine);
    await store.getState().actions.connect();
    await store.getState().actions.chooseRegion('work-asia');
    expect(engine.calls.at(-1)).toEqual({
      id: 'patchConfig',
      payload: { body: { region: 'work-asia' } },
    });
    expect(store.getState().config?.region).toBe('work-asia');
    // A new session: the old exit address is no longer known.
    expect(store.getState().lastConnect).toBeNull();
  });

  it('replaces a connect under way when the region changes', async () => {
    const engine = signedInEngine(statusOf({ status: 'connecting' }))
      .answer('connect', () => connectAnswer())
      .answer('patchConfig', configAnswer('saved'));
    const store = await upAndRead(engine);
    await store.getState().actions.chooseRegion('asia-east');
    expect(engine.ids()).toEqual(['patchConfig', 'connect', 'listRegions']);
  });
});

describe('account and session', () => {
  it('refuses a mistyped account number without asking the engine', async () => {
    const engine = signedInEngine(statusOf({ signed_in: false }));
    const store = await upAndRead(engine);
    expect(await store.getState().actions.login('1234')).toBe(false);
    expect(store.getState().fieldErrors[0]?.field).toBe('account_number');
    expect(engine.calls).toEqual([]);
  });

  it('signs in with the digits only, then reads everything again', async () => {
    const engine = signedInEngine(statusOf({ signed_in: false })).answer('login', () => ({
      account_number: ACCOUNT.account_number,
      device: THIS_DEVICE,
    }));
    const store = await upAndRead(engine);
    expect(await store.getState().actions.login('1234 5678-1234 5678')).toBe(true);
    expect(engine.calls[0]).toEqual({
      id: 'login',
      payload: { body: { account_number: '1234567812345678' } },
    });
    expect(engine.ids()).toContain('status');
  });

  it('shows a new account’s number until dismissed', async () => {
    const engine = signedInEngine(statusOf({ signed_in: false })).answer('createAccount', () => ({
      account_number: '8765432187654321',
      device: THIS_DEVICE,
    }));
    const store = await upAndRead(engine);
    await store.getState().actions.createAccount();
    expect(store.getState().newAccountNumber).toBe('8765432187654321');
    store.getState().actions.dismissNewAccount();
    expect(store.getState().newAccountNumber).toBeNull();
  });

  it('revokes another device and reads the list again', async () => {
    const engine = signedInEngine().answer('revokeDevice', () => undefined);
    const store = await upAndRead(engine);
    engine.answer('listDevices', () => ({ devices: [listed(THIS_DEVICE)] }));
    await store.getState().actions.revokeDevice(OTHER_DEVICE.id);
    expect(engine.calls[0]).toEqual({
      id: 'revokeDevice',
      payload: { params: { id: OTHER_DEVICE.id } },
    });
    expect(store.getState().devices).toEqual([listed(THIS_DEVICE)]);
  });

  it('reads the whole picture again after revoking this very device', async () => {
    const engine = signedInEngine().answer('revokeDevice', () => undefined);
    const store = await upAndRead(engine);
    engine.answer('status', () => statusOf({ signed_in: false }));
    await store.getState().actions.revokeDevice(THIS_DEVICE.id);
    expect(engine.ids()).toContain('status');
    expect(store.getState().status?.signed_in).toBe(false);
    expect(store.getState().devices).toBeNull();
  });

  it('checks the service address before init', async () => {
    const engine = signedInEngine(statusOf({ signed_in: false, service_configured: false }));
    const store = await upAndRead(engine);
    expect(await store.getState().actions.init('ftp://ferry.example')).toBe(false);
    expect(store.getState().fieldErrors[0]?.field).toBe('endpoint');
    expect(engine.calls).toEqual([]);
  });
});

describe('adding a phone or tablet', () => {
  it('asks the engine, keeps the config until closed, then forgets it; reads the list again', async () => {
    const engine = signedInEngine().answer('addDevice', () => ADDED_PHONE);
    const store = await upAndRead(engine);
    engine.answer('listDevices', () => ({
      devices: [listed(THIS_DEVICE), listed(OTHER_DEVICE), listed(NEW_PHONE)],
    }));
    const { addDevice, finishAddDevice } = store.getState().actions;
    expect(
      await addDevice({
        kind: 'phone',
        name: '  Anna’s phone ',
        region: 'asia-east',
        allow_lan: true,
      }),
    ).toBe(true);
    expect(engine.calls[0]).toEqual({
      id: 'addDevice',
      payload: {
        body: { kind: 'phone', name: 'Anna’s phone', region: 'asia-east', allow_lan: true },
      },
    });
    expect(engine.ids()).toEqual(expect.arrayContaining(['account', 'listDevices']));
    expect(store.getState().addedDevice).toEqual(ADDED_PHONE);
    expect(store.getState().addedDevice?.config).toMatch(/^PrivateKey = /m);
    expect(store.getState().devices).toContainEqual(listed(NEW_PHONE));
    expect(store.getState().busy.addDevice).toBeUndefined();

    finishAddDevice();
    const after = store.getState();
    expect(after.addedDevice).toBeNull();
    expect(after.addDeviceError).toBeNull();
    // Nothing of the config is left anywhere in the replica.
    expect(JSON.stringify({ ...after, actions: undefined })).not.toContain('PrivateKey');
    expect(after.devices).toContainEqual(listed(NEW_PHONE));
  });

  it('leaves out the region when none was chosen: the engine uses this device’s setting', async () => {
    const engine = signedInEngine().answer('addDevice', () => ADDED_PHONE);
    const store = await upAndRead(engine);
    await store.getState().actions.addDevice({ kind: 'tablet', name: 'Tab' });
    expect(engine.calls[0]?.payload).toEqual({
      body: { kind: 'tablet', name: 'Tab', allow_lan: false },
    });
  });

  it('refuses a blank name at its field without asking the engine', async () => {
    const engine = signedInEngine();
    const store = await upAndRead(engine);
    expect(await store.getState().actions.addDevice({ kind: 'phone', name: '   ' })).toBe(false);
    expect(engine.calls).toEqual([]);
    const error = store.getState().addDeviceError;
    expect(error?.errors).toEqual([{ field: 'name', message: expect.stringMatching(/name/) }]);
    // Not a banner: the form shows it.
    expect(store.getState().error).toBeNull();
    store.getState().actions.finishAddDevice();
    expect(store.getState().addDeviceError).toBeNull();
  });

  it('says in words that the plan’s device limit is reached, and to revoke a device first', async () => {
    const engine = signedInEngine().refuse(
      'addDevice',
      'device-limit',
      'the Basic plan allows 3 devices; revoke one to add this one',
    );
    const store = await upAndRead(engine);
    expect(await store.getState().actions.addDevice({ kind: 'phone', name: 'Phone 2' })).toBe(
      false,
    );
    const error = store.getState().addDeviceError;
    expect(error?.code).toBe('device-limit');
    expect(error?.words).toMatch(/device limit is reached/);
    expect(error?.words).toMatch(/Revoke a device/);
    expect(store.getState().addedDevice).toBeNull();
    // Nothing was added: the list is not read again.
    expect(engine.ids()).toEqual(['addDevice']);
  });

  it('keeps the engine’s field errors for the form to show at each field', async () => {
    const errors = [{ field: 'region', message: 'region-not-in-plan' }];
    const engine = signedInEngine().refuse('addDevice', 'validation-failed', 'invalid', errors);
    const store = await upAndRead(engine);
    await store.getState().actions.addDevice({ kind: 'phone', name: 'P', region: 'eu-west' });
    expect(store.getState().addDeviceError?.errors).toEqual(errors);
    expect(store.getState().error).toBeNull();
  });

  it('says the service is out of reach in the usual words', async () => {
    const engine = signedInEngine().refuse('addDevice', 'unreachable', 'ECONNREFUSED');
    const store = await upAndRead(engine);
    await store.getState().actions.addDevice({ kind: 'phone', name: 'P' });
    expect(store.getState().addDeviceError?.words).toBe(OFFLINE_WORDS);
  });

  it('adds one device per click: a second while one is under way is not sent', async () => {
    let answer!: (v: typeof ADDED_PHONE) => void;
    const engine = signedInEngine().answer('addDevice', () => new Promise((r) => (answer = r)));
    const store = await upAndRead(engine);
    const first = store.getState().actions.addDevice({ kind: 'phone', name: 'P' });
    expect(store.getState().busy.addDevice).toBe(true);
    expect(await store.getState().actions.addDevice({ kind: 'phone', name: 'P' })).toBe(false);
    answer(ADDED_PHONE);
    expect(await first).toBe(true);
    expect(engine.ids().filter((id) => id === 'addDevice')).toHaveLength(1);
  });

  it('forgets the config when the device signs out', async () => {
    const engine = signedInEngine().answer('addDevice', () => ADDED_PHONE);
    const store = await upAndRead(engine);
    await store.getState().actions.addDevice({ kind: 'phone', name: 'P' });
    engine.emit({ type: 'status', status: statusOf({ signed_in: false }) });
    expect(store.getState().addedDevice).toBeNull();
  });
});

describe('regions and their latencies', () => {
  /** REGIONS with these latencies per region id. */
  function regionsWith(latency: Record<string, string | null>): Regions {
    return {
      ...REGIONS,
      regions: REGIONS.regions.map((r) => ({ ...r, latency: latency[r.id] ?? r.latency })),
    };
  }
  const tokyo2 = { id: 'tyo-2', region: 'asia-east', endpoint: '198.51.100.8:51820' };

  it('are read again when the tunnel comes up, moves to another node, and goes down', async () => {
    const engine = signedInEngine();
    const store = await upAndRead(engine);
    const measured = regionsWith({ 'asia-east': '17ms' });
    engine.answer('listRegions', () => measured);
    engine.emit({ type: 'status', status: statusOf({ status: 'connecting' }) });
    await settle();
    expect(engine.ids()).toEqual([]);

    engine.emit({ type: 'status', status: connectedStatus({ latency: '17ms' }) });
    await settle();
    expect(engine.ids()).toEqual(['listRegions']);
    expect(store.getState().regions).toEqual(measured);

    engine.emit({ type: 'status', status: connectedStatus({ latency: '19ms', node: tokyo2 }) });
    await settle();
    expect(engine.ids()).toEqual(['listRegions', 'listRegions']);

    engine.emit({ type: 'status', status: statusOf() });
    await settle();
    expect(engine.ids()).toEqual(['listRegions', 'listRegions', 'listRegions']);
  });

  it('a read that failed while the tunnel was replaced is forgotten once the next one answers', async () => {
    const engine = signedInEngine(connectedStatus());
    const store = await upAndRead(engine);
    engine.refuse('listRegions', 'unreachable', 'ECONNRESET');
    engine.emit({ type: 'status', status: statusOf({ status: 'reconnecting' }) });
    await settle();
    expect(store.getState().error).toMatchObject({ code: 'unreachable', words: OFFLINE_WORDS });
    engine.answer('listRegions', () => REGIONS);
    engine.emit({ type: 'status', status: connectedStatus({ node: tokyo2 }) });
    await settle();
    expect(store.getState().error).toBeNull();
    // Another call's error stays until it is dismissed or answered.
    engine.refuse('latencyCheck', 'unreachable', 'ECONNREFUSED');
    await store.getState().actions.measureLatencies();
    engine.emit({ type: 'status', status: connectedStatus({ node: { ...tokyo2, id: 'tyo-3' } }) });
    await settle();
    expect(store.getState().error).toMatchObject({ code: 'unreachable' });
  });

  it('are not read again for a mere latency sample', async () => {
    const engine = signedInEngine(connectedStatus());
    const store = await upAndRead(engine);
    const samples = [40, 41, 39, 44];
    samples.forEach((ms, i) =>
      engine.emit({
        type: 'status',
        status: connectedStatus({
          latency: `${ms}ms`,
          latency_ms: ms,
          latency_history: samples.slice(0, i + 1),
        }),
      }),
    );
    await settle();
    expect(engine.ids()).toEqual([]);
    expect(store.getState().status?.latency_history).toHaveLength(4);
  });

  it('are read again when a switch of region reconnects elsewhere', async () => {
    const engine = signedInEngine(connectedStatus());
    await upAndRead(engine);
    const global = { id: 'zrh-1', region: 'global', endpoint: '198.51.100.9:51820' };
    engine.emit({
      type: 'status',
      status: connectedStatus({ status: 'reconnecting', region: 'global', node: global }),
    });
    await settle();
    expect(engine.ids()).toEqual(['listRegions']);
    engine.emit({ type: 'status', status: connectedStatus({ region: 'global', node: global }) });
    await settle();
    expect(engine.ids()).toEqual(['listRegions', 'listRegions']);
  });

  it('read once more when asked again while a read is under way: the newest answer stays', async () => {
    const engine = signedInEngine();
    const store = await upAndRead(engine);
    const answers: ((v: Regions) => void)[] = [];
    engine.answer('listRegions', () => new Promise<Regions>((r) => answers.push(r)));
    engine.emit({ type: 'status', status: connectedStatus() });
    engine.emit({ type: 'status', status: statusOf() });
    await settle();
    expect(engine.ids()).toEqual(['listRegions']);
    answers[0]!(regionsWith({ 'asia-east': '42ms' }));
    await settle();
    expect(engine.ids()).toEqual(['listRegions', 'listRegions']);
    const after = regionsWith({ 'asia-east': '55ms' });
    answers[1]!(after);
    await settle();
    expect(store.getState().regions).toEqual(after);
    expect(store.getState().busy.regions).toBeUndefined();
  });

  it('measuring asks the engine to probe every region, then reads them again', async () => {
    const engine = signedInEngine().answer('latencyCheck', () => ({
      results: [
        {
          node_id: 'ams-1',
          region: 'eu-west',
          method: 'authenticated UDP probe',
          samples: 5,
          avg_ms: 23,
          jitter_ms: 1,
          loss: 0,
        },
      ],
      duration_ms: 900,
    }));
    const store = await upAndRead(engine);
    const measured = regionsWith({ 'eu-west': '23ms' });
    engine.answer('listRegions', () => measured);
    const measuring = store.getState().actions.measureLatencies();
    expect(store.getState().busy.latencyCheck).toBe(true);
    await measuring;
    expect(engine.calls).toEqual([
      { id: 'latencyCheck', payload: { body: { all: true } } },
      { id: 'listRegions', payload: {} },
    ]);
    expect(store.getState().regions).toEqual(measured);
    expect(store.getState().busy.latencyCheck).toBeUndefined();
    expect(store.getState().latencyNote).toBeNull();
  });

  it('keeps what the engine said of the nodes it left out (connected: the one in use only)', async () => {
    const note = 'only the node in use is measured while connected';
    const engine = signedInEngine().answer('latencyCheck', () => ({
      results: [],
      duration_ms: 300,
      note,
    }));
    const store = await upAndRead(engine);
    await store.getState().actions.measureLatencies();
    expect(store.getState().latencyNote).toBe(note);
    engine.answer('latencyCheck', () => ({ results: [], duration_ms: 300 }));
    await store.getState().actions.measureLatencies();
    expect(store.getState().latencyNote).toBeNull();
  });

  it('measures once at a time', async () => {
    let finish!: () => void;
    const engine = signedInEngine().answer(
      'latencyCheck',
      () => new Promise((r) => (finish = () => r({ results: [], duration_ms: 1 }))),
    );
    const store = await upAndRead(engine);
    const first = store.getState().actions.measureLatencies();
    await store.getState().actions.measureLatencies();
    finish();
    await first;
    expect(engine.ids()).toEqual(['latencyCheck', 'listRegions']);
  });

  it('a refused measurement is said in the usual words, and nothing is read', async () => {
    const engine = signedInEngine().refuse('latencyCheck', 'unreachable', 'ECONNREFUSED');
    const store = await upAndRead(engine);
    await store.getState().actions.measureLatencies();
    expect(store.getState().error).toMatchObject({ code: 'unreachable', words: OFFLINE_WORDS });
    expect(engine.ids()).toEqual(['latencyCheck']);
    expect(store.getState().regions).toEqual(REGIONS);
    expect(store.getState().busy.latencyCheck).toBeUndefined();
  });
});

describe('diagnostics', () => {
  it('keeps the engine’s report', async () => {
    const engine = signedInEngine();
    const store = await upAndRead(engine);
    await store.getState().actions.runDiagnostics();
    expect(engine.ids()).toEqual(['diagnose']);
    expect(store.getState().diagnostics).toEqual(REPORT);
  });
});

describe('config changes in flight', () => {
  it('are shown as pending until the engine answers, then its answer counts', async () => {
    const engine = signedInEngine();
    let answer!: () => void;
    engine.answer(
      'patchConfig',
      (p) => new Promise((r) => (answer = () => r(configAnswer('reconnected')(p)))),
    );
    const store = await upAndRead(engine);
    const saving = store.getState().actions.patchConfig({ mode: 'stream' });
    expect(store.getState().configPending).toEqual({ mode: 'stream' });
    expect(store.getState().config?.mode).toBe('secure');
    expect(store.getState().busy.config).toBe(true);
    await settle();
    answer();
    expect(await saving).toBe(true);
    expect(store.getState().configPending).toBeNull();
    expect(store.getState().config?.mode).toBe('stream');
    expect(store.getState().busy.config).toBeUndefined();
  });

  it('go to the engine one after the other, none dropped', async () => {
    const engine = signedInEngine();
    const answers: (() => void)[] = [];
    engine.answer(
      'patchConfig',
      (p) => new Promise((r) => answers.push(() => r(configAnswer('applied')(p)))),
    );
    const store = await upAndRead(engine);
    const first = store.getState().actions.patchConfig({ kill_switch: false });
    const second = store.getState().actions.patchConfig({ split: 'off' });
    expect(store.getState().configPending).toEqual({ kill_switch: false, split: 'off' });
    await settle();
    expect(engine.calls).toHaveLength(1);
    answers[0]!();
    await first;
    await settle();
    expect(engine.calls.map((c) => c.payload)).toEqual([
      { body: { kill_switch: false } },
      { body: { split: 'off' } },
    ]);
    expect(store.getState().configPending).not.toBeNull();
    answers[1]!();
    await second;
    expect(store.getState().configPending).toBeNull();
  });

  it('fall back to the engine’s values when refused', async () => {
    const engine = signedInEngine().refuse('patchConfig', 'config-invalid', 'refused', [
      { field: 'mode', message: 'mode must be one of: secure, stream' },
    ]);
    const store = await upAndRead(engine);
    await store.getState().actions.patchConfig({ mode: 'stream' });
    expect(store.getState().configPending).toBeNull();
    expect(store.getState().config?.mode).toBe('secure');
  });
});

describe('ordering', () => {
  it('sends a connect only after the setting changed just before it', async () => {
    const engine = signedInEngine().answer('connect', () => ({
      ...connectedStatus(),
      exit_ip: { before: null, after: null },
      routing: { strategy: 'lowest-latency', reasons: [] },
    }));
    let answer!: () => void;
    engine.answer(
      'patchConfig',
      (p) => new Promise((r) => (answer = () => r(configAnswer('saved')(p)))),
    );
    const store = await upAndRead(engine);
    const choosing = store.getState().actions.chooseRegion('asia-east');
    const connecting = store.getState().actions.connect();
    await settle();
    expect(engine.ids()).toEqual(['patchConfig']);
    answer();
    await Promise.all([choosing, connecting]);
    expect(engine.ids()).toEqual(['patchConfig', 'connect', 'listRegions']);
  });
});
