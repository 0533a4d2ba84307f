// API access through a relay, the client's side: a TCP connection to the relay's TLS port whose
// first flight is a Chrome ClientHello authenticated for that relay and asking for its control
// plane (docs/protocol.md, "API streams"); once the relay's flight is read, the client's
// change_cipher_spec and Finished go out and the stream inside the records is the control
// plane's HTTPS port, over which the caller speaks TLS end to end. A relay that is not ours
// (or does not offer API access) answers as its cover site: the TLS inside then fails.
import { randomBytes } from 'node:crypto';

import { apiHello, loadHelloTemplate, type HelloTemplate } from '../../native/index.js';
import { RecordStream } from '../../platform/tls/record-stream.js';
import {
  connectMarkedTcp,
  openMarkedSocket,
  type MarkedSocketOpener,
} from '../os/marked-socket.js';
import { CONTROL_FWMARK } from '../protection/firewall-policy.js';

/** A relay's TLS port as the signed list gives it, its address looked up. */
export interface RelayTlsPort {
  address: string;
  port: number;
  serverName: string;
  /** The relay's Ferry static public key (base64), which the hello is authenticated for. */
  nodeKey: string;
}

let chrome: HelloTemplate | undefined;

/** The client's answer to the relay's flight: change_cipher_spec and a 53-byte Finished record. */
function clientFinished(): Buffer {
  return Buffer.concat([Buffer.from([20, 3, 3, 0, 1, 1, 23, 3, 3, 0, 53]), randomBytes(53)]);
}

/** Opens an API stream through `relay`: the control plane's HTTPS port, inside the records. */
export async function openRelayStream(
  relay: RelayTlsPort,
  opts: { open?: MarkedSocketOpener; signal?: AbortSignal; hello?: HelloTemplate } = {},
): Promise<RecordStream> {
  chrome ??= loadHelloTemplate();
  const hello = apiHello(relay.nodeKey, relay.serverName, opts.hello ?? chrome);
  const tcp = await connectMarkedTcp(
    relay.address,
    relay.port,
    CONTROL_FWMARK,
    opts.open ?? openMarkedSocket,
    opts.signal,
  );
  tcp.setNoDelay(true);
  tcp.write(hello);
  return new RecordStream(tcp, { skipFirstData: true, answerFlight: clientFinished() });
}
