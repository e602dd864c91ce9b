/** TreeUsageReader: a process tree's memory, CPU and members from /proc, one kept descriptor per member. */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import t from 'tap';
import { mayExceed, processTree, RSS_GROWTH_BYTES_PER_MS, TreeUsageReader } from '../../src/backend/process/rss.ts';
import { waitFor } from './fake.ts';

const vmRssBytes = (pid: number) =>
  Number(/VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
/** What status says for the whole tree (this process may have children: the TypeScript loader's). */
const treeVmRss = (pid: number) => processTree(pid).reduce((a, p) => a + vmRssBytes(p), 0);
/**
 * This process's descriptors open on /proc stat files (what the reader keeps): other descriptors come and go with
 * whatever else runs in this process (a grouped test file's sockets and pipes closing late).
 */
const openFds = () =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return /^\/proc\/\d+\/(?:task\/\d+\/)?stat/.test(readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      return false; // closed since the listing
    }
  }).length;

t.test('the memory read from statm is status VmRSS; the CPU time is read at each scan', async (t) => {
  const reader = new TreeUsageReader(process.pid, 60_000);
  t.teardown(() => reader.close());
  const a = reader.read(true);
  const rss = treeVmRss(process.pid);
  // The same counter read a moment apart: equal but for what the process touched in between.
  t.ok(Math.abs(a.rssBytes - rss) < 0.05 * rss, `statm ${a.rssBytes} B vs VmRSS ${rss} B`);
  // 150 ms of this process's own CPU time (wall time would not do on a loaded machine).
  const start = process.cpuUsage();
  let x = 0;
  const used = () => {
    const u = process.cpuUsage(start);
    return u.user + u.system;
  };
  while (used() < 150_000) for (let i = 0; i < 1000; i++) x += Math.sqrt(x + 1);
  t.ok(x > 0, 'the work was done');
  t.equal(reader.read().cpuSeconds, a.cpuSeconds, 'between scans the CPU time is the last scan’s');
  const b = reader.read(true);
  t.ok(b.cpuSeconds >= a.cpuSeconds + 0.1, `cpu ${a.cpuSeconds} s → ${b.cpuSeconds} s after 150 ms of CPU`);
});

t.test('a child is a member after a fresh scan and leaves when reaped; close releases every descriptor', async (t) => {
  const before = openFds();
  const reader = new TreeUsageReader(process.pid, 60_000);
  const alone = reader.read(true).processes;
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  t.teardown(() => child.kill('SIGKILL'));
  t.equal(reader.read().processes, alone, 'membership is kept until it is due or asked for');
  t.equal(reader.read(true).processes, alone + 1, 'the fresh scan sees the child');
  t.ok(openFds() > before, 'the members’ stat files stay open');
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  t.ok(await waitFor(() => reader.read().processes === alone), 'a reaped child no longer counts');
  reader.close();
  t.equal(openFds(), before, 'no descriptor left open');
  t.same(reader.read(true), { processes: 0, rssBytes: 0, cpuSeconds: 0 }, 'a closed reader reads nothing');
});

t.test('mayExceed: a reading plus the fastest growth since, against the bound', async (t) => {
  const perMs = RSS_GROWTH_BYTES_PER_MS;
  t.ok(perMs >= (16 * 2 ** 30) / 1000, `a generous ceiling: ${Math.round(perMs / 2 ** 20)} MiB per ms`);
  t.notOk(mayExceed(100, 0, 100), 'at the bound is not above it');
  t.ok(mayExceed(101, 0, 100), 'a reading above the bound');
  t.notOk(mayExceed(0, 10, 10 * perMs), 'ten milliseconds of the fastest growth reach the bound, not past it');
  t.ok(mayExceed(1, 10, 10 * perMs), 'one byte more may be past it');
  t.notOk(mayExceed(2 ** 40, 1e9, Infinity), 'no bound is ever passed');
});

t.test(
  'with a bound, memory is read only when it may have passed it, at each scan, and when asked fresh',
  async (t) => {
    let clock = 1000;
    const reader = new TreeUsageReader(process.pid, 60_000, () => clock);
    t.teardown(() => reader.close());
    const first = reader.read(false, Infinity);
    t.equal(reader.readings, 1, 'the first read is a scan, and a scan reads memory');
    t.ok(first.rssBytes > 0);
    const perMs = RSS_GROWTH_BYTES_PER_MS;
    // A bound the reading reaches after 10 ms of the fastest growth.
    const bound = first.rssBytes + 10 * perMs;
    clock += 9;
    t.equal(
      reader.read(false, bound).rssBytes,
      first.rssBytes,
      '9 ms later it cannot be past the bound: the last reading',
    );
    t.equal(reader.readings, 1, 'no pread');
    clock += 2;
    reader.read(false, bound);
    t.equal(reader.readings, 2, '11 ms after the reading it may be: read');
    const second = reader.read(false, bound);
    t.equal(reader.readings, 2, 'the new reading starts the clock again');
    t.equal(second.processes, first.processes, 'the members counted at the last reading');
    reader.read();
    t.equal(reader.readings, 3, 'without a bound: always read');
    reader.read(true, Infinity);
    t.equal(reader.readings, 4, 'a fresh read reads memory whatever the bound');
    clock += 60_001;
    reader.read(false, Infinity);
    t.equal(reader.readings, 5, 'a due scan reads memory too: the reading is never older than the membership');
    reader.read(false, first.rssBytes / 2);
    t.equal(reader.readings, 6, 'a reading already above the bound is always re-read');
  },
);
