// `node dist/scripts/add-node.js`: adds a relay node through the control plane's admin API and
// prints its node token on stdout (nothing else). The admin token comes from FERRY_ADMIN_TOKEN,
// never from the command line, which every user of the machine can read in the process list.
import { Command, InvalidArgumentError } from 'commander';
import { createControlClient } from '../contracts/index.js';

function integer(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`a whole number ${min}-${max}`);
    return n;
  };
}

const program = new Command('add-node')
  .description('Add a relay node (admin API) and print its node token')
  .requiredOption(
    '--control-url <url>',
    'the control plane, e.g. https://127.0.0.1:8080 (a private CA: NODE_EXTRA_CA_CERTS)',
  )
  .requiredOption('--region <id>', 'the region the node serves')
  .requiredOption('--endpoint-host <host>', 'the address clients reach the node at')
  .requiredOption('--wireguard-port <port>', 'its WireGuard UDP port', integer(1, 65535))
  .option('--ferry-port <port>', 'its Ferry protocol port (UDP and TCP)', integer(1, 65535))
  .option('--capacity-mbps <n>', 'its capacity; load is measured against it', integer(1, 100_000))
  .parse();
const o = program.opts<{
  controlUrl: string;
  region: string;
  endpointHost: string;
  wireguardPort: number;
  ferryPort?: number;
  capacityMbps?: number;
}>();

const adminToken = process.env.FERRY_ADMIN_TOKEN;
if (!adminToken) {
  process.stderr.write('add-node: FERRY_ADMIN_TOKEN is not set\n');
  process.exit(2);
}

try {
  const node = await createControlClient({
    baseUrl: o.controlUrl,
    fetch,
    token: () => adminToken,
  }).adminCreateNode({
    body: {
      region: o.region,
      endpoint_host: o.endpointHost,
      wireguard_port: o.wireguardPort,
      ...(o.ferryPort === undefined ? {} : { ferry_port: o.ferryPort }),
      capacity_mbps: o.capacityMbps ?? 1_000,
    },
  });
  process.stdout.write(`${node.token}\n`);
  process.stderr.write(`add-node: node ${node.id} in ${node.region}\n`);
} catch (e) {
  process.stderr.write(`add-node: ${(e as Error).message}\n`);
  process.exit(1);
}
