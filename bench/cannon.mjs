// autocannon in its own process (never the daemon's). argv: url key seconds connections body unique
// With unique = 1, `[<id>]` in the body becomes a fresh id per request (the CLI's -I keeps the
// template's content-length, which hangs the server on a longer id).
import autocannon from 'autocannon';

const [url, key, seconds, connections, body, unique] = process.argv.slice(2);
let id = 0;
const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
const request =
  unique === '1'
    ? {
        method: 'POST',
        headers,
        setupRequest: (req) => ({ ...req, body: body.replaceAll('[<id>]', `${process.pid}-${id++}`) }),
      }
    : { method: 'POST', headers, body };
const result = await autocannon({
  url,
  connections: Number(connections),
  duration: Number(seconds),
  requests: [request],
});
process.stdout.write(JSON.stringify(result) + '\n');
