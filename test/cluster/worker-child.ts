/**
 * A cluster worker in its own process, so a test can kill it for real (SIGKILL) in the
 * middle of a job. Argv: NATS URL, node id, job milliseconds, prefix. Prints "ready"
 * once it pulls, and "started" when a job begins.
 */
import { clusterApp, reportingCheck } from './fixtures.ts';

const [url, nodeId, ms, prefix] = process.argv.slice(2) as [string, string, string, string];
const ran = { count: 0, contents: [] as string[] };
const app = await clusterApp(url, nodeId, 'worker', {
  prefix,
  check: reportingCheck(nodeId, ran, Number(ms), () => process.stdout.write('started\n')),
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
