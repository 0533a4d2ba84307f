// The five-minute tour: a namespace internet, the control plane, two relays and a client;
// connect, and watch the exit address change. Cleans up after itself.
import { Testbed } from '../e2e/netns/testbed.js';

const say = (line: string) => process.stdout.write(`${line}\n`);
const step = (line: string) => process.stderr.write(`… ${line}\n`);

async function main(): Promise<void> {
  step('building a small internet of network namespaces, starting the control plane');
  const bed = await Testbed.start();
  const stop = () => {
    void bed.stop().then(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    step('starting relays in asia-east and global');
    const tokyo = await bed.addRelay('tokyo', 'asia-east');
    const anywhere = await bed.addRelay('anywhere', 'global');
    say(`control plane   ${bed.controlUrl}`);
    say(`relay asia-east ${tokyo.address}   relay global ${anywhere.address}`);
    say(`echo service    ${bed.echoUrl}`);

    step('signing up and signing a laptop in');
    const account = await bed.newAccount();
    const device = await bed.newDevice(account, 'laptop');
    const laptop = await bed.addClient('laptop', device);
    say(`account ${account}, device ${device.id}, tunnel address ${device.ipv4}`);
    say(`exit address without Ferry:       ${bed.echoFrom('laptop')}`);

    for (const region of ['asia-east', 'global']) {
      const answer = await bed.connect(laptop, {
        encryption: 'AES-256-GCM',
        protocol: 'WireGuard',
        region,
        usage: 'remote-work',
      });
      const exit = await bed.net.waitFor('traffic through the tunnel', 15_000, () => {
        const seen = bed.echoFrom('laptop', 1);
        return seen === answer.node.endpoint_host ? seen : undefined;
      });
      const status = await bed.net.waitFor('status connected', 10_000, async () => {
        const s = await bed.control(device.token).status();
        return s.status === 'connected' ? s : undefined;
      });
      say(
        `exit address via ${region.padEnd(10)}      ${exit}   (status ${status.status}, region ${status.region}, cipher ${answer.cipher})`,
      );
    }
  } finally {
    step('cleaning up');
    await bed.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`demo failed: ${(e as Error).message}\n`);
  process.exit(1);
});
