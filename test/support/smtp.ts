// A real SMTP server for the tests (the `smtp-server` package) on 127.0.0.1 and an ephemeral port,
// keeping every message it accepts, parsed (mailparser). `refuse` makes it answer every message
// with a temporary failure until turned off again, as a server that is briefly down.
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface TestSmtp {
  /** `smtp://127.0.0.1:<port>`: what SMTP_URL is set to. */
  url: string;
  messages: ParsedMail[];
  /** Messages offered while refusing (each attempt counts). */
  refused: number;
  refuse: boolean;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const state = { messages: [] as ParsedMail[], refused: 0, refuse: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (state.refuse) {
          state.refused++;
          callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
          return;
        }
        simpleParser(Buffer.concat(chunks)).then(
          (mail) => {
            state.messages.push(mail);
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return Object.assign(state, {
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
