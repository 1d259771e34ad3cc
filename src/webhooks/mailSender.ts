// Hands queued mail to an SMTP server (RFC 5321): smtp:// with STARTTLS when the server offers
// it (RFC 3207), smtps:// with TLS from the start (RFC 8314), AUTH PLAIN (RFC 4616) when the URL
// carries a user. A relay is all the service needs; node's net and tls do it without a package.
import net from 'node:net';
import os from 'node:os';
import tls from 'node:tls';
import type { Pool } from '../db/context.js';
import { type QueuedMail, sendDueMail } from '../db/repositories/mailOutbox.js';

const TIMEOUT_MS = 30_000;

export class MailSender {
  constructor(
    private readonly url: URL,
    private readonly from: string,
  ) {}

  sendDue(db: Pool, now: Date): Promise<number> {
    return sendDueMail(db, now, (mail) => this.send(mail));
  }

  async send(mail: QueuedMail): Promise<void> {
    const secure = this.url.protocol === 'smtps:';
    const host = this.url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(this.url.port || (secure ? 465 : 25));
    let socket: net.Socket = secure ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host }) : net.connect({ host, port });
    socket.setTimeout(TIMEOUT_MS, () => socket.destroy(new Error('SMTP server timed out')));
    let reader = replies(socket);
    try {
      await expect(reader, 220);
      const ehlo = async () => {
        socket.write(`EHLO ${os.hostname()}\r\n`);
        return (await expect(reader, 250)).join('\n');
      };
      let features = await ehlo();
      if (!secure && /STARTTLS/i.test(features)) {
        socket.write('STARTTLS\r\n');
        await expect(reader, 220);
        reader.detach();
        socket = tls.connect({ socket, servername: net.isIP(host) ? undefined : host });
        reader = replies(socket);
        features = await ehlo();
      }
      if (this.url.username) {
        const user = decodeURIComponent(this.url.username);
        const password = decodeURIComponent(this.url.password);
        socket.write(`AUTH PLAIN ${Buffer.from(`\0${user}\0${password}`).toString('base64')}\r\n`);
        await expect(reader, 235);
      }
      socket.write(`MAIL FROM:<${this.from}>\r\n`);
      await expect(reader, 250);
      socket.write(`RCPT TO:<${mail.to}>\r\n`);
      await expect(reader, 250, 251);
      socket.write('DATA\r\n');
      await expect(reader, 354);
      socket.write(message(this.from, mail));
      await expect(reader, 250);
      socket.write('QUIT\r\n');
      // The mail is accepted already (250 after DATA); a server that hangs up without 221 is fine.
      await expect(reader, 221).catch(() => {});
    } finally {
      socket.end();
    }
  }
}

/** RFC 5322 message, UTF-8 body, dot-stuffed (RFC 5321 §4.5.2), ending in CRLF.CRLF. */
function message(from: string, mail: QueuedMail): string {
  const subject = /^[\x20-\x7e]*$/.test(mail.subject) ? mail.subject : `=?UTF-8?B?${Buffer.from(mail.subject).toString('base64')}?=`;
  const headers = [
    `From: ${from}`,
    `To: ${mail.to}`,
    `Subject: ${subject}`,
    `Date: ${mail.createdAt.toUTCString()}`,
    `Message-ID: <${mail.id}@${from.split('@')[1] ?? 'localhost'}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  const body = mail.body.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
  return `${headers.join('\r\n')}\r\n\r\n${body}\r\n.\r\n`;
}

interface ReplyReader {
  next(): Promise<{ code: number; lines: string[] }>;
  detach(): void;
}

/** Multi-line SMTP replies ("250-…" continues, "250 …" ends) from a socket. */
function replies(socket: net.Socket): ReplyReader {
  let buffer = '';
  let lines: string[] = [];
  const ready: { code: number; lines: string[] }[] = [];
  const waiting: { resolve: (r: { code: number; lines: string[] }) => void; reject: (e: Error) => void }[] = [];
  let failure: Error | null = null;
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let i;
    while ((i = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      lines.push(line.slice(4));
      if (line[3] !== '-') {
        const reply = { code: Number(line.slice(0, 3)), lines };
        lines = [];
        const w = waiting.shift();
        if (w) w.resolve(reply);
        else ready.push(reply);
      }
    }
  };
  const onError = (err: Error) => {
    failure = err;
    for (const w of waiting.splice(0)) w.reject(err);
  };
  const onClose = () => onError(failure ?? new Error('SMTP connection closed'));
  socket.on('data', onData);
  socket.on('error', onError);
  socket.on('close', onClose);
  return {
    next: () => {
      const r = ready.shift();
      if (r) return Promise.resolve(r);
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    detach: () => {
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
    },
  };
}

async function expect(reader: ReplyReader, ...codes: number[]): Promise<string[]> {
  const reply = await reader.next();
  if (!codes.includes(reply.code)) throw new Error(`SMTP server answered ${reply.code} ${reply.lines.join(' ')}`.slice(0, 300));
  return reply.lines;
}
