// GET /events: server-sent events of a device's status and key changes.
import type { FastifyReply } from 'fastify';
import type { ConnectionService } from '../domain/connections.js';
import type { DeviceService } from '../domain/devices.js';
import type { EventBus } from '../domain/event-bus.js';
import type { DeviceAuth } from '../domain/ports/devices.js';

const KEEPALIVE_MS = 15_000;

export async function streamEvents(
  reply: FastifyReply,
  auth: DeviceAuth,
  deps: { bus: EventBus; connections: ConnectionService; devices: DeviceService },
  signal: AbortSignal,
): Promise<void> {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    // A stream ends only with the device's interest or the server: never reuse its socket.
    connection: 'close',
    'x-accel-buffering': 'no',
  });
  const send = (event: string, data: unknown) => {
    if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  let last = '';
  // Serialised so that two quick changes cannot be sent out of order.
  let queue = Promise.resolve();
  const sendStatus = () => {
    queue = queue
      .then(async () => {
        const status = await deps.connections.status(auth);
        const text = JSON.stringify(status);
        if (text !== last) {
          last = text;
          send('status', status);
        }
      })
      .catch(() => finish());
  };
  const finish = () => {
    clearInterval(keepalive);
    unsubscribe();
    signal.removeEventListener('abort', finish);
    if (!res.writableEnded) res.end();
  };
  const unsubscribe = deps.bus.subscribe((e) => {
    if (e.kind !== 'device' || e.deviceId !== auth.deviceId) return;
    if (e.change === 'revoked') {
      send('revoked', { device_id: auth.deviceId });
      finish();
    } else if (e.change === 'keys') {
      queue = queue.then(async () => {
        const device = await deps.devices.get(auth, auth.deviceId);
        if (device.ok) send('keys', device.value);
      });
    } else {
      sendStatus();
    }
  });
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  signal.addEventListener('abort', finish);
  res.on('close', finish);
  sendStatus();
}
