// Alertmanager webhook receiver for scripts/e2e-observability.sh, on 127.0.0.1 only.
//
//   node scripts/e2e/webhook.mjs <port>
//
// Records every POST (path + JSON body) and serves the list on GET /calls, so the e2e script asks this
// receiver, through HTTP like Alertmanager itself, which notifications arrived.
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  console.error('usage: node scripts/e2e/webhook.mjs <port>');
  process.exit(2);
}

const calls = [];
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/calls') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(calls));
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = { unparsed: text };
    }
    calls.push({ path: req.url, at: new Date().toISOString(), body });
    console.log(
      `${req.url}: ${(body.alerts ?? []).map((a) => `${a.status} ${a.labels?.alertname}{gen_ai_agent_id=${a.labels?.gen_ai_agent_id}}`).join(', ')}`,
    );
    res.writeHead(200).end();
  });
});
server.listen(port, '127.0.0.1', () => console.log(`webhook listening on 127.0.0.1:${port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
