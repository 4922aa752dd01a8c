// A webhook receiver for Kasi, in Node.js with no framework: it verifies each delivery's
// Service-Signature with @kasi/webhooks, handles each event once, and answers 2xx at once.
// Run: KASI_WEBHOOK_SECRET=whsec_... node receiver.mjs 127.0.0.1:4242
import http from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@kasi/webhooks';

const [host, port] = (process.argv[2] ?? '127.0.0.1:4242').split(':');
const secret = process.env.KASI_WEBHOOK_SECRET;
if (!secret) throw new Error('Set KASI_WEBHOOK_SECRET to the endpoint\'s signing secret (whsec_...).');

// Deliveries can arrive more than once: remember the events handled (use your database in a real app).
const handled = new Set();

function handle(event) {
  // Your work goes here: fulfil the order on payment.succeeded, and so on.
  const about = event.data && event.data.id ? ` (${event.data.id})` : '';
  console.log(`${event.type} ${event.id}${about}`);
}

http
  .createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/webhooks') return res.writeHead(404).end();
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      // The signature covers the exact bytes sent: verify the raw body, before any JSON parsing.
      const rawBody = Buffer.concat(chunks);
      let event;
      try {
        event = verifyWebhook(rawBody, req.headers['service-signature'], secret);
      } catch (err) {
        if (!(err instanceof WebhookVerificationError)) throw err;
        console.log(`refused: ${err.reason}`);
        return res.writeHead(400, { 'content-type': 'text/plain' }).end(err.reason);
      }
      if (handled.has(event.id)) {
        console.log(`${event.type} ${event.id} again: already handled`);
      } else {
        handled.add(event.id);
        handle(event);
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  })
  .listen(Number(port), host);
