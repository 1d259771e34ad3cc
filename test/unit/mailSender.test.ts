// The SMTP client that hands queued mail to the relay (docs/webhooks.md "Mail"), against an SMTP
// server in the test speaking RFC 5321 on a real socket: greeting, EHLO, AUTH PLAIN, the
// envelope, DATA with dot-stuffing, QUIT; and a refusal surfaces as an error (the mail stays queued).
import { afterEach, describe, expect, it } from 'vitest';
import { MailSender } from '../../src/webhooks/mailSender.js';
import { smtpServer } from '../helpers/smtpServer.js';

const mail = {
  id: 'msg_test',
  tenantId: null,
  to: 'support@reseller.example',
  subject: 'Webhook whk_x disabled after 3 days of failed deliveries',
  body: 'First line.\n.a line starting with a dot\nLast line.',
  createdAt: new Date('2026-11-25T12:00:00Z'),
  sentAt: null,
  attempts: 0,
  lastError: null,
};

let server: ReturnType<typeof smtpServer> | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('MailSender', () => {
  it('authenticates, sends the envelope and a dot-stuffed message', async () => {
    server = smtpServer({ password: 'p@ss word' });
    const port = await server.listen();
    await new MailSender(new URL(`smtp://mailer:${encodeURIComponent('p@ss word')}@127.0.0.1:${port}`), 'noreply@dns.example').send(mail);
    const [session] = server.sessions;
    expect(session!.commands.map((c) => c.split(' ')[0])).toEqual(['EHLO', 'AUTH', 'MAIL', 'RCPT', 'DATA', 'QUIT']);
    expect(session!.commands).toContain('MAIL FROM:<noreply@dns.example>');
    expect(session!.commands).toContain('RCPT TO:<support@reseller.example>');
    expect(session!.data).toContain('Subject: Webhook whk_x disabled after 3 days of failed deliveries\r\n');
    expect(session!.data).toContain('To: support@reseller.example\r\n');
    expect(session!.data).toContain('\r\n\r\nFirst line.\r\n..a line starting with a dot\r\nLast line.\r\n');
  });

  it('fails on a wrong password or a refused recipient, so the mail stays queued', async () => {
    server = smtpServer({ password: 'right', rejectTo: 'support@' });
    const port = await server.listen();
    await expect(new MailSender(new URL(`smtp://mailer:wrong@127.0.0.1:${port}`), 'noreply@dns.example').send(mail)).rejects.toThrow(/535/);
    await expect(new MailSender(new URL(`smtp://127.0.0.1:${port}`), 'noreply@dns.example').send(mail)).rejects.toThrow(/550/);
  });
});
